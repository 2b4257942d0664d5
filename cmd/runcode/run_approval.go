package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
)

// notATerminal is why runcode run cannot ask for an approval when its stdin is not a
// terminal (a pipe, a file, a CI job).
const notATerminal = "runcode run asks on a terminal, and its stdin is not one"

// programOnStdin is why it cannot when the program itself came on stdin.
const programOnStdin = "runcode run read the program from stdin, so it cannot ask there"

// runApproval is runcode run's approval of a manifest's tools: the same policy serve
// applies (approvalPolicy) through the same pipeline stages. deny fails a call
// without running it; ask asks on the terminal (stdin, with the question on stderr),
// unless noAsk (the run keeps paused runs in a store) or stdin is not a terminal or
// carried the program: then the run pauses (exit 4), and why says why it could not
// ask. A nil policy (the workspace tools) allows every call.
func runApproval(policy func(tool string) pipeline.Action, stdin io.Reader, stdinProgram, noAsk bool, stderr io.Writer) (pre []pipeline.PreExecuteFunc, approve pipeline.ApproveFunc, why string) {
	switch f, ok := stdin.(*os.File); {
	case stdinProgram:
		why = programOnStdin
	case !ok || !isTerminal(f):
		why = notATerminal
	}
	if policy == nil {
		return nil, nil, why
	}
	hook := func(ctx context.Context, call *pipeline.Call) (pipeline.Decision, error) {
		switch a := policy(call.Name); a {
		case pipeline.Allow, pipeline.Deny, pipeline.Ask:
			return pipeline.Decision{Action: a}, nil
		default:
			return pipeline.Decision{}, fmt.Errorf("approval policy returned an unknown action %d for tool %q", a, call.Name)
		}
	}
	if why == "" && !noAsk {
		approve = newTerminalApprover(stdin, stderr).approve
	}
	return []pipeline.PreExecuteFunc{hook}, approve, why
}

// terminalApprover asks a person at a terminal: the question on out, a y/N answer on
// in. Questions (calls that overlap) are asked one at a time.
type terminalApprover struct {
	out  io.Writer
	turn chan struct{} // holds one token: whose turn it is to ask
	// answers yields the lines typed on in, read by one goroutine started on the
	// first question; it is closed when in ends.
	answers chan string
	start   func()
}

func newTerminalApprover(in io.Reader, out io.Writer) *terminalApprover {
	a := &terminalApprover{out: out, turn: make(chan struct{}, 1), answers: make(chan string)}
	a.turn <- struct{}{}
	a.start = sync.OnceFunc(func() {
		go func() {
			defer close(a.answers)
			lines := bufio.NewScanner(in)
			for lines.Scan() {
				a.answers <- lines.Text()
			}
		}()
	})
	return a
}

// approve is a pipeline.ApproveFunc: y or yes allows the call once; anything else, or
// the end of the input, rejects it. When ctx ends first (the run's cancellation or
// wall clock), the call is cancelled.
func (a *terminalApprover) approve(ctx context.Context, call *pipeline.Call, reason string) (pipeline.Approval, error) {
	select {
	case <-a.turn:
		defer func() { a.turn <- struct{}{} }()
	case <-ctx.Done():
		return pipeline.Cancelled, context.Cause(ctx)
	}
	a.start()
	fmt.Fprintf(a.out, "runcode run: %s\nAllow? [y/N] ", mcpbridge.ApprovalMessage(call, reason))
	select {
	case line, ok := <-a.answers:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			if ok {
				return pipeline.AllowedOnce, nil
			}
		}
		if !ok {
			fmt.Fprintln(a.out)
		}
		return pipeline.Rejected, nil
	case <-ctx.Done():
		fmt.Fprintln(a.out)
		return pipeline.Cancelled, context.Cause(ctx)
	}
}
