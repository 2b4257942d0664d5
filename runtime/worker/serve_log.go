package worker

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// logStream sends a run's log entries to the host as the ledger accepts them, so that a
// worker dying at its hard memory limit keeps its output. Up to logBurst entries per
// logEvery are sent at once, on the VM goroutine; past that a timer sends them in batches,
// so a log flood does not spend its compute budget in pipe writes. Entries batched in the
// last logEvery before a death can be lost.
type logStream struct {
	s   *server
	id  uint64
	run *wrun // cancelled when its entries cannot be framed

	mu      sync.Mutex // held while sending, so that frames keep the entries' order
	pending []string
	window  time.Time // when the current logEvery window began
	sent    int       // entries sent at once in the current window
	timer   *time.Timer
}

const (
	logEvery = 10 * time.Millisecond
	logBurst = 16
)

func (l *logStream) add(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, text)
	if now := time.Now(); now.Sub(l.window) >= logEvery {
		l.window, l.sent = now, 0
	}
	if l.sent < logBurst {
		l.sent++
		l.sendLocked()
		return
	}
	if l.timer == nil {
		l.timer = time.AfterFunc(logEvery, l.flush)
	}
}

// flush sends what is pending. It is safe to call from the timer and after the run.
func (l *logStream) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.sendLocked()
}

func (l *logStream) sendLocked() {
	if len(l.pending) == 0 {
		return
	}
	batch := l.pending
	l.pending = nil
	err := l.s.send(&message{T: tLog, ID: l.id, Logs: batch})
	var fse *frameSizeError
	switch {
	case errors.As(err, &fse):
		// Only this run is affected: it ends, as it would if the host had cancelled it.
		if cur := l.run; cur != nil {
			cur.cancel(fmt.Errorf("log entries too large to pass to the host process: %d bytes framed, over the %d-byte limit", fse.n, fse.max))
		}
	case err != nil:
		l.s.fail(fmt.Errorf("worker: sending log entries: %w", err))
	}
}
