package testpg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// ServerEnv names the variable that holds the test server's URL.
const ServerEnv = "RUNCODE_TEST_POSTGRES"

// ServerURL returns the server's URL, or skips the test when none is set, except under
// CI, where .ci/run starts one and a missing server is a failure.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(ServerEnv)
	if u == "" {
		msg := ServerEnv + " is not set, so there is no PostgreSQL server to test against; start one with\n" +
			"\texport " + ServerEnv + "=$(scripts/postgres start $(mktemp -d))\n" +
			"and stop it with scripts/postgres stop DIR"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (under CI, .ci/run starts one)")
		}
		t.Skip(msg)
	}
	return u
}

// FreshDatabase creates an empty database for the test, dropped when it ends, and
// returns its URL. Where the server has ICU, the database's default collation is a
// natural-language one, so that tests show that byte order does not depend on it.
func FreshDatabase(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL: %q", ServerEnv, base)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to %s: %v", ServerEnv, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	name := "runcode_test_" + hex.EncodeToString(b)
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
	if err != nil {
		t.Logf("no database with an ICU collation (%v); the server's default it is", err)
		_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	}
	if err != nil {
		admin.Close(ctx)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping the test database: %v", err)
		}
		admin.Close(ctx)
	})
	u.Path = "/" + name
	return u.String()
}
