// Package testwait bounds the tests' waits on channels. It is for _test.go files only.
//
// A bound here is no timed assertion: it only turns a wait that would hang the test
// binary (until go test's own timeout, with no word on what it waited for) into a
// failure that says what did not come. It may import only the standard library.
package testwait
