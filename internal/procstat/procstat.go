package procstat

import (
	"bytes"
	"os"
	"strconv"
)

// Status returns the figure of field in /proc/PID/status of process pid, or of this process
// for pid 0: kB for the sizes ("VmSize", "VmHWM", "VmRSS"), a count for "Threads"; ok is
// false if it cannot be read.
func Status(pid int, field string) (n int64, ok bool) {
	data, err := os.ReadFile(procPath(pid, "status"))
	if err != nil {
		return 0, false
	}
	prefix := append([]byte(field), ':')
	for line := range bytes.Lines(data) {
		v, found := bytes.CutPrefix(line, prefix)
		if !found {
			continue
		}
		f := bytes.Fields(v)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		return n, err == nil
	}
	return 0, false
}

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
		stat, err := os.ReadFile(procPath(child, "stat"))
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

func procPath(pid int, file string) string {
	if pid == 0 {
		return "/proc/self/" + file
	}
	return "/proc/" + strconv.Itoa(pid) + "/" + file
}
