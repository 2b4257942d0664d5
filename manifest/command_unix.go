//go:build unix

package manifest

import (
	"os/exec"
	"syscall"
)

// killGroup starts the process in its own process group and makes cancellation kill
// the whole group, so that nothing it started outlives the call.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
