package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// command is a tool backed by a process: one per call, the arguments as JSON on
// stdin, the value from stdout. It is safe for concurrent use.
type command struct {
	name string
	argv []string
	env  []string // the whole environment of the process (commandEnv)
}

// resolveArgv resolves a program written as a path ("./x.sh", "bin/x", "../x")
// against the manifest's directory; a bare name ("x") is looked up in PATH when the
// process starts. A path must stay a path: filepath.Join(".", "./date") is "date",
// which exec would look up in PATH and so run /usr/bin/date instead of the file next
// to the manifest.
func (m *Manifest) resolveArgv(argv []string) []string {
	out := append([]string(nil), argv...)
	prog := out[0]
	if !isPath(prog) || filepath.IsAbs(prog) {
		return out
	}
	if m.opts.Dir != "" {
		prog = filepath.Join(m.opts.Dir, prog)
	}
	if !isPath(prog) {
		prog = "." + string(filepath.Separator) + prog
	}
	out[0] = prog
	return out
}

// isPath reports whether a command's program is a path rather than a name to look
// up in PATH: it contains a path separator.
func isPath(prog string) bool {
	return strings.ContainsRune(prog, '/') || strings.ContainsRune(prog, filepath.Separator)
}

// ErrCommand is matched by every [CommandError].
var ErrCommand = errors.New("command failed")

// CommandError is the failure of a command that exited non-zero. Its message is the
// command's stderr, which is what the model reads. It is a plain value.
type CommandError struct {
	// ExitCode is the process's exit status.
	ExitCode int
	// Stderr is what it wrote on stderr, trimmed.
	Stderr string
	// Program names the program that ran.
	Program string
}

func (e *CommandError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s exited with status %d and no output on stderr", e.Program, e.ExitCode)
	}
	return e.Stderr
}

// Is matches [ErrCommand].
func (e *CommandError) Is(target error) bool { return target == ErrCommand }

// execute runs the process for one call. Exit 0: stdout parsed as JSON is the value,
// any other text is a string value. Non-zero exit: the call fails with stderr. When
// ctx ends, the process and everything it started are killed and ctx's cause is
// returned.
func (c *command) execute(ctx context.Context, call *registry.Call) (any, error) {
	prog := filepath.Base(c.argv[0])
	run, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cmd := exec.CommandContext(run, c.argv[0], c.argv[1:]...)
	cmd.Env = c.env
	cmd.Stdin = strings.NewReader(call.Args.String())
	tooLarge := fmt.Errorf("%s wrote more than %d bytes on stdout", prog, MaxCommandOutput)
	stdout := &capped{max: MaxCommandOutput, over: func() { stop(tooLarge) }}
	stderr := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	killGroup(cmd)
	// A grandchild that keeps stdout open must not hold the call after a kill.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if context.Cause(run) == tooLarge {
		return nil, tooLarge
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return nil, &CommandError{ExitCode: exit.ExitCode(), Stderr: strings.TrimSpace(stderr.buf.String()), Program: prog}
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		return nil, fmt.Errorf("starting %s: %w", c.argv[0], err)
	}
	out := stdout.buf.Bytes()
	if v, perr := registry.ParseValue(bytes.TrimSpace(out)); perr == nil && len(bytes.TrimSpace(out)) > 0 {
		return v, nil
	}
	text := strings.TrimSuffix(strings.TrimSuffix(string(out), "\n"), "\r")
	return registry.StringValue(text), nil
}

// MaxCommandOutput bounds what a command tool may write on stdout in one call: past it
// the process is killed and the call fails, rather than the host buffering whatever a
// runaway process writes until the run's wall clock.
const MaxCommandOutput = 16 << 20

// maxStderr is how much of stderr a failed call keeps for its message.
const maxStderr = 64 << 10

// capped keeps the first max bytes written to it. Past max it drops the rest, and calls
// over (if set) once.
type capped struct {
	buf    bytes.Buffer
	max    int
	over   func()
	passed bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) <= room {
		c.buf.Write(p)
		return len(p), nil
	}
	c.buf.Write(p[:max(room, 0)])
	if !c.passed {
		c.passed = true
		if c.over != nil {
			c.over()
		}
	}
	return len(p), nil
}
