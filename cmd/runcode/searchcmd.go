package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/sdkgen"
)

// searchCommand prints the tools a program's tools.$search(QUERY) would return, best
// first, one line each (name and first sentence), for people tuning descriptions.
func searchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("search", "[--tools F] [--root DIR] [--limit N] QUERY", stdout, stderr)
	toolsPath := fs.String("tools", "", toolsHelp)
	root := fs.String("root", ".", rootHelp)
	limit := fs.Int("limit", bindings.DefaultSearchLimit, fmt.Sprintf("print at most `N` tools, from 1 to %d", bindings.MaxSearchLimit))
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	query := strings.Join(fs.Args(), " ")
	switch {
	case strings.TrimSpace(query) == "":
		fmt.Fprintln(stderr, "runcode search: takes a QUERY, as in runcode search --tools tools.json \"read a file\"")
		return exitUsage
	case *limit < 1 || *limit > bindings.MaxSearchLimit:
		fmt.Fprintf(stderr, "runcode search: --limit must be between 1 and %d, got %d\n", bindings.MaxSearchLimit, *limit)
		return exitUsage
	}
	set, release, err := toolSet(ctx, *toolsPath, *root, registry.ModePTC)
	if err != nil {
		return usageError(stderr, "search", err)
	}
	defer release()
	hits := bindings.Index(set).Search(query, *limit, nil)
	if len(hits) == 0 {
		fmt.Fprintln(stdout, "no tool matches")
		return exitFail
	}
	for i, h := range hits {
		fmt.Fprintf(stdout, "%d. %s  %.2f  %s\n", i+1, h.Name, h.Score, sdkgen.FirstSentence(h.Description))
	}
	return exitOK
}
