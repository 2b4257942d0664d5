package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind classifies why a run failed; it is a plain comparable value. The values are the
// failure kinds of the run_code contract (docs/run_code.md, "Failure kinds") and appear
// verbatim in the model-facing text.
type Kind string

// The failure kinds.
const (
	// KindException: the program threw or rejected, or did not parse.
	KindException Kind = "exception"
	// KindTimeout: the compute budget or the wall-clock ceiling ran out.
	KindTimeout Kind = "timeout"
	// KindAbort: the caller cancelled the run's context, or the pool was closed.
	KindAbort Kind = "abort"
	// KindInvalidOutput: the completion value was not lossless JSON.
	KindInvalidOutput Kind = "invalid-output"
	// KindOutputLimit: logs plus result went over the output budget.
	KindOutputLimit Kind = "output-limit"
	// KindMemoryLimit: the heap sampler saw the run go over its heap budget.
	KindMemoryLimit Kind = "memory-limit"
	// KindWorkerExit: an isolated worker process died. Reserved for the worker isolation
	// mode; the in-process pool never reports it.
	KindWorkerExit Kind = "worker-exit"
	// KindReplayDiverged: a resumed run's program asked for a call other than the one its
	// recorded run made there. The runtime never reports it; a host that replays runs does.
	KindReplayDiverged Kind = "replay-diverged"
	// KindInterrupted: a resumed run met a call that was in flight when its host died and
	// whose tool is not idempotent, so it was not run again. The runtime never reports it.
	KindInterrupted Kind = "interrupted"
)

// msgNoOutput is the text of a run that completed with neither logs nor a value.
const msgNoOutput = "(run_code completed with no output)"

// Failure says why a run failed: a kind and the message the model reads. A Failure is an
// immutable value; it also implements error so that [Prepare] can return one.
type Failure struct {
	Kind    Kind
	Message string
}

func (f *Failure) Error() string { return string(f.Kind) + ": " + f.Message }

// Result is the outcome of one run. Program outcomes are in Failure, never in a Go error.
// A Result is owned by the caller once Run returns; the pool keeps no reference to it.
type Result struct {
	// Logs holds one entry per console call, in call order (warn and error interleave with
	// log). On an output-limit failure it is the prefix of entries that fitted.
	Logs []string
	// Value is the completion as lossless JSON, formatted like JSON.stringify; nil when the
	// program returned undefined or failed.
	Value json.RawMessage
	// Failure is nil when the program completed.
	Failure *Failure
	// Compute is the VM time of the run, what the compute budget counts: preparing and
	// running the program's JavaScript, not time awaiting host calls. It is zero when
	// the run never reached a VM, or when a worker process died before reporting it.
	Compute time.Duration
	// Draws are the clock and random values the program drew, replayed ones first, when
	// RunOptions.Draws asked for them; nil otherwise.
	Draws *Draws
	// FullValue is the whole completion that Value was cut from, when
	// RunOptions.KeepFullValue asked for it and truncation cut it; nil otherwise.
	FullValue json.RawMessage
	// State is the session state as the program left it (RunOptions.State), when it
	// changed it; nil otherwise.
	State map[string]json.RawMessage
}

// Text renders the model-facing text (docs/run_code.md, "Output"). On success: the log
// entries joined by "\n", then the result (a string raw, anything else as
// 2-space-indented JSON), empty parts dropped; with neither, "(run_code completed with no
// output)". On failure: "Error: code run failed (<kind>): <message>", and
// "\nCaptured output:\n" plus the logs joined by "\n" if any were captured.
func (r *Result) Text() string {
	logs := strings.Join(r.Logs, "\n")
	if r.Failure != nil {
		s := fmt.Sprintf("Error: code run failed (%s): %s", r.Failure.Kind, r.Failure.Message)
		if len(r.Logs) > 0 {
			s += "\nCaptured output:\n" + logs
		}
		return s
	}
	var parts []string
	if logs != "" {
		parts = append(parts, logs)
	}
	if v := renderValue(r.Value); v != "" {
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return msgNoOutput
	}
	return strings.Join(parts, "\n")
}

// renderValue renders a completion: a JSON string raw, anything else like
// JSON.stringify(v, null, 2), number tokens as encoded. Containers nested five or more
// levels deep are printed compact, so a deeply nested value renders in linear size.
func renderValue(v json.RawMessage) string {
	if len(v) == 0 {
		return ""
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			return s
		}
	}
	const maxIndented = 5 // containers at levels 0..4 are indented
	var b strings.Builder
	b.Grow(len(v) * 2)
	newline := func(level int) {
		b.WriteByte('\n')
		for i := 0; i < level; i++ {
			b.WriteString("  ")
		}
	}
	depth := 0 // containers open around the current position
	inString, escaped := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			if i+1 < len(v) && (v[i+1] == '}' || v[i+1] == ']') {
				b.WriteByte(v[i+1])
				i++
				continue
			}
			depth++
			if depth <= maxIndented {
				newline(depth)
			}
		case '}', ']':
			if depth <= maxIndented {
				newline(depth - 1)
			}
			depth--
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			if depth <= maxIndented {
				newline(depth)
			}
		case ':':
			b.WriteByte(c)
			if depth <= maxIndented {
				b.WriteByte(' ')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Sentinel errors for misuse of the seam. Program outcomes are never Go errors.
var (
	// ErrClosed is returned by Run after Close.
	ErrClosed = errors.New("runtime: pool is closed")
	// ErrInvalidOptions is wrapped by every *OptionError.
	ErrInvalidOptions = errors.New("runtime: invalid options")
	// ErrInvalidNamespace is wrapped by every *NamespaceError.
	ErrInvalidNamespace = errors.New("runtime: invalid namespace")
)

// OptionError reports a bad field of PoolOptions, RunOptions or Limits. It is an immutable
// value.
type OptionError struct {
	Field  string
	Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("runtime: invalid option %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidOptions.
func (e *OptionError) Unwrap() error { return ErrInvalidOptions }

// NamespaceError reports a namespace that cannot be installed (a bad or reserved global
// name, a duplicate, a bad error class). It is an immutable value.
type NamespaceError struct {
	Global string
	Reason string
}

func (e *NamespaceError) Error() string {
	return fmt.Sprintf("runtime: namespace %q: %s", e.Global, e.Reason)
}

// Unwrap returns ErrInvalidNamespace.
func (e *NamespaceError) Unwrap() error { return ErrInvalidNamespace }
