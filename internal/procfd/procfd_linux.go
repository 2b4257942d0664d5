package procfd

import (
	"os"
	"strconv"
	"syscall"
)

// CloseInherited closes the descriptors above stderr without close-on-exec, which can only
// have been inherited (Go opens its own with O_CLOEXEC). Call it first thing, before
// anything else opens descriptors.
func CloseInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
		if errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
			_ = syscall.Close(fd)
		}
	}
}
