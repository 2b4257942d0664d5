//go:build unix

package workspace

import "syscall"

// openFlags are added to every open: O_NONBLOCK makes opening a FIFO (or a device that
// waits for a peer) return at once instead of waiting for a writer, so that the tools can
// look at what they opened before reading it. It changes nothing for regular files and
// directories.
const openFlags = syscall.O_NONBLOCK
