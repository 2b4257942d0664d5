//go:build !unix

package worker

import "os"

// ownGroup reports whether this process leads a process group of its own: there are none
// here.
func ownGroup() bool { return false }

// terminate ends this process as something outside the pool might.
func terminate() { os.Exit(1) }
