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

func procPath(pid int, file string) string {
	if pid == 0 {
		return "/proc/self/" + file
	}
	return "/proc/" + strconv.Itoa(pid) + "/" + file
}
