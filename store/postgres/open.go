package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/runcode-go/runcode/store"
)

// Options configures Open. A nil *Options means all defaults.
type Options struct {
	// MaxConns bounds the pool's connections to the server. Zero: the connection
	// string's pool_max_conns, else pgxpool's default (the greater of 4 and the
	// number of CPUs).
	MaxConns int32
}

// cancelGrace is how long a call whose context ended waits for the server to confirm
// that it cancelled the statement, before it drops the connection.
const cancelGrace = time.Second

// schemaVersion is the layout this package writes. A database of a newer layout is
// refused rather than misread; an older one would be migrated here.
const schemaVersion = 1

// schemaLock names the advisory lock that creating or migrating the tables takes, so
// that replicas starting at once do it once ("runcode" in ASCII).
const schemaLock int64 = 0x72756e636f6465

// schema creates the layout, version 1. Times are Unix nanoseconds, 0 for never.
var schema = []string{
	`CREATE TABLE runcode_records (
		kind    text COLLATE "C" NOT NULL,
		key     text COLLATE "C" NOT NULL,
		data    bytea  NOT NULL,
		version bigint NOT NULL,
		expires bigint NOT NULL,
		PRIMARY KEY (kind, key)
	)`,
	`CREATE INDEX runcode_records_expires ON runcode_records (expires) WHERE expires <> 0`,
	`CREATE TABLE runcode_entries (
		kind text COLLATE "C" NOT NULL,
		key  text COLLATE "C" NOT NULL,
		seq  bigint NOT NULL,
		data bytea  NOT NULL,
		PRIMARY KEY (kind, key, seq),
		FOREIGN KEY (kind, key) REFERENCES runcode_records (kind, key) ON DELETE CASCADE
	)`,
	`INSERT INTO runcode_schema (version) VALUES (1)`,
}

// Store is a store.Store in a PostgreSQL database. It is safe for concurrent use by
// many goroutines, and by other Stores, in this process or others, on the same
// database; it holds a pool of connections until Close.
type Store struct {
	pool   *pgxpool.Pool
	where  string // the database and host, for errors
	closed atomic.Bool
}

var _ store.Store = (*Store)(nil)

// Open connects to the database that connString names (a postgres:// URL or a
// key=value string, as libpq takes them), and creates the tables if they are missing.
// It fails if the server cannot be reached or the database has a newer layout.
func Open(ctx context.Context, connString string, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	// When a call's context ends, ask the server to cancel the statement (pgx's
	// default only drops the connection, and the server goes on waiting for a lock,
	// then commits a write the caller was told failed). The deadline is the fallback
	// for a server that does not answer.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelGrace}
	}
	host := cfg.ConnConfig.Host
	if cfg.ConnConfig.Port != 0 && (host == "" || host[0] != '/') {
		host = fmt.Sprintf("%s:%d", host, cfg.ConnConfig.Port)
	}
	where := fmt.Sprintf("database %q on %s", cfg.ConnConfig.Database, host)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store/postgres: %s: %w", where, err)
	}
	s := &Store{pool: pool, where: where}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// migrate creates the tables, or checks their layout, under the advisory lock.
func (s *Store) migrate(ctx context.Context) error {
	var found int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, schemaLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS runcode_schema (version integer NOT NULL)`); err != nil {
			return err
		}
		var v *int
		if err := tx.QueryRow(ctx, `SELECT max(version) FROM runcode_schema`).Scan(&v); err != nil {
			return err
		}
		if v != nil {
			found = *v
			return nil
		}
		for _, stmt := range schema {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store/postgres: %s: %w", s.where, err)
	}
	if found > schemaVersion {
		return fmt.Errorf("store/postgres: %s has the store layout of version %d, newer than this runcode's (%d): use a newer runcode", s.where, found, schemaVersion)
	}
	return nil
}

// Close closes the pool's connections, after waiting for the calls that hold one.
// Calling it again returns nil.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.pool.Close()
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

// fail names the operation in err, says ErrClosed when the store was closed under it,
// and makes sure that a call its context ended says so (the server's "canceling
// statement due to user request" does not).
func (s *Store) fail(ctx context.Context, op string, err error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("store/postgres: %s: %w (%w)", op, cerr, err)
	}
	return fmt.Errorf("store/postgres: %s: %w", op, err)
}
