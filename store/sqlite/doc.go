// Package sqlite is the embedded store: a store.Store in one SQLite file, written with
// the pure-Go modernc.org/sqlite (no cgo), the CLI's and `runcode serve`'s store when
// `--store FILE` is given.
//
// The file is made 0600 if it does not exist, runs in WAL mode (readers do not wait
// for the writer), and holds three tables: runcode_records, runcode_entries (a
// record's log, deleted with it by a foreign key) and runcode_schema (the layout's
// version, so a later runcode can migrate it). Several processes may use one file at
// once: a write takes SQLite's write lock first (BEGIN IMMEDIATE), so a
// compare-and-swap reads and writes under one lock, and a writer that finds the file
// locked by another process waits up to Options.BusyTimeout, or until its context is
// done. Within a process, writes queue in Go before they reach SQLite.
//
// The file must be on a local file system: SQLite's locks, and so WAL mode, do not
// work over a network file system.
//
// It may import: the standard library, store (and its internal packages) and
// modernc.org/sqlite.
package sqlite
