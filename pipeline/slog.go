package pipeline

import (
	"context"
	"log/slog"
)

// The keys SlogSink writes. They are stable: log pipelines may select on them.
const (
	LogKeyTool     = "tool"
	LogKeyCallID   = "call_id"
	LogKeyRootID   = "root_id"
	LogKeyParentID = "parent_id"
	LogKeyIsError  = "is_error"
	LogKeyDuration = "duration"
)

// SlogSink returns a Sink that writes every event to l as one record whose message is
// the event's type (tool/call, tool/result, ...) and whose time is the event's. Every
// record has tool, call_id and root_id, and parent_id for a sub-call's events; the
// settle and abandoned events add is_error, and the settle events (tool/result,
// tool/code-dispatch) add duration (a time.Duration: text handlers print it as 1.5s, JSON handlers as
// nanoseconds). Levels: a call's start is Debug, its settle Info (a failed call is a
// tool result, often a model's mistake, not a fault of the host), and an abandonment
// Warn (a tool that outlived its cancellation).
//
// Arguments and content are not written: they may be large or sensitive, and a host
// that wants them logs them from its own Sink. A nil l discards, like every Logger
// option of runcode's packages. The Sink is safe for concurrent use if l's handler is.
func SlogSink(l *slog.Logger) Sink {
	if l == nil {
		return SinkFunc(func(Event) {})
	}
	return slogSink{l}
}

type slogSink struct{ l *slog.Logger }

func (s slogSink) Event(e Event) {
	level, settled := slog.LevelInfo, false
	switch e.Type {
	case EventCall, EventDispatchStart:
		level = slog.LevelDebug
	case EventResult, EventDispatch:
		settled = true
	case EventAbandoned, EventDispatchAbandoned:
		level = slog.LevelWarn
	}
	ctx := context.Background()
	h := s.l.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(e.Time, level, e.Type, 0)
	r.AddAttrs(slog.String(LogKeyTool, e.Name), slog.String(LogKeyCallID, e.CallID), slog.String(LogKeyRootID, e.RootID))
	if e.ParentID != "" {
		r.AddAttrs(slog.String(LogKeyParentID, e.ParentID))
	}
	if level != slog.LevelDebug {
		r.AddAttrs(slog.Bool(LogKeyIsError, e.IsError))
	}
	if settled {
		r.AddAttrs(slog.Duration(LogKeyDuration, e.Duration))
	}
	_ = h.Handle(ctx, r) // a handler's write error has nowhere to go
}
