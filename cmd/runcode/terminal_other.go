//go:build !linux && !darwin

package main

import "os"

// isTerminal reports whether f is a character device: a console on Windows (and also
// NUL, which then reads as an empty answer, a rejection).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
