//go:build unix

package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/internal/procstat"
	"github.com/runcode-go/runcode/internal/testproc"
)

// What TestServeLoad measures of the server: its goroutines through --debug-addr, and on
// Linux its threads, descriptors, children and memory through /proc.

// holdings is what the server holds at one moment.
type holdings struct {
	goroutines   int
	stacks       map[string]int // goroutine stacks (function lines), with their counts
	threads, fds int
	children     []int
	rss, hwm     int64 // bytes
	childRSS     int64 // bytes, all children together
	linux        bool
	settledAfter time.Duration
}

// settleBound is how long settle waits for the server to give back what the load took.
const settleBound = 15 * time.Second

// settle measures what the server holds once it is idle. Without a baseline it waits
// for the worker processes the pool keeps warm and a steady goroutine count; with one,
// it waits (at most settleBound) until goroutines, threads, descriptors and children are back near the
// baseline's, and fails the test with the differences if they do not come back.
func (s *server) settle(t *testing.T, base *holdings) holdings {
	t.Helper()
	start := time.Now()
	last := -1
	for {
		u := s.measure(t)
		var problems []string
		if base == nil {
			if s.mode == isolationProcess && u.linux && len(u.children) < *loadConcurrency {
				problems = append(problems, fmt.Sprintf("%d of %d warm workers started", len(u.children), *loadConcurrency))
			}
			if u.goroutines != last {
				problems = append(problems, fmt.Sprintf("goroutines still changing (%d, then %d)", last, u.goroutines))
			}
			last = u.goroutines
		} else {
			problems = u.compare(base, s.mode)
		}
		if len(problems) == 0 || time.Since(start) > settleBound {
			u.settledAfter = time.Since(start)
			if len(problems) > 0 {
				msg := strings.Join(problems, "; ")
				if base != nil {
					msg += "\ngoroutine stacks that grew (count after - before):\n" + stackDiff(base.stacks, u.stacks)
				}
				t.Errorf("the server did not settle within %v: %s", settleBound, msg)
			}
			return u
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Margins of compare: goroutines and descriptors may differ from the baseline by a few
// (an HTTP connection being closed, the profile request's own). Threads are never given
// back by the Go runtime, so the load may leave one per call that was in flight in a
// system call at once, and a few for the collector; one stuck or leaked per call would
// show as many more.
const (
	goroutineMargin = 3
	fdMargin        = 3
)

// compare returns how u is not back near base.
func (u *holdings) compare(base *holdings, mode string) []string {
	var problems []string
	if u.goroutines > base.goroutines+goroutineMargin {
		problems = append(problems, fmt.Sprintf("goroutines %d, %d before the load", u.goroutines, base.goroutines))
	}
	if !u.linux {
		return problems
	}
	if maxThreads := base.threads + *loadConcurrency + 8; u.threads > maxThreads {
		problems = append(problems, fmt.Sprintf("threads %d, %d before the load (at most %d expected)", u.threads, base.threads, maxThreads))
	}
	if u.fds > base.fds+fdMargin {
		problems = append(problems, fmt.Sprintf("descriptors %d, %d before the load", u.fds, base.fds))
	}
	if len(u.children) != len(base.children) {
		problems = append(problems, fmt.Sprintf("child processes %d, %d before the load", len(u.children), len(base.children)))
	}
	if mode == isolationInProcess && len(u.children) > 0 {
		problems = append(problems, fmt.Sprintf("child processes %v in process", u.children))
	}
	return problems
}

// debugClient reads the debug endpoint on a new connection each time, so that no idle
// connection of its own is counted.
var debugClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// measure reads what the server holds now.
func (s *server) measure(t *testing.T) holdings {
	t.Helper()
	u := holdings{stacks: map[string]int{}}
	res, err := debugClient.Get(s.debug + "goroutine")
	if err != nil {
		t.Fatalf("the debug endpoint: %v", err)
	}
	profile, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the goroutine profile: %s, %v", res.Status, err)
	}
	u.goroutines, u.stacks = parseGoroutines(t, string(profile))

	pid := s.cmd.Process.Pid
	threads, ok := procstat.Status(pid, "Threads")
	if !ok {
		return u // not Linux: goroutines only
	}
	u.linux = true
	u.threads = int(threads)
	rss, _ := procstat.Status(pid, "VmRSS")
	hwm, _ := procstat.Status(pid, "VmHWM")
	u.rss, u.hwm = rss<<10, hwm<<10
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	u.fds = len(fds)
	children, _ := testproc.Children(pid)
	for _, c := range children {
		u.children = append(u.children, c.PID)
		if kb, ok := procstat.Status(c.PID, "VmRSS"); ok {
			u.childRSS += kb << 10
		}
	}
	return u
}

// parseGoroutines reads a debug=1 goroutine profile: the total, and the count of each
// stack keyed by its function lines.
func parseGoroutines(t *testing.T, profile string) (int, map[string]int) {
	t.Helper()
	head, rest, _ := strings.Cut(profile, "\n")
	total, err := strconv.Atoi(strings.TrimPrefix(head, "goroutine profile: total "))
	if err != nil {
		t.Fatalf("goroutine profile starts %q", head)
	}
	stacks := map[string]int{}
	for _, block := range strings.Split(rest, "\n\n") {
		first, frames, _ := strings.Cut(strings.TrimSpace(block), "\n")
		count, _, ok := strings.Cut(first, " @ ")
		n, err := strconv.Atoi(count)
		if !ok || err != nil {
			continue
		}
		var funcs []string
		for _, f := range strings.Split(frames, "\n") {
			if fields := strings.Fields(f); len(fields) >= 3 {
				funcs = append(funcs, "  "+fields[2])
			}
		}
		stacks[strings.Join(funcs, "\n")] += n
	}
	return total, stacks
}

// stackDiff lists the stacks whose count grew from before to after.
func stackDiff(before, after map[string]int) string {
	var b strings.Builder
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if d := after[k] - before[k]; d > 0 {
			fmt.Fprintf(&b, "%+d\n%s\n", d, k)
		}
	}
	return b.String()
}

// running returns the processes running the executable bin: the server and its
// workers, and whatever they left behind.
func running(bin string) []int {
	return processes(func(pid int) bool {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		return err == nil && exe == bin
	})
}

// processes returns the ids of the running processes that keep accepts.
func processes(keep func(pid int) bool) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && keep(pid) {
			out = append(out, pid)
		}
	}
	return out
}
