//go:build linux

package worker

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/runtime"
)

// asLimits reads the soft and hard address-space limits of process pid.
func asLimits(t *testing.T, pid int) (soft, hard int64) {
	t.Helper()
	line, rest := procLine(t, pid, "limits", "Max address space")
	f := strings.Fields(rest)
	if len(f) < 2 || f[0] == "unlimited" {
		t.Fatalf("address-space limit %q", line)
	}
	soft, _ = strconv.ParseInt(f[0], 10, 64)
	hard, _ = strconv.ParseInt(f[1], 10, 64)
	return soft, hard
}

// vmSize is a process's address-space size (VmSize) in bytes.
func vmSize(t *testing.T, pid int) int64 {
	t.Helper()
	line, rest := procLine(t, pid, "status", "VmSize:")
	kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
	if err != nil {
		t.Fatalf("VmSize line %q", line)
	}
	return kb << 10
}

// procLine returns the line of /proc/<pid>/<file> that starts with prefix, and the rest of
// it after prefix. It skips the test without the file, and fails it without the line.
func procLine(t *testing.T, pid int, file, prefix string) (line, rest string) {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		t.Skip("no /proc/<pid>/" + file)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return line, rest
		}
	}
	t.Fatalf("no %q line in /proc/%d/%s", prefix, pid, file)
	return "", ""
}

// TestRunHeapSizesHardLimit: a run's own HeapBytes sizes the hard memory limit it runs
// under. A smaller budget lowers the worker's soft address-space limit for that run only; a
// larger one runs in a worker started for it, so an allocation within the run's budget but
// past the pool's limit succeeds, as it would in process.
func TestRunHeapSizesHardLimit(t *testing.T) {
	p := newTestPool(t, 1) // HeapBytes 64 MiB: 384 MiB of headroom
	// The probe member reports the address-space limits and size of every live worker,
	// while the run that called it waits for it.
	type lim struct{ Soft, Hard, Size int64 }
	probe := func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error)) {
		p.mu.Lock()
		var pids []int
		for w := range p.live {
			pids = append(pids, w.cmd.Process.Pid)
		}
		p.mu.Unlock()
		var out []lim
		for _, pid := range pids {
			s, h := asLimits(t, pid)
			out = append(out, lim{s, h, vmSize(t, pid)})
		}
		done(json.Marshal(out))
	}
	ns, err := runtime.NewNamespace("host", []string{"limits"}, probe, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(heap int64) []lim {
		t.Helper()
		res := runCode(t, p, "return await host.limits({})", &runtime.RunOptions{Namespaces: []*runtime.Namespace{ns}, Limits: &runtime.Limits{HeapBytes: heap}})
		var got []lim
		if res.Failure != nil || json.Unmarshal(res.Value, &got) != nil || len(got) == 0 {
			t.Fatalf("probe run = %q", res.Text())
		}
		return got
	}

	def := run(0)
	if len(def) != 1 || def[0].Soft != def[0].Hard {
		t.Fatalf("default run: limits %+v, want one worker with soft = hard", def)
	}
	hard := def[0].Hard

	small := run(16 << 20)
	// The soft limit is the worker's size when the run began plus 2x16+256 MiB: at least
	// its warm size (the hard limit less 2x64+256 MiB) plus that, at most its size now plus
	// that (a thread the worker started meanwhile, with cgo a stack and a malloc arena of
	// about 72 MiB, moves it up, never down), and below the hard limit.
	const allowance16 = 2*16<<20 + 256<<20
	if len(small) != 1 || small[0].Hard != hard || small[0].Soft >= hard ||
		small[0].Soft < hard-96<<20 || small[0].Soft > small[0].Size+allowance16 {
		t.Errorf("16 MiB run: limits %+v, want the same hard limit %d and a soft limit of the worker's size plus %d", small, hard, allowance16)
	}
	if again := run(0); len(again) != 1 || again[0].Soft != hard || again[0].Hard != hard {
		t.Errorf("default run after a small one: limits %+v, want soft = hard = %d", again, hard)
	}

	big := run(1 << 30)
	var sized bool
	for _, l := range big {
		// The dedicated worker's warm size differs from the first one's by a few MiB at
		// most; its headroom is 2x1 GiB + 256 MiB instead of 384 MiB.
		sized = sized || l.Hard > hard+(3<<30)/2
	}
	if !sized {
		t.Errorf("1 GiB run: limits %+v, want a worker whose hard limit is about 1.9 GiB above %d", big, hard)
	}

	// Past the pool's hard limit, within the run's own budget. Zeroing 600 MB can take
	// longer than the test pool's 300 ms compute budget on a loaded machine; this is about
	// memory, so the run gets time. With the pool's budget the allocation is refused before
	// it ends the run at the worker's memory limit. The name is computed: a named
	// ArrayBuffer over the budget meets the guard's RangeError before any limit.
	const code = "const a = new globalThis['Array' + 'Buffer'](6e8); return a.byteLength"
	if res := runCode(t, p, code, nil); res.Failure == nil || res.Failure.Kind != runtime.KindMemoryLimit {
		t.Errorf("600 MB with the pool's 64 MiB budget = %q, want memory-limit", res.Text())
	}
	if got := runCode(t, p, code, &runtime.RunOptions{Limits: &runtime.Limits{HeapBytes: 1 << 30, Compute: 10 * time.Second}}).Text(); got != "600000000" {
		t.Errorf("600 MB with a 1 GiB budget = %q, want 600000000", got)
	}
	if got := runCode(t, p, "return 'healthy'", nil).Text(); got != "healthy" { // the pool still serves
		t.Errorf("the next run = %q", got)
	}
}

// TestCPUTime: cpuTime reads another process's CPU time (a child that burns CPU), agrees
// with what /proc/<pid>/stat says of it, and is -1 for a process that is gone or a pid that
// cannot be one.
func TestCPUTime(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	pid := cmd.Process.Pid
	first := cpuTime(pid)
	if first < 0 {
		t.Fatalf("cpuTime(%d) = %v for a running child", pid, first)
	}
	var got time.Duration
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got = cpuTime(pid); got >= first+50*time.Millisecond {
			break
		}
	}
	if got < first+50*time.Millisecond {
		t.Fatalf("cpuTime of a busy child went from %v to %v in 10s", first, got)
	}
	// /proc counts in 10 ms ticks, read after the clock: it may be ahead, never far behind.
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	if proc := time.Duration(ut+st) * 10 * time.Millisecond; proc < got-20*time.Millisecond {
		t.Errorf("cpuTime = %v, /proc/%d/stat says %v", got, pid, proc)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{gone.Process.Pid, 0, -1, 1 << 30} {
		if got := cpuTime(pid); got != -1 {
			t.Errorf("cpuTime(%d), no such process = %v, want -1", pid, got)
		}
	}
}
