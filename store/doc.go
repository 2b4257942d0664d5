// Package store is where runs outlive a request: one small, durable record store that
// paused runs' ledgers, session state, saved scripts and result handles are built on.
//
// A [Record] is a versioned payload named by a kind and a key; [Store.Put] writes it
// only when its current version is the one the caller expects (compare-and-swap), so
// two writers never silently overwrite each other, across goroutines, processes and
// replicas alike. A record may carry a log of [Entry] values (a paused run's ledger),
// which lives and dies with it, and an expiry, after which it is invisible and
// [Store.Prune] removes it.
//
// It owns the [Store] contract, its bounds ([MaxDataBytes], [MaxKeyBytes]) and errors,
// and the memory implementation ([NewMemory]). The durable implementations live in
// subpackages: store/sqlite (one file, embedded, pure Go) and store/postgres (one
// database shared by several replicas). store/storetest is the one suite every
// implementation passes.
//
// It does not know what a payload means (runs, ledgers, state and scripts are their
// owners' encodings), sign anything, or prune on a schedule: callers decide when.
//
// It may import: the standard library only.
package store
