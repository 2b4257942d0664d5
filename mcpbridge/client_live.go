package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// linkErr reports why l cannot take calls, or nil.
func (cn *conn) linkErr(l *link) error {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	switch {
	case cn.stopping:
		return cn.fail(errors.New("stopped"))
	case l.dead != nil:
		return cn.fail(l.dead)
	}
	return nil
}

// live returns the current session, starting the server again (at most
// maxRestarts times in all) when the last session ended. The call that saw a
// server stop has failed with why; later calls get a new process.
func (cn *conn) live(ctx context.Context) (*link, error) {
	cn.mu.Lock()
	l := cn.cur
	cn.mu.Unlock()
	select {
	case <-l.ended:
	default:
		return l, cn.linkErr(l)
	}
	cn.restart.Lock()
	defer cn.restart.Unlock()
	cn.mu.Lock()
	switch {
	case cn.stopping:
		cn.mu.Unlock()
		return nil, cn.fail(errors.New("stopped"))
	case cn.cur != l: // another call started it again meanwhile
		l = cn.cur
		cn.mu.Unlock()
		return l, cn.linkErr(l)
	case cn.restarts >= maxRestarts:
		err := fmt.Errorf("%v; not started again after stopping %d times", l.dead, cn.restarts+1)
		cn.mu.Unlock()
		return nil, cn.fail(err)
	}
	cn.restarts++
	cn.mu.Unlock()
	nl, tools, err := cn.connect(ctx)
	if err != nil {
		return nil, cn.fail(fmt.Errorf("starting it again after it stopped (%v): %w", l.dead, err))
	}
	cn.mu.Lock()
	if cn.stopping {
		cn.mu.Unlock()
		nl.session.Close()
		return nil, cn.fail(errors.New("stopped"))
	}
	cn.cur = nl
	cn.loops.Go(func() { cn.watch(nl) }) // under mu, before close can Wait
	cn.mu.Unlock()
	if cn.register(tools) {
		if f := cn.client.opts.OnChange; f != nil {
			f(cn.name)
		}
	}
	return nl, nil
}

// watch records the end of a session.
func (cn *conn) watch(l *link) {
	err := l.session.Wait()
	cn.mu.Lock()
	if !cn.stopping {
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			l.dead = fmt.Errorf("the server exited (%v)", exit)
		case err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed):
			l.dead = errors.New("the server closed the connection")
		default:
			l.dead = fmt.Errorf("the connection failed: %w", err)
		}
	}
	cn.mu.Unlock()
	close(l.ended)
}

// refreshLoop re-registers the tools after each tools/list_changed notification.
func (cn *conn) refreshLoop() {
	for {
		select {
		case <-cn.life.Done():
			return
		case <-cn.refresh:
		}
		cn.mu.Lock()
		l := cn.cur
		cn.mu.Unlock()
		ctx, cancel := context.WithTimeout(cn.life, cn.startTimeout())
		tools, err := list(ctx, l.session)
		cancel()
		if err != nil {
			cn.client.opts.Logger.Warn("mcp tools not refreshed", "server", cn.name, "err", err)
			continue
		}
		if !cn.register(tools) {
			continue
		}
		if f := cn.client.opts.OnChange; f != nil {
			f(cn.name)
		}
	}
}

func (cn *conn) close() {
	cn.mu.Lock()
	cn.stopping = true
	for _, r := range cn.regs {
		r.dispose()
	}
	cn.regs, cn.named = nil, nil
	l := cn.cur
	cn.mu.Unlock()
	cn.stop()
	if l != nil {
		l.session.Close()
	}
	cn.loops.Wait()
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}
