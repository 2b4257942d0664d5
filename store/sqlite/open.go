package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/runcode-go/runcode/store"
	msqlite "modernc.org/sqlite"
)

// Options configures Open. A nil *Options means all defaults.
type Options struct {
	// BusyTimeout is how long a write waits for another process's write to the same
	// file before it fails. Zero: 5 seconds.
	BusyTimeout time.Duration
}

// schemaVersion is the layout this package writes. A file of a newer layout is
// refused rather than misread; an older one would be migrated here.
const schemaVersion = 1

// schema creates the layout, version 1. Times are Unix nanoseconds, 0 for never.
var schema = []string{
	`CREATE TABLE runcode_schema (version INTEGER NOT NULL)`,
	`CREATE TABLE runcode_records (
		kind    TEXT    NOT NULL,
		key     TEXT    NOT NULL,
		data    BLOB    NOT NULL,
		version INTEGER NOT NULL,
		expires INTEGER NOT NULL,
		PRIMARY KEY (kind, key)
	)`,
	`CREATE INDEX runcode_records_expires ON runcode_records (expires) WHERE expires != 0`,
	`CREATE TABLE runcode_entries (
		kind TEXT    NOT NULL,
		key  TEXT    NOT NULL,
		seq  INTEGER NOT NULL,
		data BLOB    NOT NULL,
		PRIMARY KEY (kind, key, seq),
		FOREIGN KEY (kind, key) REFERENCES runcode_records (kind, key) ON DELETE CASCADE
	)`,
	`INSERT INTO runcode_schema (version) VALUES (1)`,
}

// Store is a store.Store in one SQLite file. It is safe for concurrent use by many
// goroutines, and by other processes that open the same file; it holds the file
// open until Close.
type Store struct {
	db     *sql.DB
	path   string
	write  chan struct{} // a token: one write of this process at a time reaches SQLite
	closed atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Open opens the store in the file at path, creating the file (0600) and its tables
// if they do not exist. A path that is a directory, a file that is not a SQLite
// database, and a database of a newer layout are errors that name the path.
func Open(ctx context.Context, path string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = 5 * time.Second
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: %s: %w", path, err)
	}
	if err := create(abs); err != nil {
		return nil, err
	}
	// A file: URI, so that no character of the path is taken for a parameter; the
	// parameters are the driver's, applied to every connection it opens.
	slashed := filepath.ToSlash(abs)
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed // C:/x on Windows
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	q.Set("_foreign_keys", "1")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL") // SQLite's default; said here because docs/stores.md promises it
	dsn := (&url.URL{Scheme: "file", Path: slashed, RawQuery: q.Encode()}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: %s: %w", abs, err)
	}
	n := max(4, goruntime.GOMAXPROCS(0))
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	s := &Store{db: db, path: abs, write: make(chan struct{}, 1)}
	if err := s.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

// create makes the file 0600 if it does not exist (SQLite would make it 0644, and
// gives its -wal and -shm files the database's mode), and refuses a path that is not
// a regular file.
func create(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return nil // another process made it first
		}
		if err != nil {
			return fmt.Errorf("store/sqlite: create %s: %w", path, err)
		}
		return f.Close()
	case err != nil:
		return fmt.Errorf("store/sqlite: %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("store/sqlite: %s is a directory, not a database file", path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("store/sqlite: %s is not a regular file", path)
	}
	return nil
}

// migrate creates the tables in a new file and checks an existing file's layout,
// under the write lock, so that processes opening a new file at once create it once.
func (s *Store) migrate(ctx context.Context) error {
	var found int
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runcode_schema'`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return tx.QueryRowContext(ctx, `SELECT max(version) FROM runcode_schema`).Scan(&found)
		}
		for _, stmt := range schema {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
	var se *msqlite.Error
	switch {
	case errors.As(err, &se) && se.Code()&0xff == 26: // SQLITE_NOTADB
		return fmt.Errorf("store/sqlite: %s is not a SQLite database", s.path)
	case err != nil:
		return fmt.Errorf("store/sqlite: open %s: %w", s.path, err)
	case found > schemaVersion:
		return fmt.Errorf("store/sqlite: %s has the store layout of version %d, newer than this runcode's (%d): use a newer runcode", s.path, found, schemaVersion)
	}
	return nil
}

// Path returns the absolute path of the store's file.
func (s *Store) Path() string { return s.path }

// Close closes the file. Calling it again returns nil.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store/sqlite: close %s: %w", s.path, err)
	}
	return nil
}

// begin is every method's first step: ErrClosed after Close, the context's error when
// it is done.
func (s *Store) begin(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// fail names the operation in err, or says ErrClosed when the store was closed under
// it (database/sql's "database is closed").
func (s *Store) fail(op string, err error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return fmt.Errorf("store/sqlite: %s: %w", op, err)
}

// writeTx runs f in a write transaction (BEGIN IMMEDIATE: SQLite's write lock is
// taken first, so what f reads stays true until it commits), after this process's
// earlier writes.
func (s *Store) writeTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	release, err := s.lockWrite(ctx)
	if err != nil {
		return err
	}
	defer release()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// writeExec runs one writing statement after this process's earlier writes and
// returns the number of rows it changed.
func (s *Store) writeExec(ctx context.Context, query string, args ...any) (int64, error) {
	release, err := s.lockWrite(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	res, err := s.db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *Store) lockWrite(ctx context.Context) (release func(), err error) {
	select {
	case s.write <- struct{}{}:
		return func() { <-s.write }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
