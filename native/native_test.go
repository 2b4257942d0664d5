package native

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testreg"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func echo() *registry.Tool {
	return &registry.Tool{
		Name:              "echo",
		Description:       "Echo the text.",
		Parameters:        registry.Object(registry.Required("text", registry.String())),
		IsConcurrencySafe: func(registry.Value) bool { return true },
		Execute: func(_ context.Context, c *registry.Call) (any, error) {
			var in struct{ Text string }
			err := c.Args.Decode(&in)
			return in.Text, err
		},
	}
}

func texts(rs []*pipeline.Result) []string {
	var out []string
	for _, r := range rs {
		var parts []string
		for _, c := range r.Content {
			parts = append(parts, c.Text)
		}
		out = append(out, r.CallID+" "+strings.Join(parts, "|"))
	}
	return out
}

func TestExecuteBatch(t *testing.T) {
	ex, err := New(pipeline.New(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := ex.Execute(context.Background(), testreg.Resolve(t, echo()), []pipeline.RawCall{
		{ID: "a", Name: "echo", Arguments: `{"text":"one"}`},
		{ID: "b", Name: "echo", Arguments: `{"text": oops`},
		{ID: "c", Name: "echo", Arguments: ``},
		{ID: "d", Name: "missing", Arguments: `{}`},
		{ID: "e", Name: "echo", Arguments: `{"text":"two"}`},
	})
	want := []string{
		"a one",
		`b Error: invalid arguments: "arguments" must be an object`,
		`c Error: invalid arguments: missing required property "text"`,
		`d Error: unknown tool "missing"`,
		"e two",
	}
	if diff := cmp.Diff(want, texts(got)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestDescribe(t *testing.T) {
	ex, _ := New(pipeline.New(nil), nil)
	desc, err := ex.Describe(testreg.Resolve(t, echo()))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(desc.Tools)
	want := `[{"name":"echo","description":"Echo the text.","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(desc.Sections) != 0 {
		t.Errorf("native describe sent sections: %+v", desc.Sections)
	}
}

func TestExecuteCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		var started atomic.Int32
		block := &registry.Tool{Name: "block", Execute: func(ctx context.Context, _ *registry.Call) (any, error) {
			started.Add(1)
			cancel() // the step is cancelled while the first call runs
			<-ctx.Done()
			return nil, ctx.Err()
		}}
		ex, _ := New(pipeline.New(nil), nil)
		got := ex.Execute(ctx, testreg.Resolve(t, block), []pipeline.RawCall{
			{ID: "1", Name: "block"}, {ID: "2", Name: "block"}, {ID: "3", Name: "block"},
		})
		want := []string{"1 Error: tool call aborted", "2 Error: tool call aborted before dispatch", "3 Error: tool call aborted before dispatch"}
		if diff := cmp.Diff(want, texts(got)); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		if started.Load() != 1 {
			t.Errorf("%d bodies started, want 1", started.Load())
		}
	})
}

func TestMaxParallelValidated(t *testing.T) {
	if _, err := New(pipeline.New(nil), &Options{MaxParallel: -3}); err == nil || !strings.Contains(err.Error(), "got -3") {
		t.Errorf("negative MaxParallel: %v", err)
	}
}
