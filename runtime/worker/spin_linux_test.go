package worker

import (
	"bytes"
	"github.com/runcode-go/runcode/internal/testwait"
	"io"
	"os"
	"testing"
)

// waitingReader is a spinReader's next: it reports each call before waiting in it.
type waitingReader struct {
	r     io.Reader
	calls chan struct{}
}

func (w *waitingReader) Read(b []byte) (int, error) {
	w.calls <- struct{}{}
	return w.r.Read(b)
}

func newSpinPipe(t *testing.T) (*spinReader, *waitingReader, *spin, *os.File) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close(); pw.Close() })
	next := &waitingReader{r: pr, calls: make(chan struct{}, 16)}
	sp := &spin{}
	r, ok := newSpinReader(pr, next, sp).(*spinReader)
	if !ok {
		t.Fatal("newSpinReader did not spin on a pipe in the poller")
	}
	return r, next, sp, pw
}

// TestSpinReader pins what a spinning read does: it takes a frame that is already there
// without waiting; with nothing to read its spin ends and it waits in next (the poller) for
// the frame; after a spin that ran out, the next waits skip the spin; and while no run is
// in flight it never spins.
func TestSpinReader(t *testing.T) {
	r, next, sp, pw := newSpinPipe(t)
	sp.on.Store(true)
	buf := make([]byte, 16)

	if _, err := pw.Write([]byte("ready")); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "ready" {
		t.Fatalf("Read = %q, %v; want ready", buf[:n], err)
	}
	if len(next.calls) != 0 {
		t.Error("a read with data waiting went to the poller")
	}

	// Nothing to read: the spin ends and the read waits in next, where the frame
	// written after that arrives.
	type result struct {
		s   string
		err error
	}
	got := make(chan result, 1)
	go func() {
		n, err := r.Read(buf)
		got <- result{string(buf[:n]), err}
	}()
	testwait.Receive(t, next.calls, "the next spin call")
	if _, err := pw.Write([]byte("late")); err != nil {
		t.Fatal(err)
	}
	if res := <-got; res.err != nil || res.s != "late" {
		t.Fatalf("Read = %q, %v; want late", res.s, res.err)
	}
	if r.skip == 0 {
		t.Error("a spin ran out without backing off")
	}

	// A skipped spin still reads: straight from next.
	if _, err := pw.Write([]byte("skipped")); err != nil {
		t.Fatal(err)
	}
	skip := r.skip
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "skipped" {
		t.Fatalf("Read = %q, %v; want skipped", buf[:n], err)
	}
	testwait.Receive(t, next.calls, "the next spin call")
	if r.skip != skip-1 {
		t.Errorf("skip %d after a skipped spin, want %d", r.skip, skip-1)
	}

	// No run in flight: straight to next, however fresh the last write.
	sp.on.Store(false)
	r.skip = 0
	sp.wrote()
	if _, err := pw.Write([]byte("idle")); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "idle" {
		t.Fatalf("Read = %q, %v; want idle", buf[:n], err)
	}
	testwait.Receive(t, next.calls, "the next spin call")
}

// TestSpinReaderEnds: a spinning read reports the end of the pipe and its closing.
func TestSpinReaderEnds(t *testing.T) {
	r, _, sp, pw := newSpinPipe(t)
	sp.on.Store(true)
	pw.Write([]byte("last"))
	pw.Close()
	b, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(b, []byte("last")) {
		t.Fatalf("ReadAll = %q, %v; want last and the end", b, err)
	}
	r.f.Close()
	if _, err := r.Read(make([]byte, 4)); err == nil {
		t.Error("a read of a closed pipe did not fail")
	}
}
