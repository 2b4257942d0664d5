package pipeline

import (
	"context"
	"sync"
	"testing"

	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/registry"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// resolve registers tools in a fresh deployment scope and resolves it; resolveIn does
// so in a given scope.
var resolve, resolveIn = testreg.Resolve, testreg.ResolveIn

// echoTool returns its "text" argument; its schema requires it.
func echoTool(name string) *registry.Tool {
	return &registry.Tool{
		Name:        name,
		Description: "Echo the text.",
		Parameters:  registry.Object(registry.Required("text", registry.String())),
		Output:      registry.Output{Schema: registry.String()},
		Execute: func(_ context.Context, call *registry.Call) (any, error) {
			var in struct{ Text string }
			if err := call.Args.Decode(&in); err != nil {
				return nil, err
			}
			return in.Text, nil
		},
	}
}

func call(name, args string) registry.Call {
	return registry.Call{ID: "c1", Name: name, Args: registry.MustParseValue(args)}
}

// trace is a concurrency-safe ordered log of what stages did.
type trace struct {
	mu    sync.Mutex
	lines []string
}

func (tr *trace) add(s string) {
	tr.mu.Lock()
	tr.lines = append(tr.lines, s)
	tr.mu.Unlock()
}

func (tr *trace) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.lines...)
}

// text returns the single text block of a result.
func text(r *Result) string {
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		return "<not one text block>"
	}
	return r.Content[0].Text
}
