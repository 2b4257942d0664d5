package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/contrib/anthropic"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// replay is a Messages API on loopback that answers each request with the next hand-written
// response and keeps the request bodies.
type replay struct {
	mu        sync.Mutex
	responses []string
	requests  []json.RawMessage
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.URL.Path != "/v1/messages" || len(r.responses) == 0 {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unexpected request"}}`, http.StatusBadRequest)
		return
	}
	r.requests = append(r.requests, body)
	data, err := os.ReadFile(filepath.Join("testdata", r.responses[0]))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	r.responses = r.responses[1:]
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// TestBetaToolRunner runs the SDK's own tool runner over hand-written responses with the
// adapter's tools: the runner's second request carries the tool_results the adapter
// produced, the system blocks keep their cache breakpoint, and the runner's calls go
// to the executor one at a time with minted ids.
func TestBetaToolRunner(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	rec := &recorder{next: exec}
	a := mustNew(t, rec, set, nil)
	api := &replay{responses: []string{"turn_orders.json", "turn_done.json"}}
	srv := httptest.NewServer(api)
	defer srv.Close()
	client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test"), option.WithHTTPClient(srv.Client()), option.WithMaxRetries(0))
	runner := client.Beta.Messages.NewToolRunner(a.BetaTools(), sdk.BetaToolRunnerParams{
		BetaMessageNewParams: sdk.BetaMessageNewParams{
			Model:     "claude-sonnet-4-5",
			MaxTokens: 1024,
			System:    a.BetaSystem(),
			Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("Add up orders A1 and B22; look up order missing."))},
		},
		DisableThread: true,
	})
	last, err := runner.RunToCompletion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if last.StopReason != "end_turn" {
		t.Errorf("last stop reason %q", last.StopReason)
	}
	if len(api.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(api.requests))
	}

	var first struct {
		System []map[string]any `json:"system"`
		Tools  []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(api.requests[0], &first); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range first.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"archive_orders", "get_order", "render_chart", "run_code"}, names); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	// Under mode both the one section is the SDK's, which carries the breakpoint.
	if len(first.System) != 1 || first.System[0]["text"] != a.System()[0].Text ||
		!cmp.Equal(first.System[0]["cache_control"], map[string]any{"type": "ephemeral"}) {
		t.Errorf("system sent: %v", first.System)
	}

	var second struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(api.requests[1], &second); err != nil {
		t.Fatal(err)
	}
	turn := second.Messages[len(second.Messages)-1]
	var got []map[string]any
	for _, b := range turn.Content {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	text := func(s string) []any { return []any{map[string]any{"type": "text", "text": s}} }
	want := []map[string]any{
		{"type": "tool_result", "tool_use_id": "toolu_01A09q90qw90lq917835lq9", "content": text("orders read\n{\n  \"sum\": 50\n}")},
		{"type": "tool_result", "tool_use_id": "toolu_01BcYaLqVQYd3J3UpaAKb9Ld", "is_error": true, "content": text(`Error: order "missing" not found`)},
	}
	if turn.Role != "user" {
		t.Errorf("role %q", turn.Role)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool results the runner sent (-want +got):\n%s", diff)
	}

	// One batch of one call per tool_use, with ids the adapter minted.
	if len(rec.batches) != 2 {
		t.Fatalf("%d batches, want 2", len(rec.batches))
	}
	byName := map[string]pipeline.RawCall{}
	for _, b := range rec.batches {
		if len(b) != 1 || !strings.HasPrefix(b[0].ID, anthropic.RunnerCallPrefix) {
			t.Fatalf("batch %+v, want one call with a minted id", b)
		}
		byName[b[0].Name] = pipeline.RawCall{Name: b[0].Name, Arguments: b[0].Arguments}
	}
	if got := byName["get_order"].Arguments; got != `{"id":"missing"}` {
		t.Errorf("get_order arguments %s", got)
	}
	if _, ok := byName["run_code"]; !ok {
		t.Errorf("run_code did not run")
	}
}

// TestBetaToolsImages: a runner tool's successful result keeps its images, as the beta
// API's blocks.
func TestBetaToolsImages(t *testing.T) {
	set, exec := setup(t, registry.ModeBoth)
	a := mustNew(t, exec, set, nil)
	var chart sdk.BetaTool
	for _, tool := range a.BetaTools() {
		if tool.Name() == "render_chart" {
			chart = tool
		}
	}
	if chart == nil {
		t.Fatal("no render_chart runner tool")
	}
	if chart.Description() != "Render a chart as a PNG." || chart.InputSchema().Required[0] != "title" {
		t.Errorf("definition %q %+v", chart.Description(), chart.InputSchema())
	}
	blocks, err := chart.Execute(context.Background(), json.RawMessage(`{"title":"costs"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].OfText == nil || blocks[0].OfText.Text != "chart costs" ||
		blocks[1].OfImage == nil || blocks[1].OfImage.Source.OfBase64 == nil || blocks[1].OfImage.Source.OfBase64.Data != pngPixel {
		t.Errorf("blocks: %s", indent(t, blocks))
	}

	// A cancelled context runs nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := chart.Execute(ctx, json.RawMessage(`{"title":"x"}`)); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
