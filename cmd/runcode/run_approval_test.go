package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/runcode-go/runcode/internal/testwait"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// TestTerminalApprover: runcode run's question on a terminal is the message serve's
// elicitation carries, followed by "Allow? [y/N]"; y or yes allows the call once,
// anything else or the end of the input rejects it, and the end of the call's context
// while it waits cancels it.
func TestTerminalApprover(t *testing.T) {
	call := &pipeline.Call{Call: registry.Call{Name: "rm", ParentID: "call-1", Args: registry.MustParseValue(`{"path":"/"}`)}}
	var out strings.Builder
	a := newTerminalApprover(strings.NewReader("y\n no\nYes\n\n"), &out)
	var got []pipeline.Approval
	for range 5 {
		answer, err := a.approve(context.Background(), call, "")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, answer)
	}
	want := []pipeline.Approval{pipeline.AllowedOnce, pipeline.Rejected, pipeline.AllowedOnce, pipeline.Rejected, pipeline.Rejected}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	question := "runcode run: Allow tool \"rm\" to run (called by a run_code program)?\nArguments: {\"path\":\"/\"}\nAllow? [y/N] "
	if o := out.String(); !strings.HasPrefix(o, question) || strings.Count(o, "Allow? [y/N] ") != 5 {
		t.Errorf("stderr %q, want 5 questions like %q", o, question)
	}

	// Nobody answers: the call's end cancels the question.
	r, w := io.Pipe()
	defer w.Close()
	a = newTerminalApprover(r, io.Discard)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("the run ended")
	done := make(chan pipeline.Approval, 1)
	go func() {
		answer, err := a.approve(ctx, call, "")
		if !errors.Is(err, stop) {
			t.Errorf("err = %v, want the context's cause", err)
		}
		done <- answer
	}()
	cancel(stop)
	if answer := testwait.Receive(t, done, "the cancelled question"); answer != pipeline.Cancelled {
		t.Errorf("answer %v, want Cancelled", answer)
	}
}
