package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/internal/editdist"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/runtime/worker"
	"github.com/runcode-go/runcode/sdkgen"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFail   = 1 // the run failed (runcode run; not yet used)
	exitUsage  = 2 // usage or configuration errors: nothing ran
	exitPaused = 4 // the run paused for approval (runcode resume goes on with it)
)

const usage = `usage: runcode <command> [flags]

commands:
  sdk [--tools F] [--store S] [--ts] [--sdk-budget N] [--full]
                                   print the SDK prompt section for the tools (--ts: only the TypeScript);
                                   past --sdk-budget bytes of declarations it is an index (--full: never)
  describe [--tools F] [--mode M] [--sdk-budget N]
                                   print, as JSON, the tool schemas serve sends the model in mode M
                                   (native, ptc or both; default ptc): run_code's carries the SDK section
  run [flags] [FILE|-]             run one program as a run_code call and print the model-facing text;
                                   with --store, a run that needs approval pauses (exit 4)
  resume --store S [--approve ID] [--reject ID[=REASON]] TOKEN
                                   go on with a paused run (--recover RUN: one whose host died; --list)
  scripts save|list|show|delete --store S
                                   saved programs: each is a tool script__NAME in runs with that store
  check [--tools F] FILE           check a program without running it: syntax, unknown tools, tools it reaches
  search [--tools F] [--limit N] QUERY
                                   print the tools tools.$search ranks first for QUERY, with their first lines
  serve [--tools F] [--mode M] [--http ADDR]
                                   an MCP server over stdio (or streamable HTTP) offering run_code (ptc),
                                   the tools (native) or both; stops on SIGINT or SIGTERM, and over stdio
                                   also at stdin EOF (--http does not read stdin)
  bench [flags] [SCENARIO.json…]   run codemode-bench-scenario/v1 files (default bench/scenarios/*.json);
                                   a table on a terminal, else (or --json) one JSON report line each
  version                          print the version, commit and Go version the binary was built from

Without --tools, the tools are the read-only workspace tools over --root (default ".").

Run 'runcode <command> --help' for a command's flags.
`

// run is the whole CLI: it parses args, does the command, and returns the exit
// status. It writes only to stdout and stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if code, ok := worker.Main(args, stdin, stdout, stderr); ok {
		return code // the worker role, started by worker.NewSelf; not in the usage text
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "sdk":
		return sdkCommand(ctx, rest, stdout, stderr)
	case "describe":
		return describeCommand(ctx, rest, stdout, stderr)
	case "run":
		return runCommand(ctx, rest, stdin, stdout, stderr)
	case "resume":
		return resumeCommand(ctx, rest, stdin, stdout, stderr)
	case "scripts":
		return scriptsCommand(ctx, rest, stdin, stdout, stderr)
	case "check":
		return checkCommand(ctx, rest, stdin, stdout, stderr)
	case "search":
		return searchCommand(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && commands[rest[0]] {
			// runcode help run: the command's own help.
			return run(ctx, []string{rest[0], "--help"}, stdin, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "serve":
		return serveCommand(ctx, rest, stdin, stdout, stderr)
	case "bench":
		return benchCommand(ctx, rest, stdout, stderr)
	case "version", "--version", "-version":
		return versionCommand(rest, stdout, stderr)
	default:
		fmt.Fprintln(stderr, unknownCommand(cmd))
		return exitUsage
	}
}

// commandNames are the commands, in the order the usage lists them.
var commandNames = []string{"sdk", "describe", "run", "resume", "scripts", "check", "search", "serve", "bench", "version", "help"}

var commands = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range commandNames {
		m[c] = true
	}
	return m
}()

// unknownCommand is the message for a command that does not exist: every command, and
// the nearest one when it is near enough to be a typo.
func unknownCommand(cmd string) string {
	msg := fmt.Sprintf("runcode: unknown command %q", cmd)
	if strings.HasPrefix(cmd, "-") {
		msg = fmt.Sprintf("runcode: flag %q comes after a command: runcode <command> [flags]", cmd)
	} else if best := runtime.Suggest(cmd, commandNames); best != "" && editdist.Levenshtein(cmd, best) <= max(1, len(best)/2) {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return msg + "\ncommands: " + strings.Join(commandNames, ", ") + " (runcode help <command> for one's flags)"
}

// usageError writes err on stderr as command's usage error and returns exitUsage.
func usageError(stderr io.Writer, command string, err error) int {
	fmt.Fprintf(stderr, "runcode %s: %v\n", command, err)
	return exitUsage
}

// newFlags returns a flag set that reports errors to stderr and help to stdout.
func newFlags(name, synopsis string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("runcode "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: runcode %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args. Flags may come before or after the positional arguments
// (runcode run prog.ts --json); "--" ends the flags. Help (-h, -help) goes to stdout
// alone; a bad flag's message and the usage go to stderr. ok is false when the command
// should stop with code. Afterwards fs.Args() are the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	// The flag package writes both help and errors to one output; collect it and route
	// it once we know which it was, so that help is not printed twice.
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := parseInterspersed(fs, args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(out.Bytes())
		return exitOK, false
	case err != nil:
		stderr.Write(out.Bytes())
		return exitUsage, false
	}
	return 0, true
}

// parseInterspersed parses flags wherever they are among the positional arguments: the
// flag package stops at the first positional one. It leaves the positional arguments,
// in order, as fs.Args().
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			positional = append(positional, rest...) // "--": the rest is positional
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Parsing "--" alone sets fs.Args() and touches no flag.
	return fs.Parse(append([]string{"--"}, positional...))
}

// parse is parseFlags for commands that take flags only.
func parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; this command takes flags only\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return 0, true
}

const (
	toolsHelp = "tool manifest `FILE` (JSON, see docs/manifest.md); without it, the read-only workspace tools over --root"
	rootHelp  = "workspace `DIR` the built-in workspace tools are jailed to (ignored with --tools)"
)

func sdkCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("sdk", "[--tools F] [--root DIR] [--store S] [--ts] [--sdk-budget BYTES | --full]", stdout, stderr)
	tools := fs.String("tools", "", toolsHelp)
	root := fs.String("root", ".", rootHelp)
	storeDSN := fs.String("store", "", "declare the result types learned from runs kept in `STORE` (a SQLite FILE or a postgres:// URL, as runcode run --store and serve --store keep them) for tools without an output schema")
	tsOnly := fs.Bool("ts", false, "print only the TypeScript declarations (for tsc), not the whole prompt section")
	full := fs.Bool("full", false, "print the full SDK whatever its size (every declaration, no index)")
	var budget int
	registerSDKBudget(fs, &budget)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	set, release, err := toolSet(ctx, *tools, *root, registry.ModePTC)
	if err != nil {
		return usageError(stderr, "sdk", err)
	}
	defer release()
	if *storeDSN != "" {
		st, err := openStore(ctx, *storeDSN)
		if err != nil {
			return usageError(stderr, "sdk", fmt.Errorf("--store: %v", err))
		}
		defer st.Close()
		ptc.NewTypes(st).Declare(ctx, set)
	}
	sdk := sdkgen.Section(bindings.Declared(set), &sdkgen.Options{Budget: budget, Full: *full})
	if *tsOnly {
		io.WriteString(stdout, sdk.Declarations)
	} else {
		io.WriteString(stdout, sdk.Section)
	}
	for _, f := range sdk.Fallbacks {
		fmt.Fprintf(stderr, "runcode sdk: note: tool %q %s %s: %s (declared as JsonValue)\n", f.Tool, f.Schema, pathOrRoot(f.Path), f.Reason)
	}
	return exitOK
}

func pathOrRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func describeCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("describe", "[--tools F] [--root DIR] [--mode M] [--sdk-budget BYTES]", stdout, stderr)
	tools := fs.String("tools", "", toolsHelp)
	root := fs.String("root", ".", rootHelp)
	mode := fs.String("mode", string(registry.ModePTC), "`MODE` to describe: native (every tool), ptc (only run_code) or both")
	var budget int
	registerSDKBudget(fs, &budget)
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	m := registry.Mode(*mode)
	if m != registry.ModeNative && m != registry.ModePTC && m != registry.ModeBoth {
		fmt.Fprintf(stderr, "runcode describe: unknown --mode %q; want native, ptc or both\n", *mode)
		return exitUsage
	}
	set, release, err := toolSet(ctx, *tools, *root, m)
	if err != nil {
		return usageError(stderr, "describe", err)
	}
	defer release()
	// The schemas as serve offers them: under ptc and both, run_code's description
	// carries the rules and the SDK section (or its index past the budget).
	schemas := set.Schemas()
	if m != registry.ModeNative {
		desc, err := ptc.Describe(set, budget)
		if err != nil {
			fmt.Fprintf(stderr, "runcode describe: %v\n", err)
			return exitFail
		}
		schemas = mcpbridge.Offered(desc)
	}
	if schemas == nil {
		schemas = []registry.ToolSchema{}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(schemas); err != nil {
		fmt.Fprintf(stderr, "runcode describe: %v\n", err)
		return exitFail
	}
	return exitOK
}
