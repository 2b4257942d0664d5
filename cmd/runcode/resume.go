package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// kindInvocation keys, by run id, how runcode run was invoked for a run it kept in a
// store: runcode resume rebuilds the same host from it.
const kindInvocation = "runcode.run"

// invocation is what runcode run keeps of itself for runcode resume.
type invocation struct {
	Flags []string `json:"flags"` // runFlags.saved
	File  string   `json:"file,omitempty"`
}

// paused reports a run that paused: the pause text, the pending calls and how to
// resume (or why it cannot be), and exit status 4.
func (f *runFlags) paused(ctx context.Context, st store.Store, res *pipeline.Result, rep *ptc.Report, cannotAsk string, stdout, stderr io.Writer) int {
	if st != nil {
		data, _ := json.Marshal(invocation{Flags: f.saved, File: f.file})
		rec := store.Record{Kind: kindInvocation, Key: rep.RunID, Data: data, Expires: time.Now().Add(ptc.DefaultPauseTTL + 24*time.Hour)}
		if _, err := st.Put(ctx, rec, store.Any); err != nil {
			fmt.Fprintf(stderr, "runcode run: keeping how to resume the run: %v\n", err)
			return exitFail
		}
	}
	if f.json {
		writeJSON(stdout, report(res, rep, res.Text()))
	} else {
		fmt.Fprintln(stdout, res.Text())
		for _, p := range res.Pause.Pending {
			fmt.Fprintf(stdout, "pending %s: %s(%s): %s\n", p.ID, p.Tool, p.Arguments, p.Message)
		}
		if st != nil {
			id := res.Pause.Pending[0].ID
			fmt.Fprintf(stdout, "resume with: runcode resume --store %s %s --approve %s | --reject %s[=reason]\n", shellQuote(f.store), res.Pause.Continuation, id, id)
		}
	}
	if st == nil {
		fmt.Fprintf(stderr, "runcode run: this run cannot be resumed: %s, and without --store paused runs are not kept\n", cannotAsk)
	}
	return exitPaused
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// decisionFlags collects --approve ID and --reject ID[=REASON].
type decisionFlags struct {
	decisions map[string]ptc.Decision
	approve   bool
	err       error
}

func (d *decisionFlags) String() string { return "" }

func (d *decisionFlags) Set(v string) error {
	id, reason, _ := strings.Cut(v, "=")
	if id == "" {
		return errors.New("want a pending call's ID")
	}
	if d.approve && reason != "" {
		return fmt.Errorf("--approve takes an ID alone, got %q", v)
	}
	if _, dup := d.decisions[id]; dup {
		return fmt.Errorf("call %q is decided twice", id)
	}
	d.decisions[id] = ptc.Decision{Approve: d.approve, Reason: reason}
	return nil
}

func resumeCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("resume", "--store STORE [--approve ID]… [--reject ID[=REASON]]… TOKEN | --store STORE --recover RUN | --store STORE --list", stdout, stderr)
	var f runFlags
	f.register(fs) // a run's own flags: those runcode run kept, unless given here
	decided := map[string]ptc.Decision{}
	fs.Var(&decisionFlags{decisions: decided, approve: true}, "approve", "approve the pending call `ID` (repeatable)")
	fs.Var(&decisionFlags{decisions: decided}, "reject", "reject the pending call `ID`, or ID=REASON to give the program a reason (repeatable); the program sees a DENIED ToolCallError")
	var recoverID string
	var list bool
	fs.StringVar(&recoverID, "recover", "", "go on with the run `RUN` whose host died while it ran, from its recorded calls (docs/pausing.md): calls that ended are not run again, one in flight runs again only if its tool is idempotent")
	fs.BoolVar(&list, "list", false, "list the runs the store keeps: paused ones with their pending calls, and running ones (or whose host died)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	given := flagsSet(fs)
	var token string
	switch {
	case f.store == "":
		fmt.Fprintln(stderr, "runcode resume: --store is required: the store the run paused in")
		return exitUsage
	case list && (fs.NArg() > 0 || recoverID != ""):
		fmt.Fprintln(stderr, "runcode resume: --list takes no TOKEN or --recover")
		return exitUsage
	case !list && recoverID == "" && fs.NArg() != 1:
		fmt.Fprintf(stderr, "runcode resume: takes one continuation TOKEN (or --recover RUN, or --list), got %d arguments\n", fs.NArg())
		return exitUsage
	case recoverID != "" && (fs.NArg() > 0 || len(decided) > 0):
		fmt.Fprintln(stderr, "runcode resume: --recover takes no TOKEN, --approve or --reject: a run whose host died was not paused")
		return exitUsage
	}
	st, err := openStore(ctx, f.store)
	if err != nil {
		return usageError(stderr, "resume", fmt.Errorf("--store: %v", err))
	}
	if list {
		defer st.Close()
		return listRuns(ctx, st, stdout, stderr)
	}
	runID := recoverID
	if runID == "" {
		token = fs.Arg(0)
		if runID, err = ptc.ContinuationRun(token); err != nil {
			st.Close()
			fmt.Fprintf(stderr, "runcode resume: %v\n", err)
			return exitFail
		}
	}
	// The host the run had: the flags runcode run kept, then those given here.
	if rec, err := st.Get(ctx, kindInvocation, runID); err == nil {
		var inv invocation
		if err := json.Unmarshal(rec.Data, &inv); err == nil {
			var kept runFlags
			kfs := flag.NewFlagSet("kept", flag.ContinueOnError)
			kfs.SetOutput(io.Discard)
			kept.register(kfs)
			if err := kfs.Parse(inv.Flags); err == nil {
				fs.Visit(func(fl *flag.Flag) { _ = kfs.Set(fl.Name, fl.Value.String()) })
				kept.store, kept.json, kept.file = f.store, f.json, inv.File
				f = kept
			}
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		st.Close()
		return usageError(stderr, "resume", fmt.Errorf("--store: %v", err))
	}
	st.Close() // execute opens it again
	if msg := f.check(given); msg != "" {
		fmt.Fprintf(stderr, "runcode resume: %s\n", msg)
		return exitUsage
	}
	f.resume = func(ctx context.Context, ex *ptc.Executor, set *registry.ResolvedToolSet) (*pipeline.Result, error) {
		if token == "" {
			return ex.Recover(ctx, set, runID)
		}
		return ex.Resume(ctx, set, token, decided)
	}
	f.stdinProgram = true // stdin answers no question: a resumed run pauses again instead
	return f.execute(ctx, "", stdin, stdout, stderr)
}

// listRuns prints the runs a store keeps, one per line.
func listRuns(ctx context.Context, st store.Store, stdout, stderr io.Writer) int {
	runs, err := ptc.Runs(ctx, st)
	if err != nil {
		fmt.Fprintf(stderr, "runcode resume: --list: %v\n", err)
		return exitFail
	}
	for _, r := range runs {
		state := "running (or its host died: --recover " + r.ID + ")"
		if r.Paused {
			tools := make([]string, len(r.Pending))
			for i, p := range r.Pending {
				tools[i] = p.ID + " " + p.Tool
			}
			state = "paused, pending " + strings.Join(tools, ", ")
		}
		fmt.Fprintf(stdout, "%s  %s  %s\n", r.ID, r.Description, state)
	}
	return exitOK
}
