//go:build !unix

package worker

import (
	"errors"
	"os/exec"
	"syscall"
)

// newGroup does nothing outside Unix: there are no process groups to start. The worker is
// still killed directly; what it started itself is not.
func newGroup(cmd *exec.Cmd) {}

// killGroup does nothing outside Unix (see newGroup).
func killGroup(pid int) {}

// setNonblock fails outside Unix: the caller then keeps the descriptor as it is.
func setNonblock(fd uintptr) error {
	return errors.New("non-blocking pipes are a Unix measure")
}

// osSignalNames is empty outside Unix: no signals beyond the common ones (see signalNames).
var osSignalNames map[syscall.Signal]string
