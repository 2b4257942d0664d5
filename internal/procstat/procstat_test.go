package procstat

import (
	"os"
	"testing"
)

func TestStatus(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	self, ok := Status(0, "VmSize")
	if !ok || self <= 0 {
		t.Fatalf("Status(0, VmSize) = %d, %v; want a positive size", self, ok)
	}
	if byPID, ok := Status(os.Getpid(), "VmHWM"); !ok || byPID <= 0 {
		t.Errorf("Status(own pid, VmHWM) = %d, %v; want a positive size", byPID, ok)
	}
	if n, ok := Status(0, "Threads"); !ok || n < 1 {
		t.Errorf("Status(0, Threads) = %d, %v; want at least 1", n, ok)
	}
	for _, field := range []string{"NoSuchField", "VmSiz", "Name"} {
		if n, ok := Status(0, field); ok {
			t.Errorf("Status(0, %q) = %d, true; want not ok", field, n)
		}
	}
	if n, ok := Status(1<<30, "VmSize"); ok {
		t.Errorf("Status of a process that does not exist = %d, true", n)
	}
}
