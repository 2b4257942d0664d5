package worker

import (
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"testing"
)

// BenchmarkPipeRoundTrip is a pipe round trip with both ends waiting in the ordinary way:
// one 64-byte message to a child process (this test binary as "__echo <mode>") and back over two pipes, nothing else.
//
//   - bare: no goroutine hand-off at either end (the child reads and writes its blocking
//     stdin and stdout directly; the parent writes, then reads in the poller).
//   - shaped: the ends shaped as the worker and the host are: the child reads stdin in the
//     poller on one P and hands each message over a channel to the goroutine that answers;
//     the parent reads in a goroutine of its own and hands each message on.
//
// It was the floor under a sub-call's extra cost in a worker until both ends polled the
// pipe before they wait (spinReader), which skips the wake-up that is most of it. Figures:
// BENCHMARKS.md, "runtime/worker design notes".
func BenchmarkPipeRoundTrip(b *testing.B) {
	for _, mode := range []string{"bare", "shaped"} {
		b.Run(mode, func(b *testing.B) {
			cmd := exec.Command(os.Args[0], "__echo", mode)
			w, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			r, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			readerDone := make(chan struct{})
			defer func() {
				w.Close() // the child sees the end of its input and exits
				<-readerDone
				_ = cmd.Wait()
			}()
			msg := make([]byte, 64)
			recv := func() error { _, err := io.ReadFull(r, msg); return err }
			if mode == "shaped" {
				ch := make(chan error, 1)
				go func() {
					defer close(readerDone)
					buf := make([]byte, 64)
					for {
						_, err := io.ReadFull(r, buf)
						ch <- err
						if err != nil {
							return
						}
					}
				}()
				recv = func() error { return <-ch }
			} else {
				close(readerDone)
			}
			for b.Loop() {
				if _, err := w.Write(msg); err != nil {
					b.Fatal(err)
				}
				if err := recv(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// echo is the child of BenchmarkPipeRoundTrip: it sends every 64-byte message back.
func echo(mode string) {
	in, out := io.Reader(os.Stdin), os.Stdout
	msg := make([]byte, 64)
	if mode != "shaped" {
		for {
			if _, err := io.ReadFull(in, msg); err != nil {
				return
			}
			if _, err := out.Write(msg); err != nil {
				return
			}
		}
	}
	goruntime.GOMAXPROCS(1)
	in = pollable(os.Stdin)
	ch := make(chan []byte)
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 64)
			if _, err := io.ReadFull(in, b); err != nil {
				return
			}
			ch <- b
		}
	}()
	for b := range ch {
		if _, err := out.Write(b); err != nil {
			return
		}
	}
}
