package procfd

import (
	"os"
	"strconv"
	"syscall"
)

// CloseInherited closes the descriptors above stderr that this process did not open
// itself: those without close-on-exec, which can only have been inherited (Go opens every
// descriptor of its own with O_CLOEXEC, and os/exec passes a child nothing else). A host
// that was itself given a descriptor without close-on-exec would otherwise hand it on to
// its workers. Call it first thing, before anything else opens descriptors.
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
