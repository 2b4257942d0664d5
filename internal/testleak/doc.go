// Package testleak is the goroutine-leak check that the TestMain of every package whose
// tests run programs shares. It is for _test.go files only.
//
// It may import: the standard library and goleak.
package testleak
