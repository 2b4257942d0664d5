package testproc

import (
	"os"
	"os/exec"
	"testing"
)

func TestChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	before, ok := Children(0)
	if !ok {
		t.Fatal("Children(0): not ok with /proc present")
	}
	for _, c := range before {
		t.Logf("already a child: %+v", c)
	}
	// A child whose name has a space and a parenthesis, as comm may.
	dir := t.TempDir()
	bin := dir + "/sl ee)p"
	if err := os.Symlink(mustLook(t, "sleep"), bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	got, _ := Children(0)
	var found *Child
	for i := range got {
		if got[i].PID == cmd.Process.Pid {
			found = &got[i]
		}
	}
	if found == nil || found.State == "" {
		t.Fatalf("Children(0) = %+v; want one with pid %d and a state", got, cmd.Process.Pid)
	}
	mine, _ := Children(os.Getpid())
	if len(mine) != len(got) {
		t.Errorf("Children(own pid) = %+v; want the same as Children(0) = %+v", mine, got)
	}
	if none, ok := Children(cmd.Process.Pid); !ok || len(none) != 0 {
		t.Errorf("Children of the sleeping child = %+v, %v; want none", none, ok)
	}
}

func mustLook(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip(name + " not found")
	}
	return p
}
