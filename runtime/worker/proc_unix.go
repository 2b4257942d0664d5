//go:build unix

package worker

import (
	"os/exec"
	"syscall"
)

// newGroup makes the worker the leader of a process group of its own, so that whatever it
// leaves behind can be killed with it (killGroup).
func newGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process left in the group whose leader was pid.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// setNonblock puts descriptor fd in non-blocking mode.
func setNonblock(fd uintptr) error {
	return syscall.SetNonblock(int(fd), true)
}

// osSignalNames names the signals only Unix has (see signalNames).
var osSignalNames = map[syscall.Signal]string{
	syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGXFSZ: "SIGXFSZ",
}
