package testproc

import (
	"bytes"
	"os"
	"strconv"
)

// Child is a live child process and its state letter ("R", "S", "Z", …).
type Child struct {
	PID   int
	State string
}

// Children returns the processes whose parent is pid, or of this process for pid 0; ok is
// false where there is no /proc to read.
func Children(pid int) (children []Child, ok bool) {
	if pid == 0 {
		pid = os.Getpid()
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	parent := strconv.Itoa(pid)
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses, so the fields
		// after it are counted from its last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) > 1 && string(f[1]) == parent {
			children = append(children, Child{PID: child, State: string(f[0])})
		}
	}
	return children, true
}
