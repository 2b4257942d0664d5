//go:build unix

package worker

import (
	"os"
	"syscall"
)

// ownGroup reports whether this process leads a process group of its own.
func ownGroup() bool {
	pgid, _ := syscall.Getpgid(0)
	return pgid == os.Getpid()
}

// terminate sends this process SIGTERM, as something outside the pool might.
func terminate() { _ = syscall.Kill(os.Getpid(), syscall.SIGTERM) }
