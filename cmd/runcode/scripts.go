package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
)

// scriptsCommand is `runcode scripts save|list|show|delete`: saved programs, each a tool
// script__<name> in the runs of a host that has the store (docs/run_code.md).
func scriptsCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	const synopsis = "save NAME --store S --description TEXT [--input-schema FILE] [--tools F] FILE | list --store S | show NAME --store S | delete NAME --store S"
	if len(args) == 0 {
		fmt.Fprintf(stderr, "usage: runcode scripts %s\n", synopsis)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	fs := newFlags("scripts "+sub, synopsis, stdout, stderr)
	storeDSN := fs.String("store", "", "the `STORE` that keeps the scripts: a SQLite FILE or a postgres:// URL (required)")
	var description, schemaFile, tools, root string
	if sub == "save" {
		fs.StringVar(&description, "description", "", "what the script does, in a sentence: its tool's description, which search reads (required)")
		fs.StringVar(&schemaFile, "input-schema", "", "JSON Schema `FILE` of the script's input (the global input); default any object")
		fs.StringVar(&tools, "tools", "", toolsHelp+"; the script is checked against these tools")
		fs.StringVar(&root, "root", ".", rootHelp)
	}
	if code, ok := parseFlags(fs, rest, stdout, stderr); !ok {
		return code
	}
	wantArgs := map[string]int{"save": 2, "list": 0, "show": 1, "delete": 1}
	n, known := wantArgs[sub]
	switch {
	case !known:
		fmt.Fprintf(stderr, "runcode scripts: unknown subcommand %q; want save, list, show or delete\n", sub)
		return exitUsage
	case fs.NArg() != n:
		fmt.Fprintf(stderr, "runcode scripts %s: takes %d arguments, got %d\nusage: runcode scripts %s\n", sub, n, fs.NArg(), synopsis)
		return exitUsage
	case *storeDSN == "":
		fmt.Fprintf(stderr, "runcode scripts %s: --store is required\n", sub)
		return exitUsage
	}
	st, err := openStore(ctx, *storeDSN)
	if err != nil {
		return usageError(stderr, "scripts", fmt.Errorf("--store: %v", err))
	}
	defer st.Close()
	switch sub {
	case "list":
		scripts, err := ptc.Scripts(ctx, st)
		if err != nil {
			return usageError(stderr, "scripts", err)
		}
		for _, s := range scripts {
			fmt.Fprintf(stdout, "%s%s  %s\n", ptc.ScriptPrefix, s.Name, s.Description)
		}
	case "show", "delete":
		name := strings.TrimPrefix(fs.Arg(0), ptc.ScriptPrefix)
		scripts, err := ptc.Scripts(ctx, st)
		if err != nil {
			return usageError(stderr, "scripts", err)
		}
		for _, s := range scripts {
			if s.Name != name {
				continue
			}
			if sub == "delete" {
				if err := ptc.DeleteScript(ctx, st, name); err != nil {
					return usageError(stderr, "scripts", err)
				}
				return exitOK
			}
			writeJSON(stdout, s)
			return exitOK
		}
		fmt.Fprintf(stderr, "runcode scripts %s: no script %q in the store\n", sub, name)
		return exitFail
	case "save":
		code, err := readProgram(fs.Arg(1), stdin)
		if err != nil {
			return usageError(stderr, "scripts", err)
		}
		s := ptc.Script{Name: fs.Arg(0), Description: description, Code: code, Author: os.Getenv("USER")}
		if schemaFile != "" {
			data, err := os.ReadFile(schemaFile)
			if err != nil {
				return usageError(stderr, "scripts", fmt.Errorf("--input-schema: %v", err))
			}
			if !json.Valid(data) {
				return usageError(stderr, "scripts", fmt.Errorf("--input-schema: %s is not JSON", schemaFile))
			}
			s.InputSchema = data
		}
		set, release, err := toolSet(ctx, tools, root, registry.ModePTC)
		if err != nil {
			return usageError(stderr, "scripts", err)
		}
		defer release()
		if err := ptc.SaveScript(ctx, st, set, s); err != nil {
			fmt.Fprintf(stderr, "runcode scripts save: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "saved %s%s\n", ptc.ScriptPrefix, s.Name)
	}
	return exitOK
}
