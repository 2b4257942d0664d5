package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ExamplePipeline_Run takes calls through every stage: a pre-execute policy, the
// timeout wrapper, argument validation and the body. Every failure is a result whose
// content is "Error: <message>", with a code.
func ExamplePipeline_Run() {
	scope := registry.New()
	scope.Register(&registry.Tool{
		Name:       "read",
		Parameters: registry.Object(registry.Required("path", registry.String())),
		Output:     registry.Output{Schema: registry.String()},
		TimeoutMs:  1000,
		Execute: func(ctx context.Context, call *registry.Call) (any, error) {
			var in struct{ Path string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return "contents of " + in.Path, nil
		},
	})
	set, _ := scope.Resolve(context.Background(), registry.Step{})

	p := pipeline.New(&pipeline.Options{
		PreExecute: []pipeline.PreExecuteFunc{func(_ context.Context, call *pipeline.Call) (pipeline.Decision, error) {
			var in struct{ Path string }
			if call.Args.Decode(&in) == nil && in.Path == "/etc/shadow" {
				return pipeline.Decision{Action: pipeline.Deny, Reason: "reading /etc/shadow is not allowed"}, nil
			}
			return pipeline.Decision{}, nil
		}},
		Wrappers: []pipeline.Middleware{pipeline.Timeout()},
	})
	for _, args := range []string{`{"path":"notes.txt"}`, `{"path":"/etc/shadow"}`, `{"file":"notes.txt"}`} {
		res := p.Run(context.Background(), set, registry.Call{ID: "c1", Name: "read", Args: pipeline.ParseArguments(args)})
		code := pipeline.Code("ok")
		if res.IsError() {
			code = res.Error.Code
		}
		fmt.Printf("%s: %s\n", code, res.Content[0].Text)
	}
	// Output:
	// ok: contents of notes.txt
	// DENIED: Error: reading /etc/shadow is not allowed
	// INVALID_ARGS: Error: invalid arguments: missing required property "path"
}

// SlogSink logs every call a pipeline takes, with stable keys. (The example drops the
// time and the duration, which change from run to run.)
func ExampleSlogSink() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == pipeline.LogKeyDuration {
				return slog.Attr{}
			}
			return a
		},
	}))
	scope := registry.New()
	scope.Register(&registry.Tool{Name: "ping", Execute: func(context.Context, *registry.Call) (any, error) { return "pong", nil }})
	set, _ := scope.Resolve(context.Background(), registry.Step{})

	p := pipeline.New(&pipeline.Options{Events: pipeline.SlogSink(logger)})
	p.Run(context.Background(), set, registry.Call{ID: "c1", Name: "ping", Args: pipeline.ParseArguments(`{}`)})
	p.Run(context.Background(), set, registry.Call{ID: "c2", Name: "pong", Args: pipeline.ParseArguments(`{}`)})
	// Output:
	// level=DEBUG msg=tool/call tool=ping call_id=c1 root_id=c1
	// level=INFO msg=tool/result tool=ping call_id=c1 root_id=c1 is_error=false
	// level=DEBUG msg=tool/call tool=pong call_id=c2 root_id=c2
	// level=INFO msg=tool/result tool=pong call_id=c2 root_id=c2 is_error=true
}

// ExamplePausedBatch saves a turn whose run_code call paused, as a host does beside its
// conversation, and loads it back, as another replica does before it resumes the turn
// with ResumeBatch.
func ExamplePausedBatch() {
	saved, err := json.Marshal(pipeline.PausedBatch{
		Host:  "my-agent",
		Calls: []pipeline.RawCall{{ID: "call_1", Name: "get_order", Arguments: `{"id":"A1"}`}, {ID: "call_2", Name: "run_code", Arguments: `{"code":"…"}`}},
		Results: []*pipeline.Result{
			{CallID: "call_1", Name: "get_order", Value: registry.MustParseValue(`{"total":20}`), Content: []registry.Content{registry.Text(`{"total":20}`)}},
			{CallID: "call_2", Name: "run_code", Content: []registry.Content{registry.Text(pipeline.Waiting("refund", 1))},
				Pause: &pipeline.Pause{Continuation: "eyJ…", Pending: []pipeline.PendingCall{{ID: "call_2:code:1", Tool: "refund", Arguments: json.RawMessage(`{"id":"A1"}`), Message: "refunds need a person's approval"}}}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var loaded pipeline.PausedBatch
	if err := json.Unmarshal(saved, &loaded); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(loaded.Host, len(loaded.Calls), loaded.Results[0].Value, loaded.Results[1].Pause.Pending[0].ID)
	// Output: my-agent 2 {"total":20} call_2:code:1
}
