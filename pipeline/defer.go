package pipeline

import "context"

// Verdict is a person's decision on a call that waited for approval: approve it, or
// reject it with an optional reason that the rejection's message ends with.
type Verdict struct {
	Approve bool
	Reason  string
}

// DecideFunc returns the decision already made for the call with id callID, if any.
// It must be safe for concurrent use.
type DecideFunc func(callID string) (Verdict, bool)

type deferralKey struct{}

// WithDeferral returns ctx for calls that may wait for a person: a caller that can pause
// and later resume its work (a run_code run with a store) schedules its calls under it.
// For an Ask decision, decide (when not nil) answers first with a decision made earlier
// (a resumed run's); otherwise the approval hook is asked, and when there is none, or
// it answers Unavailable or Deferred, the call ends with CodeApprovalPending instead of
// being denied.
func WithDeferral(ctx context.Context, decide DecideFunc) context.Context {
	if decide == nil {
		decide = func(string) (Verdict, bool) { return Verdict{}, false }
	}
	return context.WithValue(ctx, deferralKey{}, decide)
}

func deferralOf(ctx context.Context) DecideFunc {
	d, _ := ctx.Value(deferralKey{}).(DecideFunc)
	return d
}

// CanDefer reports whether calls under ctx may wait for a person (WithDeferral): a
// policy that cannot ask anyone now should then ask anyway, and the call pauses.
func CanDefer(ctx context.Context) bool { return deferralOf(ctx) != nil }

type sessionKey struct{}

// WithSession returns ctx naming the session (a conversation: an MCP session, a CLI's
// --session) its calls belong to; executors that keep state across runs key it by
// this name. An empty name means none.
func WithSession(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, sessionKey{}, name)
}

// Session returns the session WithSession named in ctx, or "".
func Session(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}
