//go:build !linux

package worker

import (
	"io"
	"os"
)

// rawOrFile returns f: raw pipe I/O (rawpipe_linux.go) is a Linux measure.
func rawOrFile(f *os.File) io.ReadWriter { return f }
