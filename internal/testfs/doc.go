// Package testfs reads and writes the files tests work on: fixtures read whole, a file
// written into a fresh temporary directory, a tree of files. Every function fails the
// test on an error. It is for _test.go files only.
//
// It may import: the standard library.
package testfs
