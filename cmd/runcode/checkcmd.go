package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// checkCommand checks a program without running it: syntax (JavaScript or
// TypeScript) with positions, tool names that do not exist (with a did-you-mean),
// and the tools the program can reach: named through tools.x, tools["x"], aliases
// of tools and destructuring; when tools is also used dynamically (tools[name],
// passed on as a value) the list is only a lower bound and says so. It also warns about
// code that runs slowly under goja (runtime.Warnings). Exit 0 when clean or only warned,
// 1 when it found problems.
func checkCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", "[--tools F] [--root DIR] FILE|-", stdout, stderr)
	toolsPath := fs.String("tools", "", "tool manifest `FILE` (JSON, see docs/manifest.md); without it, the workspace tools")
	root := fs.String("root", ".", "workspace `DIR` for the built-in workspace tools (ignored with --tools)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "runcode check: takes one program (a FILE, or - for stdin), got %d arguments\n", fs.NArg())
		return exitUsage
	}
	name := fs.Arg(0)
	code, err := readProgram(name, stdin)
	if err != nil {
		return usageError(stderr, "check", err)
	}
	set, release, err := toolSet(ctx, *toolsPath, *root, registry.ModePTC)
	if err != nil {
		return usageError(stderr, "check", err)
	}
	defer release()
	label := displayName(name)
	if name != "" && name != "-" {
		label = name
	}

	problems, reach, dynamic, err := ptc.CheckProgram(code, label, set)
	if err != nil {
		var f *runtime.Failure
		if errors.As(err, &f) {
			fmt.Fprintf(stdout, "%s: %s\n", label, f.Message)
			return exitFail
		}
		return usageError(stderr, "check", err)
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	// Warnings are advice: the program runs as it is, so they do not change the exit status.
	warnings, err := runtime.Warnings(code, &runtime.PrepareOptions{Namespaces: []string{"tools"}})
	if err != nil {
		return usageError(stderr, "check", err)
	}
	for _, w := range warnings {
		fmt.Fprintf(stdout, "%s:%d:%d: warning: %s\n", label, w.Line, w.Column, w.Message)
	}
	switch {
	case dynamic != nil && len(reach) == 0:
		fmt.Fprintf(stdout, "%s: reaches tools only dynamically (at %d:%d)\n", label, dynamic.Line, dynamic.Column)
	case dynamic != nil:
		fmt.Fprintf(stdout, "%s: reaches at least %s (tools is used dynamically at %d:%d)\n", label, strings.Join(reach, ", "), dynamic.Line, dynamic.Column)
	case len(reach) == 0:
		fmt.Fprintf(stdout, "%s: reaches no tools\n", label)
	default:
		fmt.Fprintf(stdout, "%s: reaches %s\n", label, strings.Join(reach, ", "))
	}
	if len(problems) > 0 {
		return exitFail
	}
	return exitOK
}
