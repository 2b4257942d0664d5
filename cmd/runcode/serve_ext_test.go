package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
)

// An extension registers its flags, starts once they are parsed, wraps every options
// struct serve builds, and stops in reverse order; one that fails to start stops
// those before it.
func TestServeExtensions(t *testing.T) {
	var log []string
	ext := func(name string, fail bool) func(*flag.FlagSet) func(context.Context, io.Writer) (*serveWrap, error) {
		return func(fs *flag.FlagSet) func(context.Context, io.Writer) (*serveWrap, error) {
			on := fs.Bool(name, false, "")
			return func(context.Context, io.Writer) (*serveWrap, error) {
				if fail {
					return nil, errors.New(name + " failed")
				}
				if !*on {
					return nil, nil
				}
				return &serveWrap{
					pipeline: func(o *pipeline.Options) { log = append(log, name+" pipeline") },
					ptc:      func(o *ptc.Options) { log = append(log, name+" ptc") },
					server:   func(o *mcpbridge.ServerOptions) { log = append(log, name+" server") },
					client:   func(o *mcpbridge.ClientOptions) { log = append(log, name+" client") },
					stop:     func() { log = append(log, name+" stop") },
				}, nil
			}
		}
	}
	defer func(saved []func(*flag.FlagSet) func(context.Context, io.Writer) (*serveWrap, error)) {
		serveExtensions = saved
	}(serveExtensions)

	serveExtensions = []func(*flag.FlagSet) func(context.Context, io.Writer) (*serveWrap, error){ext("a", false), ext("b", false), ext("off", false)}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	exts := registerServeExtensions(fs)
	if err := fs.Parse([]string{"-a", "-b"}); err != nil {
		t.Fatal(err)
	}
	stop, err := exts.start(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	exts.pipeline(&pipeline.Options{})
	exts.ptc(&ptc.Options{})
	exts.server(&mcpbridge.ServerOptions{})
	exts.client(&mcpbridge.ClientOptions{})
	stop()
	want := []string{"a pipeline", "b pipeline", "a ptc", "b ptc", "a server", "b server", "a client", "b client", "b stop", "a stop"}
	if !slices.Equal(log, want) {
		t.Errorf("calls %q, want %q", log, want)
	}

	log = nil
	serveExtensions = []func(*flag.FlagSet) func(context.Context, io.Writer) (*serveWrap, error){ext("a", false), ext("bad", true)}
	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	exts = registerServeExtensions(fs)
	if err := fs.Parse([]string{"-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := exts.start(context.Background(), io.Discard); err == nil || err.Error() != "bad failed" {
		t.Fatalf("start = %v, want bad's failure", err)
	}
	if !slices.Equal(log, []string{"a stop"}) {
		t.Errorf("after a failed start: %q, want a stopped", log)
	}
}
