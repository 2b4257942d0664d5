package main

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"
	"strings"
)

// buildVersion is what `runcode version` prints, read from the build information the Go
// toolchain embeds in every binary: no -ldflags are needed, so `go install …@v1.2.3`, a
// `go build` in a clone and a release build all report themselves.
type buildVersion struct {
	Version  string // the main module's version: a tag, a pseudo-version, or "(devel)"
	Commit   string // vcs.revision; empty when built without VCS stamping
	Time     string // vcs.time, RFC 3339
	Modified bool   // vcs.modified: the work tree had uncommitted changes
	Go       string // the Go version that built the binary
}

// readVersion extracts a buildVersion from info; ok is ReadBuildInfo's second result.
func readVersion(info *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{Version: "(devel)", Go: goruntime.Version()}
	if !ok || info == nil {
		return v
	}
	if info.Main.Version != "" {
		v.Version = info.Main.Version
	}
	if info.GoVersion != "" {
		v.Go = info.GoVersion
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String renders v as three lines: the version, the commit, the toolchain and platform.
func (v buildVersion) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "runcode %s\n", v.Version)
	if v.Commit == "" {
		b.WriteString("commit:  unknown (built without VCS information)\n")
	} else {
		var notes []string
		if v.Time != "" {
			notes = append(notes, v.Time)
		}
		if v.Modified {
			notes = append(notes, "modified")
		}
		fmt.Fprintf(&b, "commit:  %s", v.Commit)
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "go:      %s %s/%s\n", v.Go, goruntime.GOOS, goruntime.GOARCH)
	return b.String()
}

// versionCommand prints the binary's version; it takes no arguments.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(stdout, "usage: runcode version\n\nprints the module version, commit and Go version this binary was built from (also runcode --version)\n")
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "runcode version: unexpected argument %q; it takes none\n", args[0])
		return exitUsage
	}
	fmt.Fprint(stdout, readVersion(debug.ReadBuildInfo()))
	return exitOK
}
