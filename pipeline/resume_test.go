package pipeline

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

// fakeResumer resumes a continuation into a result naming it and its decisions, or
// fails for the continuation "expired".
type fakeResumer struct {
	Executor
	got []string
}

func (f *fakeResumer) Resume(_ context.Context, _ *registry.ResolvedToolSet, cont string, d map[string]Verdict) (*Result, error) {
	f.got = append(f.got, cont)
	if cont == "expired" {
		return nil, errors.New("run_code could not resume: the continuation expired")
	}
	return &Result{CallID: cont, Content: []registry.Content{registry.Text("resumed")}}, nil
}

func TestResumeBatch(t *testing.T) {
	paused := func(cont string, ids ...string) *Result {
		p := &Pause{Continuation: cont}
		for _, id := range ids {
			p.Pending = append(p.Pending, PendingCall{ID: id})
		}
		return &Result{Pause: p}
	}
	batch := []RawCall{{ID: "a", Name: "run_code"}, {ID: "b", Name: "echo"}, {ID: "c", Name: "run_code"}, {ID: "d", Name: "run_code"}}
	results := []*Result{paused("A", "a:1"), {CallID: "b"}, paused("expired", "c:1"), paused("D", "d:1")}
	f := &fakeResumer{}
	var spent atomic.Bool
	out, err := ResumeBatch(context.Background(), f, nil, batch, results, map[string]Verdict{"a:1": {Approve: true}, "c:1": {}}, &spent)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"A", "expired"}, f.got); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
	if out[0].CallID != "A" || out[1] != results[1] || out[2].Error == nil || out[2].Content[0].Text != "Error: run_code could not resume: the continuation expired" || out[3] != results[3] {
		t.Errorf("results: %+v", out)
	}
	if _, err := ResumeBatch(context.Background(), f, nil, batch, results, map[string]Verdict{"a:1": {}}, &spent); !errors.Is(err, ErrResumed) {
		t.Errorf("second resume: %v", err)
	}
	for _, tc := range []struct {
		name      string
		decisions map[string]Verdict
		want      string
	}{
		{"none", nil, "no decisions: decide at least one of the pending calls (a:1, c:1, d:1)"},
		{"unknown", map[string]Verdict{"x": {}}, `no call "x" is pending (pending: a:1, c:1, d:1)`},
	} {
		if _, err := ResumeBatch(context.Background(), f, nil, batch, results, tc.decisions, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	var notResumer struct{ Executor }
	if _, err := ResumeBatch(context.Background(), notResumer, nil, batch, results, map[string]Verdict{"a:1": {}}, nil); err == nil {
		t.Error("an executor that cannot resume was accepted")
	}
}

func TestWaiting(t *testing.T) {
	for _, tc := range []struct {
		first string
		n     int
		want  string
	}{
		{"deploy", 1, "run_code paused: waiting for approval of deploy (1 pending)"},
		{"deploy", 3, "run_code paused: waiting for approval of deploy and 2 more (3 pending)"},
		{"", 0, "run_code paused"},
	} {
		if got := Waiting(tc.first, tc.n); got != tc.want {
			t.Errorf("Waiting(%q, %d) = %q, want %q", tc.first, tc.n, got, tc.want)
		}
	}
}
