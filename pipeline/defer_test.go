package pipeline

import (
	"context"
	"testing"
)

func TestDeferral(t *testing.T) {
	askWhy := func(reason string) []PreExecuteFunc {
		return []PreExecuteFunc{func(context.Context, *Call) (Decision, error) { return Decision{Action: Ask, Reason: reason}, nil }}
	}
	answer := func(a Approval) ApproveFunc {
		return func(context.Context, *Call, string) (Approval, error) { return a, nil }
	}
	decided := func(v Verdict) DecideFunc {
		return func(id string) (Verdict, bool) { return v, id == "c1" }
	}
	tests := []struct {
		name     string
		reason   string
		approve  ApproveFunc
		deferral bool
		decide   DecideFunc
		want     string
		code     Code
		post     bool // post-execute ran
	}{
		{name: "no approver pends with the default text", deferral: true, want: `Error: tool "echo" requires approval`, code: CodeApprovalPending},
		{name: "no approver pends with the ask's reason", reason: "send mail?", deferral: true, want: "Error: send mail?", code: CodeApprovalPending},
		{name: "an unavailable approver pends", approve: answer(Unavailable), deferral: true, want: `Error: tool "echo" requires approval`, code: CodeApprovalPending},
		{name: "a deferring approver pends", approve: answer(Deferred), deferral: true, want: `Error: tool "echo" requires approval`, code: CodeApprovalPending},
		{name: "an approver that answers is still asked", approve: answer(AllowedOnce), deferral: true, want: "x"},
		{name: "deferred where nothing can pause is denied", approve: answer(Deferred), want: `Error: tool "echo" requires approval, but no approval channel is available`, code: CodeDenied, post: true},
		{name: "an earlier approval runs the call", approve: answer(Rejected), deferral: true, decide: decided(Verdict{Approve: true}), want: "x", post: true},
		{name: "an earlier rejection denies with the reason", deferral: true, decide: decided(Verdict{Reason: "not today"}), want: `Error: the user rejected tool "echo": not today`, code: CodeDenied, post: true},
		{name: "an earlier rejection without a reason", deferral: true, decide: decided(Verdict{}), want: `Error: the user rejected tool "echo"`, code: CodeDenied, post: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			post := false
			p := New(&Options{PreExecute: askWhy(tt.reason), Approve: tt.approve, PostExecute: []PostExecuteFunc{
				func(context.Context, *Call, *Result) (PostAction, error) { post = true; return PostAction{}, nil },
			}})
			ctx := context.Background()
			if tt.deferral {
				ctx = WithDeferral(ctx, tt.decide)
			}
			res := p.Run(ctx, resolve(t, echoTool("echo")), call("echo", `{"text":"x"}`))
			if text(res) != tt.want {
				t.Errorf("got %q, want %q", text(res), tt.want)
			}
			var code Code
			if res.Error != nil {
				code = res.Error.Code
			}
			if code != tt.code {
				t.Errorf("code = %q, want %q", code, tt.code)
			}
			if post != (tt.post || tt.code == "") {
				t.Errorf("post-execute ran: %v, want %v", post, !post)
			}
		})
	}
}
