// Package hostile holds the corpus of hostile programs that the in-process runtime and
// the worker-process runtime must end the same way: one outcome per shape in both
// isolation modes. It is for the tests of packages runtime and runtime/worker only.
//
// It owns hostile.txtar (the programs, each with the outcome it must get, and the budgets
// to run them with), its parser, and Run, which runs the corpus through either runtime as
// subtests. It may import only the standard library.
package hostile
