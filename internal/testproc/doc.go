// Package testproc lists a process's children from /proc, for tests that check which
// processes a pool leaves behind. It is for _test.go files only. It may import only the
// standard library.
package testproc
