package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/sdkgen"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the run failed (runcode run; not yet used)
	exitUsage = 2 // usage or configuration errors: nothing ran
)

const usage = `usage: runcode <command> [flags]

commands:
  sdk [--tools F] [--ts]           print the SDK prompt section for the tools (--ts: only the TypeScript)
  describe [--tools F] [--mode M]  print, as JSON, the tool schemas the model is sent in mode M
                                   (native, ptc or both; default ptc)
  run [flags] [FILE|-]             run one program as a run_code call and print the model-facing text
  check [--tools F] FILE           check a program without running it: syntax, unknown tools, tools it reaches
  serve [--tools F] [--mode M] [--http ADDR]
                                   an MCP server over stdio (or streamable HTTP) offering run_code (ptc),
                                   the tools (native) or both; stops on SIGINT, SIGTERM or stdin EOF
  bench [flags] [SCENARIO.json…]   run codemode-bench-scenario/v1 files (default bench/scenarios/*.json);
                                   one JSON report line each
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
	if args[0] == workerArg {
		return workerCommand(stdin, stdout, stderr)
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "sdk":
		return sdkCommand(ctx, rest, stdout, stderr)
	case "describe":
		return describeCommand(ctx, rest, stdout, stderr)
	case "run":
		return runCommand(ctx, rest, stdin, stdout, stderr)
	case "check":
		return checkCommand(ctx, rest, stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "serve":
		return serveCommand(ctx, rest, stdin, stdout, stderr)
	case "bench":
		return benchCommand(ctx, rest, stdout, stderr)
	case "version", "--version", "-version":
		return versionCommand(rest, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "runcode: unknown command %q; available commands: sdk, describe, run, check (see runcode help)\n", cmd)
		return exitUsage
	}
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

// parseFlags parses args. Help (-h, -help) goes to stdout alone; a bad flag's message
// and the usage go to stderr. ok is false when the command should stop with code.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	// The flag package writes both help and errors to one output; collect it and route
	// it once we know which it was, so that help is not printed twice.
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
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
	fs := newFlags("sdk", "[--tools F] [--root DIR] [--ts]", stdout, stderr)
	tools := fs.String("tools", "", toolsHelp)
	root := fs.String("root", ".", rootHelp)
	tsOnly := fs.Bool("ts", false, "print only the TypeScript declarations (for tsc), not the whole prompt section")
	if code, ok := parse(fs, args, stdout, stderr); !ok {
		return code
	}
	set, release, err := toolSet(ctx, *tools, *root, registry.ModePTC)
	if err != nil {
		fmt.Fprintf(stderr, "runcode sdk: %v\n", err)
		return exitUsage
	}
	defer release()
	sdk := sdkgen.Render(sdkgen.ToolsOf(set))
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
	fs := newFlags("describe", "[--tools F] [--root DIR] [--mode M]", stdout, stderr)
	tools := fs.String("tools", "", toolsHelp)
	root := fs.String("root", ".", rootHelp)
	mode := fs.String("mode", string(registry.ModePTC), "`MODE` to describe: native (every tool), ptc (only run_code) or both")
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
		fmt.Fprintf(stderr, "runcode describe: %v\n", err)
		return exitUsage
	}
	defer release()
	var schemas []registry.ToolSchema
	switch m {
	case registry.ModeNative:
		schemas = set.Schemas()
	case registry.ModePTC:
		schemas = []registry.ToolSchema{sdkgen.RunCodeSchema()}
	case registry.ModeBoth:
		schemas = append(set.Schemas(), sdkgen.RunCodeSchema())
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
