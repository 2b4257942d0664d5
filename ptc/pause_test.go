package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// pauseEnv is an executor whose pipeline asks a person before every call of the tools
// named in ask, with no approver: those calls pause their run.
type pauseEnv struct {
	*env
	ran  sync.Map // tool name -> *atomic.Int64
	logs []string // OnLog entries of every attempt
}

func newPauseEnv(t *testing.T, ask ...string) *pauseEnv {
	t.Helper()
	p := &pauseEnv{env: newEnv(t)}
	p.opts.PreExecute = []pipeline.PreExecuteFunc{func(_ context.Context, c *pipeline.Call) (pipeline.Decision, error) {
		for _, name := range ask {
			if c.Name == name {
				return pipeline.Decision{Action: pipeline.Ask}, nil
			}
		}
		return pipeline.Decision{}, nil
	}}
	p.ptc.OnLog = func(_ *registry.Call, entry string) {
		p.env.mu.Lock()
		p.logs = append(p.logs, entry)
		p.env.mu.Unlock()
	}
	return p
}

// tool registers a tool that counts its runs and returns its arguments.
func (p *pauseEnv) tool(name string, idempotent bool, body func(ctx context.Context) error) {
	n := &atomic.Int64{}
	p.ran.Store(name, n)
	p.register(&registry.Tool{
		Name: name, Description: "Test tool " + name + ".", Idempotent: idempotent,
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(ctx context.Context, c *registry.Call) (any, error) {
			n.Add(1)
			if body != nil {
				if err := body(ctx); err != nil {
					return nil, err
				}
			}
			return c.Args, nil
		},
	})
}

func (p *pauseEnv) count(name string) int64 {
	n, _ := p.ran.Load(name)
	return n.(*atomic.Int64).Load()
}

func (p *pauseEnv) runOn(ex *Executor, set *registry.ResolvedToolSet, code string) (*pipeline.Result, *Report) {
	args, _ := json.Marshal(map[string]string{"code": code, "description": "test program"})
	return ex.Run(context.Background(), set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
}

const approvalProgram = `
await tools.note({n: 1});
console.log("first", Date.now(), Math.random());
await tools.deploy({to: "prod"});
console.log("second", Date.now(), Math.random());
return "done";`

func TestPauseAndResume(t *testing.T) {
	p := newPauseEnv(t, "deploy")
	p.tool("note", false, nil)
	p.tool("deploy", false, nil)
	ex, set := p.executor()

	res, rep := p.runOn(ex, set, approvalProgram)
	if res.Error != nil || res.Pause == nil {
		t.Fatalf("first attempt: %s (pause %v); want a pause", resultText(res), res.Pause)
	}
	const want = "run_code paused: waiting for approval of deploy (1 pending). The run resumes when the user decides; do not call it again."
	if got := resultText(res); got != want {
		t.Errorf("paused text = %q, want %q", got, want)
	}
	wantPending := []pipeline.PendingCall{{ID: "call-1:code:2", Tool: "deploy", Arguments: json.RawMessage(`{"to":"prod"}`), Message: `tool "deploy" requires approval`}}
	if diff := cmp.Diff(wantPending, res.Pause.Pending); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if rep.Paused != res.Pause || rep.RunID == "" {
		t.Errorf("report: Paused %v, RunID %q; want the result's pause and an id", rep.Paused, rep.RunID)
	}
	if p.count("note") != 1 || p.count("deploy") != 0 {
		t.Errorf("before the decision: note ran %d times, deploy %d; want 1 and 0", p.count("note"), p.count("deploy"))
	}
	firstLine := p.logs[0]

	res2, err := ex.Resume(context.Background(), set, res.Pause.Continuation, map[string]Decision{"call-1:code:2": {Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	got := resultText(res2)
	lines := strings.Split(got, "\n")
	if res2.Error != nil || res2.Pause != nil || len(lines) != 3 || lines[0] != firstLine || !strings.HasPrefix(lines[1], "second ") || lines[2] != "done" {
		t.Errorf("resumed: %q (pause %v); want the whole output once, opening with the first attempt's %q", got, res2.Pause, firstLine)
	}
	if p.count("note") != 1 || p.count("deploy") != 1 {
		t.Errorf("after the approval: note ran %d times, deploy %d; want 1 and 1", p.count("note"), p.count("deploy"))
	}

	_, err = ex.Resume(context.Background(), set, res.Pause.Continuation, map[string]Decision{"call-1:code:2": {Approve: true}})
	if !errors.Is(err, ErrAlreadyResumed) || err.Error() != "run_code could not resume: this run was already resumed" {
		t.Errorf("second resume: %v, want the already-resumed error", err)
	}
}

func TestResumeRejects(t *testing.T) {
	p := newPauseEnv(t, "deploy")
	p.tool("deploy", false, nil)
	ex, set := p.executor()
	res, _ := p.runOn(ex, set, `try { await tools.deploy({}) } catch (e) { return [e.code, e.message] }`)
	if res.Pause == nil {
		t.Fatalf("no pause: %s", resultText(res))
	}
	res, err := ex.Resume(context.Background(), set, res.Pause.Continuation, map[string]Decision{"call-1:code:1": {Reason: "no"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultText(res), "[\n  \"DENIED\",\n  \"the user rejected tool \\\"deploy\\\": no\"\n]"; got != want {
		t.Errorf("rejected: %q, want %q", got, want)
	}
	if p.count("deploy") != 0 {
		t.Errorf("a rejected call ran %d times", p.count("deploy"))
	}
}

func TestSeveralPauses(t *testing.T) {
	p := newPauseEnv(t, "deploy", "notify")
	p.tool("deploy", false, nil)
	p.tool("notify", false, nil)
	ex, set := p.executor()
	code := `await Promise.all([tools.deploy({a: 1}), tools.deploy({a: 2})]); await tools.notify({}); return "ok"`
	res, _ := p.runOn(ex, set, code)
	// The two deploys are made in one statement: usually both wait in the first pause,
	// but the first may end waiting before the program makes the second, which then waits
	// in the next pause. Each pause lists what waits; approving them all goes on.
	var asked []string
	for pauses := 0; res.Pause != nil; pauses++ {
		if pauses == 4 {
			t.Fatalf("still paused after %d resumes: %+v", pauses, res.Pause)
		}
		n := len(res.Pause.Pending)
		want := fmt.Sprintf("run_code paused: waiting for approval of %s (%d pending).", res.Pause.Pending[0].Tool, n)
		if n > 1 {
			want = fmt.Sprintf("run_code paused: waiting for approval of %s and %d more (%d pending).", res.Pause.Pending[0].Tool, n-1, n)
		}
		if got := resultText(res); !strings.HasPrefix(got, want) {
			t.Errorf("pause %d: %q, want it to begin %q", pauses, got, want)
		}
		decisions := map[string]Decision{}
		for _, c := range res.Pause.Pending {
			asked = append(asked, c.ID+" "+c.Tool)
			decisions[c.ID] = Decision{Approve: true}
		}
		var err error
		if res, err = ex.Resume(context.Background(), set, res.Pause.Continuation, decisions); err != nil {
			t.Fatal(err)
		}
	}
	if resultText(res) != "ok" {
		t.Errorf("final result %q, want ok", resultText(res))
	}
	if diff := cmp.Diff([]string{"call-1:code:1 deploy", "call-1:code:2 deploy", "call-1:code:3 notify"}, asked); diff != "" {
		t.Errorf("calls asked about (-want +got):\n%s", diff)
	}
	if p.count("deploy") != 2 || p.count("notify") != 1 {
		t.Errorf("deploy ran %d times, notify %d; want 2 and 1", p.count("deploy"), p.count("notify"))
	}
}

// TestPartialDecisions: a pending call given no decision stays pending, and the run
// pauses again with it alone.
func TestPartialDecisions(t *testing.T) {
	p := newPauseEnv(t, "deploy")
	p.tool("deploy", false, nil)
	ex, set := p.executor()
	res, _ := p.runOn(ex, set, `await tools.deploy({a: 1}); await tools.deploy({a: 2}); return "ok"`)
	if res.Pause == nil {
		t.Fatalf("no pause: %s", resultText(res))
	}
	res, err := ex.Resume(context.Background(), set, res.Pause.Continuation, nil)
	if err != nil || res.Pause == nil || len(res.Pause.Pending) != 1 || res.Pause.Pending[0].ID != "call-1:code:1" {
		t.Fatalf("resumed with no decision: %v %s %+v", err, resultText(res), res.Pause)
	}
	if p.count("deploy") != 0 {
		t.Errorf("deploy ran %d times before any approval", p.count("deploy"))
	}
}

func TestResumeRefusals(t *testing.T) {
	p := newPauseEnv(t, "deploy")
	p.tool("deploy", false, nil)
	ex, set := p.executor()
	now := time.Now()
	ex.clock = func() time.Time { return now }
	res, _ := p.runOn(ex, set, `await tools.deploy({})`)
	if res.Pause == nil {
		t.Fatalf("no pause: %s", resultText(res))
	}
	tok := res.Pause.Continuation
	tests := []struct {
		name      string
		token     string
		decisions map[string]Decision
		later     time.Duration
		want      string
	}{
		{name: "a forged token", token: tok[:len(tok)-2] + "xx", want: "run_code could not resume: the continuation is not valid"},
		{name: "not a token", token: "hello", want: "run_code could not resume: the continuation is not valid"},
		{name: "an unknown call", token: tok, decisions: map[string]Decision{"call-1:code:9": {}}, want: `run_code could not resume: no call "call-1:code:9" is pending (pending: call-1:code:1)`},
		{name: "an expired token", token: tok, later: DefaultPauseTTL + time.Second, want: "run_code could not resume: the continuation expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex.clock = func() time.Time { return now.Add(tt.later) }
			_, err := ex.Resume(context.Background(), set, tt.token, tt.decisions)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Resume: %v, want %q", err, tt.want)
			}
		})
	}
	ex.clock = func() time.Time { return now }
	p.tool("other", false, nil)
	_, set2 := p.executor()
	if _, err := ex.Resume(context.Background(), set2, tok, nil); !errors.Is(err, ErrToolsChanged) || err.Error() != "run_code could not resume: the tools changed since the run paused" {
		t.Errorf("changed tools: %v", err)
	}
	// None of the refusals spent the continuation.
	if res, err := ex.Resume(context.Background(), set, tok, map[string]Decision{"call-1:code:1": {Approve: true}}); err != nil || res.Error != nil {
		t.Errorf("resume after the refusals: %v %s", err, resultText(res))
	}
}

func TestReplayDiverges(t *testing.T) {
	p := newPauseEnv(t, "a", "b")
	p.tool("slow", false, func(ctx context.Context) error {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		return nil
	})
	p.tool("a", false, nil)
	p.tool("b", false, nil)
	ex, set := p.executor()
	// The first attempt's timer wins against the slow call; the replayed call wins
	// against the timer, so the program asks for b where the ledger has a.
	code := `const r = await Promise.race([tools.slow({}), new Promise(ok => setTimeout(() => ok("timer"), 20))]);
await tools[r === "timer" ? "a" : "b"]({})`
	res, _ := p.runOn(ex, set, code)
	if res.Pause == nil || res.Pause.Pending[0].Tool != "a" {
		t.Fatalf("first attempt: %s %+v", resultText(res), res.Pause)
	}
	res, err := ex.Resume(context.Background(), set, res.Pause.Continuation, map[string]Decision{"call-1:code:2": {Approve: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := `Error: code run failed (replay-diverged): run_code could not resume: the program asked for b({}) where the recorded run had a({})`
	if got := resultText(res); got != want {
		t.Errorf("diverged run: %q, want %q", got, want)
	}
	if p.count("slow") != 1 || p.count("a") != 0 || p.count("b") != 0 {
		t.Errorf("slow ran %d, a %d, b %d times; want 1, 0, 0", p.count("slow"), p.count("a"), p.count("b"))
	}
}

// crashStore drops every write once crashed: the host that used it is gone.
type crashStore struct {
	store.Store
	crashed atomic.Bool
}

func (c *crashStore) Put(ctx context.Context, r store.Record, expect int64) (int64, error) {
	if c.crashed.Load() {
		return 0, errors.New("host gone")
	}
	return c.Store.Put(ctx, r, expect)
}

func (c *crashStore) PutEntry(ctx context.Context, kind, key string, e store.Entry) error {
	if c.crashed.Load() {
		return errors.New("host gone")
	}
	return c.Store.PutEntry(ctx, kind, key, e)
}

func (c *crashStore) Delete(ctx context.Context, kind, key string) error {
	if c.crashed.Load() {
		return errors.New("host gone")
	}
	return c.Store.Delete(ctx, kind, key)
}

func TestRecoverAfterACrash(t *testing.T) {
	for _, idempotent := range []bool{true, false} {
		t.Run(map[bool]string{true: "idempotent", false: "not idempotent"}[idempotent], func(t *testing.T) {
			p := newPauseEnv(t)
			mem := store.NewMemory()
			cs := &crashStore{Store: mem}
			p.ptc.Store = cs
			started := make(chan struct{}, 2)
			hang := atomic.Bool{}
			hang.Store(true)
			p.tool("note", false, nil)
			p.tool("slow", idempotent, func(ctx context.Context) error {
				started <- struct{}{}
				if hang.Load() {
					<-ctx.Done()
				}
				return nil
			})
			ex, set := p.executor()
			ctx, cancel := context.WithCancel(context.Background())
			var rep *Report
			done := make(chan struct{})
			go func() {
				defer close(done)
				// The calls' arguments carry values the program drew before each, so the
				// recovered run replays them or diverges: each call's entry holds the
				// draws made since the call before.
				args, _ := json.Marshal(map[string]string{"code": `const a = [Date.now(), Math.random()]; await tools.note({a});
const b = [Date.now(), Math.random(), Math.random(), Date.now()]; await tools.slow({b}); return "finished"`, "description": "d"})
				_, rep = ex.Run(ctx, set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
			}()
			<-started
			cs.crashed.Store(true) // the host dies: nothing it does from now on is kept
			cancel()
			<-done
			hang.Store(false)

			p.ptc.Store = mem // another host on the same store
			ex2, set2 := p.executor()
			res, err := ex2.Recover(context.Background(), set2, rep.RunID)
			if err != nil {
				t.Fatal(err)
			}
			want := "finished"
			if !idempotent {
				want = "Error: code run failed (interrupted): run_code was interrupted while slow was running; it did not run again because it is not idempotent"
			}
			if got := resultText(res); got != want {
				t.Errorf("recovered: %q, want %q", got, want)
			}
			wantSlow := int64(1)
			if idempotent {
				wantSlow = 2
			}
			if p.count("note") != 1 || p.count("slow") != wantSlow {
				t.Errorf("note ran %d times, slow %d; want 1 and %d", p.count("note"), p.count("slow"), wantSlow)
			}
			if _, err := ex2.Recover(context.Background(), set2, rep.RunID); err == nil {
				t.Error("a second recovery of a finished run succeeded")
			}
		})
	}
}

// TestSettledBeforeThePause: a program that does not await the call that waits for
// approval races its own end against the pause. Either way the outcome is whole: it
// completed (the waiting call abandoned, nothing kept) or it paused (kept, resumable),
// never a completed run reported paused.
func TestSettledBeforeThePause(t *testing.T) {
	p := newPauseEnv(t, "deploy")
	p.tool("deploy", false, nil)
	ex, set := p.executor()
	for range 20 {
		res, rep := p.runOn(ex, set, `tools.deploy({}).catch(() => {}); return "done"`)
		runs, _ := Runs(context.Background(), ex.store)
		switch {
		case res.Pause == nil && strings.HasSuffix(resultText(res), "\ndone") && rep.Paused == nil && len(runs) == 0:
		case res.Pause != nil && strings.HasPrefix(resultText(res), "run_code paused:") && rep.Paused == res.Pause && len(runs) == 1:
			ex.store.Delete(context.Background(), kindRun, rep.RunID)
		default:
			t.Fatalf("result %q, pause %+v, report pause %+v, stored %+v", resultText(res), res.Pause, rep.Paused, runs)
		}
	}
	if p.count("deploy") != 0 {
		t.Error("the call that waited ran")
	}
}
