package pipeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

// TestContextContent pins the labels every host uses to place contexts after a result:
// a run_code sub-call's images one by one, other contexts whole, empty ones skipped.
func TestContextContent(t *testing.T) {
	img := registry.Content{Type: "image", MIMEType: "image/png", Data: "iVBORw0KGgo="}
	got := ContextContent([]AdditionalContext{
		{Source: registry.RunCodeName, CallID: "c:code:1", Tool: "chart", Content: []registry.Content{registry.Text("drawn"), img, img}},
		{Source: "lint-policy", Content: []registry.Content{registry.Text("style warning")}},
		{Source: "audit", CallID: "c:code:2", Tool: "write", Content: []registry.Content{registry.Text("logged")}},
		{Source: "", Content: []registry.Content{registry.Text("anonymous")}},
		{Source: "empty"},
	})
	want := []registry.Content{
		registry.Text("Image from chart (sub-call c:code:1):"), img,
		registry.Text("Image from chart (sub-call c:code:1):"), img,
		registry.Text("Context attached by lint-policy:"), registry.Text("style warning"),
		registry.Text("Context attached by audit to write (sub-call c:code:2):"), registry.Text("logged"),
		registry.Text("Context attached:"), registry.Text("anonymous"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ContextContent (-want +got):\n%s", diff)
	}
	if got := ContextContent(nil); got != nil {
		t.Errorf("ContextContent(nil) = %v, want nil", got)
	}
}

// TestResultText: a result's text is its text blocks, one per line, without the others.
func TestResultText(t *testing.T) {
	img := registry.Content{Type: "image", MIMEType: "image/png", Data: "iVBORw0KGgo="}
	for _, tt := range []struct {
		content []registry.Content
		want    string
	}{
		{nil, ""},
		{[]registry.Content{registry.Text("one")}, "one"},
		{[]registry.Content{registry.Text("one"), img, registry.Text("two")}, "one\ntwo"},
		{[]registry.Content{img}, ""},
	} {
		r := &Result{Content: tt.content}
		if got := r.Text(); got != tt.want {
			t.Errorf("Text() of %v = %q, want %q", tt.content, got, tt.want)
		}
	}
}
