package sqlite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/sqlite"
)

// The test binary is the second process: with childEnv set to a database path, it
// runs child instead of the tests.
const (
	childEnv   = "RUNCODE_TEST_SQLITE_CHILD"
	childIDEnv = "RUNCODE_TEST_SQLITE_CHILD_ID"
	rounds     = 100
)

// childReport is what a child process prints: the race keys it created, and how
// often its compare-and-swap on the counter lost to the other process.
type childReport struct {
	Wins      []int
	Conflicts int
}

// TestTwoProcesses runs two processes against one new file, released at once: both
// create it (the schema once), race to create the same records (exactly one wins
// each), increment one counter by compare-and-swap (no increment is lost), and append
// to one log.
func TestTwoProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout bytes.Buffer
		stderr bytes.Buffer
	}
	var procs []*proc
	for id := range 2 {
		p := &proc{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		p.cmd.Env = append(os.Environ(), childEnv+"="+path, childIDEnv+"="+strconv.Itoa(id))
		p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
		var err error
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		p.stdin.Close() // go
	}
	wins := map[int]int{}
	conflicts := 0
	for id, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", id, err, p.stderr.String())
		}
		var rep childReport
		if err := json.Unmarshal(p.stdout.Bytes(), &rep); err != nil {
			t.Fatalf("process %d printed %q: %v", id, p.stdout.String(), err)
		}
		t.Logf("process %d created %d of the %d race records and lost %d increments to the other", id, len(rep.Wins), rounds, rep.Conflicts)
		conflicts += rep.Conflicts
		for _, i := range rep.Wins {
			wins[i]++
		}
	}
	if conflicts == 0 {
		t.Error("no increment conflicted: the processes did not write at the same time, and the test showed nothing")
	}
	for i := range rounds {
		if wins[i] != 1 {
			t.Errorf("race record %d was created %d times, want once", i, wins[i])
		}
	}

	s := open(t, path)
	ctx := t.Context()
	c, err := s.Get(ctx, "counter", "c")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprint(2 * rounds); string(c.Data) != want || c.Version != 2*rounds {
		t.Errorf("counter = %s at version %d, want %s at %d: an increment was lost", c.Data, c.Version, want, 2*rounds)
	}
	es, err := s.Entries(ctx, "log", "l")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2*rounds {
		t.Errorf("the shared log has %d entries, want %d", len(es), 2*rounds)
	}
}

// child is the second process's body; its exit status is the test's verdict on it.
func child() int {
	if err := runChild(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runChild() error {
	path := os.Getenv(childEnv)
	id, _ := strconv.Atoi(os.Getenv(childIDEnv))
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil { // wait for the start
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.Put(ctx, store.Record{Kind: "log", Key: "l"}, 0); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	var rep childReport
	for i := range rounds {
		_, err := s.Put(ctx, store.Record{Kind: "race", Key: strconv.Itoa(i), Data: []byte{byte(id)}}, 0)
		switch {
		case err == nil:
			rep.Wins = append(rep.Wins, i)
		case !errors.Is(err, store.ErrConflict):
			return err
		}
		n, err := increment(ctx, s)
		if err != nil {
			return err
		}
		rep.Conflicts += n
		if err := s.PutEntry(ctx, "log", "l", store.Entry{Seq: int64(id*1_000_000 + i), Data: []byte("x")}); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

// increment adds one to the counter by compare-and-swap, retrying on conflicts, and
// says how many there were. It waits between reading and writing, holding no lock, so
// that the other process's writes come in between.
func increment(ctx context.Context, s store.Store) (conflicts int, err error) {
	for ; ; conflicts++ {
		var n int
		var version int64
		r, err := s.Get(ctx, "counter", "c")
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return conflicts, err
		default:
			if n, err = strconv.Atoi(string(r.Data)); err != nil {
				return conflicts, err
			}
			version = r.Version
		}
		time.Sleep(time.Millisecond)
		_, err = s.Put(ctx, store.Record{Kind: "counter", Key: "c", Data: []byte(strconv.Itoa(n + 1))}, version)
		if !errors.Is(err, store.ErrConflict) {
			return conflicts, err
		}
	}
}
