package manifest

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
)

// InheritedEnv returns the names of the variables a command tool inherits from the
// host's environment ([Options.Env]): what a program needs to find other programs
// and behave as the user's locale and time zone say, and nothing that holds a secret.
// Anything else a tool needs goes in its manifest env.
func InheritedEnv() []string {
	return []string{"PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"}
}

// commandEnv is the environment of t's process: the inherited variables of host, then
// t's env (sorted, so the order is stable), then RUNCODE_TOOL.
func commandEnv(host []string, t *Tool) []string {
	inherit := InheritedEnv()
	var env []string
	for _, kv := range host {
		name, _, ok := strings.Cut(kv, "=")
		if ok && slices.ContainsFunc(inherit, func(n string) bool { return sameName(n, name) }) {
			env = append(env, kv)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Env)) {
		env = append(env, name+"="+t.Env[name])
	}
	return append(env, "RUNCODE_TOOL="+t.Name)
}

// sameName compares variable names as the system does: Windows ignores case.
func sameName(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// checkEnv validates a tool's env: command tools only, names that a process
// environment can hold, and not RUNCODE_TOOL, which runcode sets.
func checkEnv(t *Tool) error {
	if t.Env == nil {
		return nil
	}
	if t.Command == nil {
		return errors.New(`"env" applies to command tools only`)
	}
	for _, name := range slices.Sorted(maps.Keys(t.Env)) {
		switch {
		case name == "" || strings.ContainsAny(name, "=\x00"):
			return fmt.Errorf("env names a variable %q: a name must be non-empty, without \"=\" or NUL", name)
		case strings.ContainsRune(t.Env[name], 0):
			return fmt.Errorf("env variable %q contains a NUL byte", name)
		case sameName(name, "RUNCODE_TOOL"):
			return errors.New("env must not set RUNCODE_TOOL: runcode sets it to the tool's name")
		}
	}
	return nil
}
