// Package testexec builds the real executors that tests of the packages above them
// (the MCP bridge, the contrib integrations) run tools through: run_code on a goja pool
// that the test's cleanup closes, and the native executor. It is for _test.go files
// only; ptc's and bindings' own tests cannot use it (it imports ptc).
//
// It may import: ptc, native, pipeline, registry, runtime.
package testexec
