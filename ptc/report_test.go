package ptc

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

type ctxKey struct{}

// OnReport sees each run's report on the body's context, before the result is final,
// with the figures a tracer records: failure, sub-calls, output size and VM time.
func TestOnReport(t *testing.T) {
	tests := []struct {
		name        string
		code        string
		wantKind    runtime.Kind
		wantCalls   int
		wantOutput  int
		wantReports int
	}{
		{name: "two sub-calls", code: `console.log("a\"b"); await tools.echo({text: "x"}); return await tools.echo({text: "yz"})`,
			wantCalls: 2, wantOutput: len(`["a\"b"]`) + len(`"yz"`), wantReports: 1},
		{name: "no output", code: `return undefined`, wantOutput: len(`[]`), wantReports: 1},
		{name: "a control character costs six bytes", code: "console.log('\\u0001')", wantOutput: len(`["\u0001"]`), wantReports: 1},
		{name: "a failed program", code: `await tools.echo({text: "x"}); throw new Error("no")`, wantKind: runtime.KindException, wantCalls: 1, wantOutput: len(`[]`), wantReports: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.register(echoTool())
			var reports []*Report
			var calls []registry.Call
			e.opts.Wrappers = append(e.opts.Wrappers, func(next pipeline.Handler) pipeline.Handler {
				return func(ctx context.Context, call *pipeline.Call) (*pipeline.Result, error) {
					return next(context.WithValue(ctx, ctxKey{}, call.ID), call)
				}
			})
			e.ptc.OnReport = func(ctx context.Context, call registry.Call, rep *Report) {
				if got := ctx.Value(ctxKey{}); got != call.ID {
					t.Errorf("OnReport's context carries %v from the wrappers, want %q", got, call.ID)
				}
				reports, calls = append(reports, rep), append(calls, call)
			}
			_, rep := e.run(context.Background(), tt.code)
			if len(reports) != tt.wantReports {
				t.Fatalf("OnReport called %d times, want %d", len(reports), tt.wantReports)
			}
			if reports[0] != rep {
				t.Error("OnReport saw another report than Run returned")
			}
			if calls[0].ID != "call-1" || calls[0].Name != registry.RunCodeName {
				t.Errorf("OnReport's call is %q %q, want call-1 run_code", calls[0].ID, calls[0].Name)
			}
			var kind runtime.Kind
			if rep.Failure != nil {
				kind = rep.Failure.Kind
			}
			got := []any{kind, len(rep.Calls), rep.OutputBytes, rep.Compute > 0}
			want := []any{tt.wantKind, tt.wantCalls, tt.wantOutput, true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kind, calls, output bytes, compute>0 (-want +got):\n%s", diff)
			}
		})
	}
}

// A call that never ran a program has no report.
func TestOnReportNotWithoutARun(t *testing.T) {
	e := newEnv(t)
	called := false
	e.ptc.OnReport = func(context.Context, registry.Call, *Report) { called = true }
	ex, set := e.executor()
	res, _ := ex.Run(context.Background(), set, pipeline.RawCall{ID: "call-1", Arguments: `{"code":"return 1"}`})
	if !res.IsError() || called {
		t.Errorf("got %q, OnReport called %v; want an argument error and no report", resultText(res), called)
	}
}

// TestBytesInAndOut: a run's report says what its tools handed the program (values as
// JSON, error messages) and what went back to the model (the text and its contexts).
func TestBytesInAndOut(t *testing.T) {
	e := newEnv(t)
	e.register(&registry.Tool{Name: "four", Description: "Four letters.", Execute: func(context.Context, *registry.Call) (any, error) { return "abcd", nil }},
		&registry.Tool{Name: "fail", Description: "Fails.", Execute: func(context.Context, *registry.Call) (any, error) { return nil, errors.New("nope") }})
	res, rep := e.run(context.Background(), `const a = await tools.four({}); try { await tools.fail({}) } catch {} return a.length`)
	if resultText(res) != "4" || rep.FromTools != len(`"abcd"`)+len("nope") || rep.ToModel != len("4") {
		t.Errorf("text %q, FromTools %d, ToModel %d; want 4, %d, 1", resultText(res), rep.FromTools, rep.ToModel, len(`"abcd"`)+len("nope"))
	}
}
