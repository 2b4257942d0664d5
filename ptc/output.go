package ptc

import (
	"encoding/json"
	"time"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/internal/jsontext"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// Report is what one run_code call did, beyond its model-facing result: the program's
// value or failure, its sub-calls and the contexts attributed to them.
type Report struct {
	// Logs and Value are the program's output (Value nil for undefined or a failure).
	Logs  []string
	Value json.RawMessage
	// Failure is set when the program failed (or did not parse).
	Failure *runtime.Failure
	// Calls are the sub-calls in submission order, including those the run gave up on
	// (bindings.SubCall's NeverStarted and AbandonedRunning).
	Calls []*bindings.SubCall
	// Contexts are the attributed image contexts and sub-call contexts, in
	// submission order; they are kept even when the program failed later.
	Contexts []pipeline.AdditionalContext
	// ImagesLeftOut counts the images the run's sub-calls returned that it did not
	// attach, being past its image budget (Options.MaxImageBytes, Options.MaxImages).
	ImagesLeftOut int
	// imageNote is the line the run's text ends with when it left images out.
	imageNote string
	// Compute is the run's VM time (runtime.Result.Compute).
	Compute time.Duration
	// OutputBytes is the size of the program's output: its logs as a JSON array, as
	// JSON.stringify writes it, plus its result's JSON (nothing for undefined or a
	// failure).
	OutputBytes int
	// FromTools is what the run's sub-calls handed the program, in bytes: each call's
	// value as JSON, or its error's message, for every call whose outcome reached the
	// program (replayed ones included). ToModel is what went back to the model: the
	// result's text and the data of the contexts attached to it. Together they say how
	// much stayed in the sandbox.
	FromTools, ToModel int
	// RunID names the run in the store (for Executor.Recover).
	RunID string
	// Paused is set when the run paused for approval (also pipeline.Result.Pause).
	Paused *pipeline.Pause
	// SuggestScript is set when the program ended ok in an earlier run of the session
	// with other values for some of its literals: a script to save, whose input they
	// are (docs/run_code.md, "Suggested scripts"). Nil otherwise.
	SuggestScript *ScriptSuggestion
}

// fromTools is what calls handed their program, in bytes (Report.FromTools).
func fromTools(calls []*bindings.SubCall) int {
	n := 0
	for _, c := range calls {
		switch {
		case c.Result == nil || c.NeverStarted || c.AbandonedRunning:
		case c.Result.Error != nil:
			n += len(c.Result.Error.Message)
		default:
			n += len(c.Result.Value.String())
		}
	}
	return n
}

// contextBytes is the size of the contexts' content: text and data.
func contextBytes(cs []pipeline.AdditionalContext) int {
	n := 0
	for _, c := range cs {
		for _, b := range c.Content {
			n += len(b.Text) + len(b.Data)
		}
	}
	return n
}

// logsJSON is a run's logs as a JSON array, as JSON.stringify writes it: the logs of
// run_code's value, and what Report.OutputBytes counts.
func logsJSON(logs []string) []byte {
	b := []byte{'['}
	for i, l := range logs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, l)
	}
	return append(b, ']')
}

// value builds run_code's canonical value, {logs, result?}, from a completed run's
// logs (logsJSON) and completion.
func value(logs []byte, result json.RawMessage) (registry.Value, error) {
	text := make([]byte, 0, len(logs)+len(result)+22)
	text = append(append(text, `{"logs":`...), logs...)
	if result != nil {
		text = append(append(text, `,"result":`...), result...)
	}
	return registry.ParseValue(append(text, '}'))
}

// render is run_code's one text block (docs/run_code.md, "Output") for a value a
// post-execute policy put in place of the run's, computed by the runtime's renderer.
func render(_, v registry.Value) ([]registry.Content, error) {
	var out struct {
		Logs   []string        `json:"logs"`
		Result json.RawMessage `json:"result"`
	}
	if err := v.Decode(&out); err != nil {
		return nil, err
	}
	res := runtime.Result{Logs: out.Logs, Value: out.Result}
	return []registry.Content{registry.Text(res.Text())}, nil
}

func presentCall(args registry.Value) registry.Presentation {
	var in struct {
		Code        string `json:"code"`
		Description string `json:"description"`
	}
	_ = args.Decode(&in)
	return registry.Presentation{Intent: registry.IntentGeneric, Title: in.Description, Kind: "execute", Detail: map[string]string{"rawInput": in.Code}}
}
