package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/pprof"
	"time"
)

// debugProfiles are the profiles the --debug-addr endpoint serves, at /debug/pprof/NAME.
var debugProfiles = []string{"goroutine", "heap"}

// debugHandler serves the operator endpoint of --debug-addr: Go's goroutine and heap
// profiles as text (runtime/pprof, debug=1), which is how an operator, or the load test,
// sees what a server holds. It does not use net/http/pprof, which registers itself on
// the default mux of every program that imports it and also serves CPU profiles and
// traces on demand.
func debugHandler() http.Handler {
	mux := http.NewServeMux()
	for _, name := range debugProfiles {
		mux.HandleFunc("GET /debug/pprof/"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			pprof.Lookup(name).WriteTo(w, 1)
		})
	}
	return mux
}

// serveDebug serves debugHandler on addr until the returned function is called, and
// says where on stderr.
func serveDebug(addr string, stderr io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: debugHandler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "runcode serve: --debug-addr: %v\n", err)
		}
	}()
	fmt.Fprintf(stderr, "runcode serve: debug endpoint at http://%s/debug/pprof/\n", ln.Addr())
	return func() {
		hs.Close()
		<-done
	}, nil
}
