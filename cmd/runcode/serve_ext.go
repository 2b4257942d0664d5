package main

import (
	"context"
	"flag"
	"io"

	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/ptc"
)

// serveExtensions are what a build adds to `runcode serve` without the core module
// depending on it: a file that the build adds to this package appends one in its
// init (contrib/otel's runcode-otel build adds OpenTelemetry tracing this way). Each
// registers its flags on serve's flag set and returns what to do once they are
// parsed: start, and say how to wrap what serve builds. A plain build has none.
var serveExtensions []func(fs *flag.FlagSet) (start func(ctx context.Context, stderr io.Writer) (*serveWrap, error))

// serveWrap is how an extension changes what serve builds, each function called on
// the options before serve uses them; a nil function changes nothing.
type serveWrap struct {
	pipeline func(*pipeline.Options)
	ptc      func(*ptc.Options)
	server   func(*mcpbridge.ServerOptions)
	client   func(*mcpbridge.ClientOptions)
	// stop is called when serve returns, after the server stopped (to flush and shut
	// down what the extension started).
	stop func()
}

// serveExts are the extensions of one serve command.
type serveExts struct {
	starts []func(ctx context.Context, stderr io.Writer) (*serveWrap, error)
	wraps  []*serveWrap
}

// registerServeExtensions registers every extension's flags on fs.
func registerServeExtensions(fs *flag.FlagSet) *serveExts {
	e := &serveExts{}
	for _, ext := range serveExtensions {
		if start := ext(fs); start != nil {
			e.starts = append(e.starts, start)
		}
	}
	return e
}

// start starts the extensions, in order; stop stops those that started, in reverse.
func (e *serveExts) start(ctx context.Context, stderr io.Writer) (stop func(), err error) {
	stop = func() {
		for i := len(e.wraps) - 1; i >= 0; i-- {
			if e.wraps[i].stop != nil {
				e.wraps[i].stop()
			}
		}
	}
	for _, start := range e.starts {
		w, err := start(ctx, stderr)
		if err != nil {
			stop()
			return nil, err
		}
		if w != nil {
			e.wraps = append(e.wraps, w)
		}
	}
	return stop, nil
}

func (e *serveExts) pipeline(o *pipeline.Options) {
	for _, w := range e.wraps {
		if w.pipeline != nil {
			w.pipeline(o)
		}
	}
}

func (e *serveExts) ptc(o *ptc.Options) {
	for _, w := range e.wraps {
		if w.ptc != nil {
			w.ptc(o)
		}
	}
}

func (e *serveExts) server(o *mcpbridge.ServerOptions) {
	for _, w := range e.wraps {
		if w.server != nil {
			w.server(o)
		}
	}
}

func (e *serveExts) client(o *mcpbridge.ClientOptions) {
	for _, w := range e.wraps {
		if w.client != nil {
			w.client(o)
		}
	}
}
