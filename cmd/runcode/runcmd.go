package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/runcode-go/runcode/manifest"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/workspace"
)

// runFlags are the flags of `runcode run`.
type runFlags struct {
	tools, root, description, events string
	file                             string // the program's file name, for its stack frames
	stdinProgram                     bool   // the program came on stdin, which cannot answer approvals then
	json                             bool
	budgets                          budgetFlags
	isolation                        string
	gc                               gcPercent
	store                            string
	session                          string
	saveScripts                      bool
	// resume, when set, goes on with a paused run instead of starting one (runcode
	// resume).
	resume func(context.Context, *ptc.Executor, *registry.ResolvedToolSet) (*pipeline.Result, error)
	// saved are the flags that shape the run (not --store, --json or --description),
	// with paths made absolute: what runcode resume needs to rebuild the same host.
	saved []string
}

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("run", "[flags] [FILE|-]", stdout, stderr)
	var f runFlags
	f.register(fs)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "runcode run: takes one program (a FILE, or - for stdin), got %d arguments\n", fs.NArg())
		return exitUsage
	}
	if msg := f.check(flagsSet(fs)); msg != "" {
		fmt.Fprintf(stderr, "runcode run: %s\n", msg)
		return exitUsage
	}
	if err := f.save(fs); err != nil {
		return usageError(stderr, "run", err)
	}
	name := fs.Arg(0)
	code, err := readProgram(name, stdin)
	if err != nil {
		return usageError(stderr, "run", err)
	}
	if f.description == "" {
		f.description = "Run " + displayName(name)
	}
	if name != "" && name != "-" {
		f.file = filepath.Base(name) // errors name the program's file
	}
	f.stdinProgram = name == "" || name == "-"
	return f.execute(ctx, code, stdin, stdout, stderr)
}

// register adds run's flags to fs.
func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.tools, "tools", "", "tool manifest `FILE` (JSON, see docs/manifest.md); without it, the read-only workspace tools over --root")
	fs.StringVar(&f.root, "root", ".", "workspace `DIR` the built-in workspace tools are jailed to (ignored with --tools)")
	fs.BoolVar(&f.json, "json", false, "print one JSON object (isError, text, value, error, contexts, calls) instead of the model-facing text")
	fs.StringVar(&f.description, "description", "", "the run_code `TEXT` description argument (default \"Run <file>\")")
	f.budgets.register(fs)
	fs.StringVar(&f.isolation, "isolation", isolationProcess, "where programs run: process (a worker process with a hard memory limit, environment and descriptors of its own: the boundary for programs a model wrote), or in-process (faster to start; for trusted programs and development)")
	f.gc.register(fs)
	fs.StringVar(&f.events, "events", "", "write tool/call, tool/code-dispatch-start, tool/code-dispatch, tool/code-dispatch-abandoned and tool/result events to `FILE` as JSON Lines")
	fs.StringVar(&f.store, "store", "", storeFlagHelp+"; without it, a run asks on the terminal (or, when it cannot, pauses and cannot be resumed)")
	fs.StringVar(&f.session, "session", "", "run in the session `NAME`: the program's global state reads the session's state from --store and, when the run ends ok, keeps what it changed (docs/run_code.md)")
	fs.BoolVar(&f.saveScripts, "save-scripts", false, "let the program save scripts into --store with scripts.$save (docs/run_code.md): later runs with that store offer each as the tool script__NAME")
}

// save keeps the flags given on the command line that shape the run, for runcode
// resume: paths absolute, and neither --store, --json nor --description (resume has
// its own, and the program's description is in the store).
func (f *runFlags) save(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(fl *flag.Flag) {
		v := fl.Value.String()
		switch fl.Name {
		case "store", "json", "description", "session":
			return
		case "tools", "root", "events":
			if v != "" && err == nil {
				v, err = filepath.Abs(v)
			}
		}
		f.saved = append(f.saved, "--"+fl.Name+"="+v)
	})
	if f.tools == "" && !flagsSet(fs)["root"] { // the default "." is the directory run ran in
		root, aerr := filepath.Abs(f.root)
		if err == nil {
			err = aerr
		}
		f.saved = append(f.saved, "--root="+root)
	}
	return err
}

func (f *runFlags) check(set map[string]bool) string {
	if msg := f.budgets.check(set); msg != "" {
		return msg
	}
	if msg := f.gc.check(); msg != "" {
		return msg
	}
	if strings.TrimSpace(f.description) == "" && f.description != "" {
		return "--description must not be blank"
	}
	if f.session != "" && f.store == "" {
		return "--session needs --store: a session's state is kept there"
	}
	if f.saveScripts && f.store == "" {
		return "--save-scripts needs --store: saved scripts are kept there"
	}
	return ""
}

func readProgram(name string, stdin io.Reader) (string, error) {
	var data []byte
	var err error
	if name == "" || name == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, 64<<20))
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("reading the program: %v", err)
	}
	return string(data), nil
}

func displayName(name string) string {
	if name == "" || name == "-" {
		return "program from stdin"
	}
	return filepath.Base(name)
}

func (f *runFlags) execute(ctx context.Context, code string, stdin io.Reader, stdout, stderr io.Writer) int {
	var st store.Store
	var ex *ptc.Executor
	var scripts []*registry.Tool
	if f.store != "" {
		var err error
		if st, err = openStore(ctx, f.store); err != nil {
			return usageError(stderr, "run", fmt.Errorf("--store: %v", err))
		}
		defer st.Close()
		if scripts, err = ptc.ScriptTools(ctx, st, func() *ptc.Executor { return ex }); err != nil {
			return usageError(stderr, "run", fmt.Errorf("--store: reading the saved scripts: %v", err))
		}
	}
	set, closeTools, policy, err := policedToolSet(ctx, f.tools, f.root, registry.ModePTC, scripts...)
	if err != nil {
		return usageError(stderr, "run", err)
	}
	defer closeTools()

	opts := pipeline.Options{Wrappers: []pipeline.Middleware{pipeline.Timeout()}}
	var cannotAsk string
	opts.PreExecute, opts.Approve, cannotAsk = runApproval(policy, stdin, f.stdinProgram, st != nil, stderr)
	if f.events != "" {
		sink, closeSink, err := eventFile(f.events)
		if err != nil {
			fmt.Fprintf(stderr, "runcode run: --events: %v\n", err)
			return exitUsage
		}
		defer closeSink()
		opts.Events = sink
	}
	// A saved script runs as a nested program, on a worker started for it while its
	// caller waits (runtime.RunOptions.Nested).
	pool, closePool, err := newRunner(runnerOptions{isolation: f.isolation, workers: 1, warm: 1, gcPercent: f.gc.n})
	if err != nil {
		return usageError(stderr, "run", err)
	}
	defer closePool()
	if f.isolation != isolationProcess {
		defer f.gc.forOneRun()()
	}
	exOpts := f.budgets.options(pool)
	exOpts.FileName = f.file
	exOpts.Store = st
	exOpts.Sessions, exOpts.SaveScripts, exOpts.SuggestScripts = f.session != "", f.saveScripts, f.session != ""
	var resumed *ptc.Report // the resumed run's report (Resume gives the result only)
	exOpts.OnReport = func(_ context.Context, _ registry.Call, r *ptc.Report) { resumed = r }
	ex, err = ptc.New(pipeline.New(&opts), exOpts)
	if err != nil {
		return usageError(stderr, "run", err)
	}
	var res *pipeline.Result
	var rep *ptc.Report
	if f.resume != nil {
		if res, err = f.resume(ctx, ex, set); err != nil {
			fmt.Fprintf(stderr, "runcode resume: %v\n", err)
			return exitFail
		}
		rep = resumed
	} else {
		args, _ := json.Marshal(map[string]string{"code": code, "description": f.description})
		res, rep = ex.Run(pipeline.WithSession(ctx, f.session), set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
	}
	if res.Pause != nil {
		return f.paused(ctx, st, res, rep, cannotAsk, stdout, stderr)
	}

	text := res.Text()
	if f.json {
		writeJSON(stdout, report(res, rep, text))
	} else {
		fmt.Fprintln(stdout, text)
		for _, c := range res.Contexts {
			for _, b := range c.Content {
				if b.Type == "image" {
					n := base64.StdEncoding.DecodedLen(len(b.Data))
					fmt.Fprintf(stderr, "image from %s (%s): %s, about %d bytes\n", c.Tool, c.CallID, b.MIMEType, n)
				}
			}
		}
	}
	if rep != nil && rep.Failure != nil && rep.Failure.Kind == runtime.KindOutputLimit {
		fmt.Fprintf(stderr, "runcode run: %s\n", outputLimitHint(&f.budgets))
	}
	if rep != nil && rep.SuggestScript != nil && !f.json {
		fmt.Fprintf(stderr, "runcode run: %s\n", suggestHint(rep.SuggestScript))
	}
	if f.tools == "" {
		if hint := noToolsHint(code, rep, set); hint != "" {
			fmt.Fprintf(stderr, "runcode run: %s\n", hint)
		}
	}
	if res.IsError() {
		return exitFail
	}
	return exitOK
}

// jsonReport is the --json shape of docs/cli.md, "runcode run".
type jsonReport struct {
	IsError  bool            `json:"isError"`
	Text     string          `json:"text"`
	Value    json.RawMessage `json:"value"`
	Error    *jsonFailure    `json:"error"`
	Contexts []jsonContext   `json:"contexts"`
	Calls    []jsonCall      `json:"calls"`
	Paused   *pipeline.Pause `json:"paused,omitempty"`
	// Bytes says how much the run's tools handed the program and how much of it went
	// back to the model (ptc.Report.FromTools and ToModel).
	Bytes *jsonBytes `json:"bytes,omitempty"`
	// SuggestScript is ptc.Report.SuggestScript: the program ran ok before in the
	// session with other values, and could be saved as a script.
	SuggestScript *ptc.ScriptSuggestion `json:"suggestScript,omitempty"`
}

type jsonBytes struct {
	FromTools int `json:"fromTools"`
	ToModel   int `json:"toModel"`
}

type jsonFailure struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

type jsonContext struct {
	SubCallID string             `json:"subCallId"`
	Tool      string             `json:"tool"`
	Content   []registry.Content `json:"content"`
}

type jsonCall struct {
	ID         string          `json:"id"`
	Tool       string          `json:"tool"`
	Arguments  json.RawMessage `json:"arguments"`
	IsError    bool            `json:"isError"`
	DurationMs float64         `json:"durationMs"`
	// Abandoned marks a call the run gave up on while it was still running (its tool
	// ignored cancellation past the grace); its durationMs runs to the abandonment.
	Abandoned bool `json:"abandoned,omitempty"`
}

func report(res *pipeline.Result, rep *ptc.Report, text string) jsonReport {
	out := jsonReport{IsError: res.IsError(), Text: text, Value: json.RawMessage("null"), Contexts: []jsonContext{}, Calls: []jsonCall{}}
	if !res.Value.IsZero() {
		out.Value = json.RawMessage(res.Value.String())
	}
	if res.IsError() {
		// A failed program has a kind; any other failure (invalid arguments, policy) is
		// reported with the pipeline's code as its kind.
		out.Error = &jsonFailure{Kind: string(res.Error.Code), Message: res.Error.Message}
		var f *runtime.Failure
		if errors.As(res.Error, &f) {
			out.Error = &jsonFailure{Kind: string(f.Kind), Message: f.Message}
		}
	}
	for _, c := range res.Contexts {
		out.Contexts = append(out.Contexts, jsonContext{SubCallID: c.CallID, Tool: c.Tool, Content: c.Content})
	}
	out.Paused = res.Pause
	if rep != nil {
		out.Bytes = &jsonBytes{FromTools: rep.FromTools, ToModel: rep.ToModel}
		out.SuggestScript = rep.SuggestScript
		for _, c := range rep.Calls {
			if c.NeverStarted {
				continue // not a call that ran
			}
			out.Calls = append(out.Calls, jsonCall{ID: c.ID, Tool: c.Name, Arguments: json.RawMessage(c.Args.String()),
				IsError: c.Result.IsError(), DurationMs: float64(c.Duration.Microseconds()) / 1000, Abandoned: c.AbandonedRunning})
		}
	}
	return out
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// eventFile opens path for JSON Lines events.
func eventFile(path string) (pipeline.Sink, func(), error) {
	file, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriter(file)
	var mu sync.Mutex
	closed := false // a late event of an abandoned sub-call may come after the run
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	sink := pipeline.SinkFunc(func(e pipeline.Event) {
		line := map[string]any{"type": e.Type, "time": e.Time.UTC().Format(time.RFC3339Nano), "name": e.Name, "arguments": json.RawMessage(e.Args.String())}
		if e.ParentID == "" {
			line["callId"] = e.CallID
		} else {
			line["rootCallId"], line["parentCallId"], line["subCallId"] = e.RootID, e.ParentID, e.CallID
		}
		switch e.Type {
		case pipeline.EventResult, pipeline.EventDispatch, pipeline.EventAbandoned, pipeline.EventDispatchAbandoned:
			line["isError"], line["content"] = e.IsError, e.Content
		}
		if e.Card != nil { // how a UI would present run_code's call and result
			line["card"] = e.Card
		}
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			_ = enc.Encode(line)
		}
	})
	return sink, func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		w.Flush()
		file.Close()
	}, nil
}

// toolSet resolves the tools a command works with, in the given mode: the manifest at
// manifestPath, or the workspace tools over root when it is empty. The returned
// function releases what the tools hold.
func toolSet(ctx context.Context, manifestPath, root string, mode registry.Mode) (*registry.ResolvedToolSet, func(), error) {
	set, release, _, err := policedToolSet(ctx, manifestPath, root, mode)
	return set, release, err
}

// policedToolSet is toolSet for the commands that run tools: it also returns the
// manifest's approval of each tool, as serve applies it (approvalPolicy), or nil for
// the workspace tools, which need none.
func policedToolSet(ctx context.Context, manifestPath, root string, mode registry.Mode, extra ...*registry.Tool) (*registry.ResolvedToolSet, func(), func(tool string) pipeline.Action, error) {
	scope := registry.New()
	if _, err := scope.SetMode(mode); err != nil {
		return nil, nil, nil, err
	}
	for _, t := range extra { // saved scripts
		if _, err := scope.Register(t); err != nil {
			return nil, nil, nil, err
		}
	}
	release := func() {}
	var policy func(tool string) pipeline.Action
	if manifestPath != "" {
		m, err := readManifest(manifestPath)
		if err != nil {
			return nil, nil, nil, err
		}
		if _, err := m.Register(scope); err != nil {
			return nil, nil, nil, err
		}
		client, stop, err := connectServers(ctx, scope, m)
		if err != nil {
			return nil, nil, nil, err
		}
		release, policy = stop, approvalPolicy(m, client)
	} else {
		ws, err := workspace.Open(root)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--root: %v", err)
		}
		for _, t := range ws.Tools() {
			if _, err := scope.Register(t); err != nil {
				ws.Close()
				return nil, nil, nil, err
			}
		}
		release = func() { ws.Close() }
	}
	set, err := scope.Resolve(ctx, registry.Step{})
	if err != nil {
		release()
		return nil, nil, nil, err
	}
	return set, release, policy, nil
}

// readManifest reads and validates the manifest at path; errors name the file.
func readManifest(path string) (*manifest.Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &manifest.Error{File: path, Problem: "cannot read the file: " + err.Error(), Err: err}
	}
	return manifest.Parse(path, data, &manifest.Options{Dir: filepath.Dir(path), Env: os.Environ()})
}
