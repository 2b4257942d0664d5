package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/sqlite"
	"github.com/runcode-go/runcode/store/storetest"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	testleak.VerifyTestMain(m)
}

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "runcode.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Two stores on one file, as two processes would have: the compare-and-swap holds
// across them, and each sees the other's writes.
func TestTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	a, b := open(t, path), open(t, path)
	ctx := t.Context()
	if _, err := a.Put(ctx, store.Record{Kind: "k", Key: "x", Data: []byte("a")}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, store.Record{Kind: "k", Key: "x", Data: []byte("b")}, 0); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second create through another store: %v, want ErrConflict", err)
	}
	if v, err := b.Put(ctx, store.Record{Kind: "k", Key: "x", Data: []byte("b")}, 1); err != nil || v != 2 {
		t.Fatalf("update through another store = %d, %v", v, err)
	}
	if r, err := a.Get(ctx, "k", "x"); err != nil || string(r.Data) != "b" || r.Version != 2 {
		t.Fatalf("Get through the first store = %+v, %v", r, err)
	}
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runcode.db")
	s := open(t, path)
	ctx := t.Context()
	expires := time.Now().Add(time.Hour)
	if _, err := s.Put(ctx, store.Record{Kind: "k", Key: "x", Data: []byte("kept"), Expires: expires}, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.PutEntry(ctx, "k", "x", store.Entry{Seq: 3, Data: []byte("e")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	r, err := s.Get(ctx, "k", "x")
	if err != nil || string(r.Data) != "kept" || r.Version != 1 || !r.Expires.Equal(expires) {
		t.Fatalf("after reopening: %+v, %v", r, err)
	}
	if es, err := s.Entries(ctx, "k", "x"); err != nil || len(es) != 1 || es[0].Seq != 3 {
		t.Fatalf("entries after reopening: %v, %v", es, err)
	}
}

func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runcode.db")
	s := open(t, path)
	if _, err := s.Put(t.Context(), store.Record{Kind: "k", Key: "x"}, 0); err != nil {
		t.Fatal(err)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name())
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), perm)
		}
	}
	// WAL mode: the log beside the file.
	if !strings.Contains(strings.Join(names, " "), "runcode.db-wal") {
		t.Errorf("files %v: no runcode.db-wal, so not in WAL mode", names)
	}
	// A file made by someone else keeps its mode.
	other := filepath.Join(dir, "other.db")
	if err := os.WriteFile(other, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	open(t, other)
	if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("an existing file's mode changed: %v, %v", fi.Mode(), err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"directory", dir, dir + " is a directory"},
		{"not a database", notDB, notDB + " is not a SQLite database"},
		{"missing directory", filepath.Join(dir, "no", "such", "x.db"), filepath.Join(dir, "no", "such", "x.db")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlite.Open(t.Context(), tc.path, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.HasPrefix(err.Error(), "store/sqlite: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v; want an error naming %q", err, tc.want)
			}
		})
	}
	// The text file is untouched.
	if b, _ := os.ReadFile(notDB); !strings.HasPrefix(string(b), "not a database") {
		t.Error("Open changed a file that is not a database")
	}
}

// A file of a newer layout is refused, not misread.
func TestNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runcode.db")
	open(t, path).Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE runcode_schema SET version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := sqlite.Open(t.Context(), path, nil)
	if err == nil {
		s.Close()
		t.Fatal("Open of a version 99 layout succeeded")
	}
	if !strings.Contains(err.Error(), "version 99") || !strings.Contains(err.Error(), path) {
		t.Errorf("Open: %v; want an error naming the path and version 99", err)
	}
}

// A write that waits for another process's lock gives up when its context does, not
// after the busy timeout.
func TestWaitEndsWithContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runcode.db")
	s, err := sqlite.Open(t.Context(), path, &sqlite.Options{BusyTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(t.Context(), store.Record{Kind: "k", Key: "x"}, 0); err != nil {
		t.Fatal(err)
	}
	holder, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")

	for _, tc := range []struct {
		name string
		do   func(ctx context.Context) error
	}{
		{"Put", func(ctx context.Context) error {
			_, err := s.Put(ctx, store.Record{Kind: "k", Key: "x"}, store.Any)
			return err
		}},
		{"PutEntry", func(ctx context.Context) error {
			return s.PutEntry(ctx, "k", "x", store.Entry{Seq: 1})
		}},
		{"Prune", func(ctx context.Context) error {
			_, err := s.Prune(ctx, time.Now())
			return err
		}},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		start := time.Now()
		err := tc.do(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s under another's lock: %v, want context.DeadlineExceeded", tc.name, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s took %v to give up", tc.name, d)
		}
	}
	// Reads do not wait for the writer (WAL).
	if r, err := s.Get(t.Context(), "k", "x"); err != nil || r.Version != 1 {
		t.Errorf("Get under another's write lock = %+v, %v", r, err)
	}
}

// A busy timeout that runs out says so.
func TestBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runcode.db")
	s, err := sqlite.Open(t.Context(), path, &sqlite.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	_, err = s.Put(t.Context(), store.Record{Kind: "k", Key: "x"}, 0)
	if err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("Put under another's lock past the busy timeout: %v, want a 'database is locked' error", err)
	}
}
