package pipeline

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/registry"
)

var update = flag.Bool("update", false, "rewrite golden files")

// stepClock is a clock that advances by one second per reading.
func stepClock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// TestSlogSinkKeys pins the records SlogSink writes for each event type, as JSON
// (testdata/slog.golden; refresh with -update).
func TestSlogSinkKeys(t *testing.T) {
	var buf bytes.Buffer
	sink := SlogSink(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	fail := &registry.Tool{Name: "fail", Description: "Fails.", Parameters: registry.Object(),
		Execute: func(context.Context, *registry.Call) (any, error) { return nil, errors.New("boom") }}
	p := New(&Options{Events: sink, Now: stepClock()})
	set := resolve(t, echoTool("echo"), fail)
	p.Run(context.Background(), set, call("echo", `{"text":"a"}`))
	p.Run(context.Background(), set, registry.Call{ID: "c1:code:1", RootID: "c1", ParentID: "c1", Name: "fail", Args: registry.MustParseValue(`{}`)})
	sink.Event(Event{Type: EventDispatchAbandoned, Time: time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC), CallID: "c1:code:2", RootID: "c1", ParentID: "c1", Name: "echo", IsError: true})
	sink.Event(Event{Type: EventAbandoned, CallID: "c2", RootID: "c2", Name: "echo", IsError: true})

	golden := filepath.Join("testdata", "slog.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestSlogSinkLevels(t *testing.T) {
	var buf bytes.Buffer
	sink := SlogSink(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	p := New(&Options{Events: sink, Now: stepClock()})
	p.Run(context.Background(), resolve(t, echoTool("echo")), call("echo", `{"text":"a"}`))
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{"time=2026-01-02T03:04:07.000Z level=INFO msg=tool/result tool=echo call_id=c1 root_id=c1 is_error=false duration=1s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("at level info, the start event is left out (-want +got):\n%s", diff)
	}
}

// A nil *slog.Logger discards, for SlogSink and for Options.Logger alike: nothing
// reaches slog.Default().
func TestNilLoggerDiscards(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)

	p := New(&Options{
		Events:    SlogSink(nil),
		Observers: []ObserverFunc{func(*Call, Result) { panic("observer bug") }},
	})
	res := p.Run(context.Background(), resolve(t, echoTool("echo")), call("echo", `{"text":"a"}`))
	if text(res) != "a" || buf.Len() != 0 {
		t.Errorf("got %q and default-logger output %q; want a and none", text(res), buf.String())
	}
}
