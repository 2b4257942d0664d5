package mcpbridge

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// ProgressOptions configures a [Progress]. The zero value is ready to use.
type ProgressOptions struct {
	// Interval is the least time between two notifications for one call: what
	// happens in between is coalesced into the next one, which carries the count so
	// far and the latest message. The final state is always sent before the call's
	// response. Zero means 100 ms; negative sends each change as soon as the
	// previous notification went out.
	Interval time.Duration
}

// DefaultProgressInterval is ProgressOptions.Interval's default.
const DefaultProgressInterval = 100 * time.Millisecond

// maxProgressLine bounds a console line in a progress message, in bytes.
const maxProgressLine = 200

// Progress turns what happens during a served call into MCP progress notifications,
// for calls whose request carried a progressToken in its _meta. It is the pipeline's
// event sink (pipeline.Options.Events) and the run_code executor's log hook
// (ptc.Options.OnLog), and a [Server] given it in ServerOptions.Progress routes both
// to the call they belong to. Each sub-call started, settled or abandoned, and each
// console line, counts one: a notification's progress is the count so far (so it
// increases with every notification) and its message says what happened last:
//
//	tools.search_issues started
//	tools.search_issues settled (ok)
//	tools.search_issues settled (error)
//	tools.search_issues abandoned
//	console: <the line, control characters as spaces, cut to 200 bytes>
//
// Notifications are rate-limited per call (ProgressOptions.Interval), and none is
// sent once the call's handler returns. A Progress serves one Server; it is safe for
// concurrent use.
type Progress struct {
	interval time.Duration
	owned    atomic.Bool // a Server uses it

	mu    sync.Mutex
	calls map[string]*reporter // by the served call's id
}

// NewProgress returns a Progress. opts may be nil.
func NewProgress(opts *ProgressOptions) *Progress {
	p := &Progress{interval: DefaultProgressInterval, calls: map[string]*reporter{}}
	if opts != nil && opts.Interval != 0 {
		p.interval = max(opts.Interval, 0)
	}
	return p
}

var _ pipeline.Sink = (*Progress)(nil)

// Event reports a sub-call's event to the call its program serves. Events of the
// served calls themselves are not reported: their client sees them start and end.
func (p *Progress) Event(e pipeline.Event) {
	if e.ParentID == "" {
		return
	}
	var msg string
	switch e.Type {
	case pipeline.EventDispatchStart:
		msg = "tools." + e.Name + " started"
	case pipeline.EventDispatch:
		msg = "tools." + e.Name + " settled (ok)"
		if e.IsError {
			msg = "tools." + e.Name + " settled (error)"
		}
	case pipeline.EventDispatchAbandoned:
		msg = "tools." + e.Name + " abandoned"
	default:
		return
	}
	root := e.RootID
	if root == "" {
		root = e.ParentID
	}
	p.report(root, msg)
}

// Log reports a console line of the run serving call; its signature is
// ptc.Options.OnLog's.
func (p *Progress) Log(call *registry.Call, entry string) {
	root := call.RootID
	if root == "" {
		root = call.ID
	}
	r := p.reporter(root)
	if r == nil { // no progressToken: nothing to build
		return
	}
	// A mapped rune keeps at least a third of its bytes, so four times the bound maps to
	// more than the bound and cuts as the whole entry would, however long it is.
	if len(entry) > 4*maxProgressLine {
		entry = entry[:4*maxProgressLine]
	}
	r.add("console: " + cut(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, entry), maxProgressLine))
}

func (p *Progress) report(id, msg string) {
	if r := p.reporter(id); r != nil {
		r.add(msg)
	}
}

func (p *Progress) reporter(id string) *reporter {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[id]
}

// track starts reporting the served call id to ss under token; the returned function
// sends what is left unsent and stops, after which nothing more is sent for it.
func (p *Progress) track(ctx context.Context, id string, ss *mcp.ServerSession, token any) (stop func()) {
	r := &reporter{ctx: ctx, ss: ss, token: token, interval: p.interval, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	p.mu.Lock()
	p.calls[id] = r
	p.mu.Unlock()
	go r.loop()
	return func() {
		p.mu.Lock()
		delete(p.calls, id)
		p.mu.Unlock()
		close(r.stop)
		<-r.done
	}
}

// reporter sends one call's notifications from its own goroutine, so that the
// pipeline's goroutines and the run's never wait for the client.
type reporter struct {
	ctx      context.Context
	ss       *mcp.ServerSession
	token    any
	interval time.Duration
	wake     chan struct{} // something happened (capacity 1)
	stop     chan struct{} // the call is over
	done     chan struct{} // loop returned

	mu    sync.Mutex
	count int    // how many things happened
	msg   string // the last of them
	sent  int    // count when the last notification was sent
}

func (r *reporter) add(msg string) {
	r.mu.Lock()
	r.count++
	r.msg = msg
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// loop sends a notification when something happened, then waits out the interval,
// and sends the final state when the call is over.
func (r *reporter) loop() {
	defer close(r.done)
	var t *time.Timer
	for {
		select {
		case <-r.wake:
		case <-r.stop:
			r.send()
			return
		}
		r.send()
		if r.interval <= 0 {
			continue
		}
		if t == nil {
			t = time.NewTimer(r.interval)
			defer t.Stop()
		} else {
			t.Reset(r.interval)
		}
		select {
		case <-t.C:
		case <-r.stop:
			r.send()
			return
		}
	}
}

// send notifies the state if it changed since the last notification. A failed
// notification (the client went away) is not retried: the next one says more.
func (r *reporter) send() {
	r.mu.Lock()
	if r.count == r.sent {
		r.mu.Unlock()
		return
	}
	n, msg := r.count, r.msg
	r.sent = n
	r.mu.Unlock()
	_ = r.ss.NotifyProgress(r.ctx, &mcp.ProgressNotificationParams{ProgressToken: r.token, Progress: float64(n), Message: msg})
}
