package postgres_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/internal/testpg"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/postgres"
	"github.com/runcode-go/runcode/store/storetest"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

// serverEnv names the server the tests use: a postgres:// URL whose user may create
// databases. Each test makes a database of its own there and drops it at the end.
var (
	serverURL     = testpg.ServerURL
	freshDatabase = testpg.FreshDatabase
)

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

func open(t *testing.T, dbURL string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSuite(t *testing.T) {
	serverURL(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := postgres.Open(t.Context(), freshDatabase(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Two replicas: two Stores (two pools) on one database. The compare-and-swap holds
// across them, and each sees what the other wrote.
func TestTwoReplicas(t *testing.T) {
	db := freshDatabase(t)
	a, b := open(t, db), open(t, db)
	replicas := []*postgres.Store{a, b}
	ctx := t.Context()

	// Creates from both, at once: one wins.
	const n = 20
	results := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			_, results[i] = replicas[i%2].Put(ctx, store.Record{Kind: "run", Key: "r", Data: fmt.Appendf(nil, "%d", i)}, 0)
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Errorf("create %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d creates won across two replicas, want 1", won)
	}

	// Unconditional writes from both: every version once.
	versions := make([]int64, n)
	start = make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			v, err := replicas[i%2].Put(ctx, store.Record{Kind: "run", Key: "r"}, store.Any)
			if err != nil {
				t.Errorf("Put(Any) %d: %v", i, err)
			}
			versions[i] = v
		})
	}
	close(start)
	wg.Wait()
	slices.Sort(versions)
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 2)
	}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Errorf("versions of unconditional writes from two replicas (-want +got):\n%s", diff)
	}

	// A conflict says what the other replica wrote.
	_, err := a.Put(ctx, store.Record{Kind: "run", Key: "r"}, 1)
	var ce *store.ConflictError
	if !errors.As(err, &ce) || ce.Current != n+1 {
		t.Errorf("stale update: %v, want a conflict finding version %d", err, n+1)
	}

	// The log, written on one and read on the other; a delete on one cascades for both.
	if err := a.PutEntry(ctx, "run", "r", store.Entry{Seq: 1, Data: []byte("ledger")}); err != nil {
		t.Fatal(err)
	}
	if es, err := b.Entries(ctx, "run", "r"); err != nil || len(es) != 1 {
		t.Errorf("entries through the other replica = %v, %v", es, err)
	}
	if err := b.Delete(ctx, "run", "r"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Entries(ctx, "run", "r"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("entries after the other replica deleted the record: %v, want ErrNotFound", err)
	}
}

// Replicas starting at once on a new database create its tables once, and all start.
func TestConcurrentOpen(t *testing.T) {
	db := freshDatabase(t)
	const n = 6
	errs := make([]error, n)
	stores := make([]*postgres.Store, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = postgres.Open(t.Context(), db, nil)
		})
	}
	close(start)
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Errorf("Open %d: %v", i, errs[i])
			continue
		}
		s.Close()
	}
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM runcode_schema`).Scan(&rows); err != nil || rows != 1 {
		t.Errorf("runcode_schema has %d rows (%v), want 1", rows, err)
	}
	rowsOf, err := conn.Query(t.Context(),
		`SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rowsOf, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"runcode_entries", "runcode_records", "runcode_schema"}, tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
}

func TestReopen(t *testing.T) {
	db := freshDatabase(t)
	s := open(t, db)
	ctx := t.Context()
	expires := time.Now().Add(time.Hour)
	if _, err := s.Put(ctx, store.Record{Kind: "k", Key: "x", Data: []byte("kept"), Expires: expires}, 0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, db)
	r, err := s.Get(ctx, "k", "x")
	if err != nil || string(r.Data) != "kept" || !r.Expires.Equal(expires) {
		t.Fatalf("after reopening: %+v, %v", r, err)
	}
}

// A database of a newer layout is refused, not misread.
func TestNewerSchema(t *testing.T) {
	db := freshDatabase(t)
	open(t, db).Close()
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), `UPDATE runcode_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(t.Context(), db, nil)
	if err == nil {
		s.Close()
		t.Fatal("Open of a version 99 layout succeeded")
	}
	u, _ := url.Parse(db)
	if !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), strings.TrimPrefix(u.Path, "/")) {
		t.Errorf("Open: %v; want an error naming the database and version 99", err)
	}
}

// No server: Open fails, saying where it tried. This needs no server.
func TestUnreachable(t *testing.T) {
	dir := t.TempDir()
	s, err := postgres.Open(t.Context(), "postgres://nobody@/nodb?host="+dir+"&connect_timeout=5", nil)
	if err == nil {
		s.Close()
		t.Fatal("Open with no server succeeded")
	}
	if !strings.HasPrefix(err.Error(), "store/postgres: ") || !strings.Contains(err.Error(), `"nodb"`) {
		t.Errorf("Open: %v; want an error naming the database", err)
	}
	if _, err := postgres.Open(t.Context(), "postgres://%zz", nil); err == nil || !strings.HasPrefix(err.Error(), "store/postgres: ") {
		t.Errorf("Open of a malformed URL: %v", err)
	}
}

// A write that waits for another transaction's row lock gives up when its context
// does, and the store goes on working.
func TestWaitEndsWithContext(t *testing.T) {
	db := freshDatabase(t)
	s := open(t, db)
	ctx := t.Context()
	if _, err := s.Put(ctx, store.Record{Kind: "k", Key: "x"}, 0); err != nil {
		t.Fatal(err)
	}
	holder, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM runcode_records WHERE kind = 'k' AND key = 'x' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		expect int64
	}{{"update", 1}, {"any", store.Any}} {
		wait, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		begun := time.Now()
		_, err := s.Put(wait, store.Record{Kind: "k", Key: "x"}, tc.expect)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s under another's row lock: %v, want context.DeadlineExceeded", tc.name, err)
		}
		if d := time.Since(begun); d > 20*time.Second {
			t.Errorf("%s took %v to give up", tc.name, d)
		}
	}
	if r, err := s.Get(ctx, "k", "x"); err != nil || r.Version != 1 {
		t.Errorf("Get while the row is locked = %+v, %v; want version 1", r, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Put(ctx, store.Record{Kind: "k", Key: "x"}, 1); err != nil || v != 2 {
		t.Errorf("Put after the lock went = %d, %v; want 2", v, err)
	}
}
