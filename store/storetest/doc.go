// Package storetest is the one suite every store.Store implementation passes: the
// memory store's, store/sqlite's and store/postgres's tests all call [Run], and so can
// the tests of a Store written elsewhere. It is for _test.go files only.
//
// It checks the contract store.Store documents, not an implementation's internals:
// round trips, versions and compare-and-swap (also under 20 racing goroutines),
// expiry and Prune, List's order, prefix and limit, logs, Delete's cascade, payload
// and key bounds, closed stores and cancelled contexts.
//
// It may import: the standard library, store and go-cmp.
package storetest
