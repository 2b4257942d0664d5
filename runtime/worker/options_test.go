package worker

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/runtime"
)

// The run options that change the model-facing text cross the process boundary: a
// program's file name in its stack frames, and truncation mode, with the same outcome
// as in process.
func TestRunOptionsInWorker(t *testing.T) {
	p := newTestPool(t, 1)
	res := runCode(t, p, "const x = 1\nthrow new Error('boom')", &runtime.RunOptions{FileName: "prog.js"})
	if want := "Error: code run failed (exception): Error: boom\n    at prog.js:2:7"; res.Text() != want {
		t.Errorf("with a file name: %q, want %q", res.Text(), want)
	}

	limits := &runtime.Limits{OutputBytes: 1024}
	code := "console.log('a'.repeat(300)); return Array.from({length: 500}, (_, i) => ({i}))"
	res = runCode(t, p, code, &runtime.RunOptions{Limits: limits, TruncateOutput: true})
	if res.Failure != nil {
		t.Fatalf("truncation mode: %v", res.Failure)
	}
	if len(res.Logs) != 2 || !strings.HasPrefix(res.Logs[0], "[output truncated to the 1024-byte output budget") {
		t.Errorf("logs = %q, want the header and the log entry", res.Logs)
	}
	if !json.Valid(res.Value) || !strings.Contains(string(res.Value), "more items") {
		t.Errorf("value = %s, want JSON cut with a marker", res.Value)
	}
	if res := runCode(t, p, code, &runtime.RunOptions{Limits: limits}); res.Failure == nil || res.Failure.Kind != runtime.KindOutputLimit {
		t.Errorf("without truncation: %v, want output-limit", res.Failure)
	}
}
