// Package postgres is the shared store: a store.Store in a PostgreSQL database, so that
// several `runcode serve` replicas behind a load balancer share paused runs and state
// (`--store postgres://…`). It uses github.com/jackc/pgx/v5's connection pool.
//
// Open creates its tables if they are missing: runcode_records, runcode_entries (a
// record's log, deleted with it by a foreign key) and runcode_schema (the layout's
// version, so that a later runcode can migrate it), under a transaction-scoped
// advisory lock, so that replicas starting at once create them once. Keys are text
// with the "C" collation, so List's order is byte order whatever the database's
// locale; the database's encoding must be UTF8 (PostgreSQL's default).
//
// Every write is one statement, or a pipelined batch that PostgreSQL runs as one
// transaction, and the compare-and-swap is in the statement (INSERT ... ON CONFLICT DO
// NOTHING to create, UPDATE ... WHERE version = $n to update), so it holds across
// connections, pools and replicas with no lock held between round trips. Expiry is
// judged by the caller's clock, as in the other stores, so replicas' clocks should
// agree.
//
// It may import: the standard library, store (and its internal packages) and pgx.
package postgres
