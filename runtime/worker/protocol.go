package worker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/runcode-go/runcode/runtime"
)

// The channel is the worker's stdin (host to worker) and stdout (worker to host). Each
// frame is a 4-byte big-endian length and that many bytes of one JSON message. An oversized
// frame, a body that is not exactly one message (unknown fields included), or a message
// out of protocol is an error: the host kills a worker that sends one, and a worker exits
// when its host does. Exception: a result's value is the tool's output as it came, JSON or
// not, written last (see appendHot); the worker's runtime decodes it as in process.
//
// Host to worker:
//
//	init    {t, limits, grace, maxFrame, gcPercent}        first frame; answered by ready
//	run     {t, id, code, programBytes, limits, ns, file, truncate, draws}; answered by done;
//	        same instead of limits and ns: those of the last run frame that carried them
//	result  {t, id, value | error | panic}                 the outcome of call id
//	cancel  {t, reason}                                    abort the current run
//
// Worker to host:
//
//	ready   {t, pid, vmBytes, asLimit, gcPercent}  warm and limited; gcPercent is its GOGC
//	call    {t, id, ns, member, args, draws}       ids count 1, 2, ... per run; draws made
//	                                               before the call, when the run records them
//	log     {t, id, logs}                          entries the ledger accepted, kept by the
//	                                               host in case the worker dies mid-run
//	done    {t, id, logs, value, failure, compute, draws}  compute is VM time in ns

// DefaultMaxFrame bounds one frame: a program (1 MiB by default), one call's arguments
// (the runtime caps them at 64 MiB) or one tool result, with room for the JSON around them.
const DefaultMaxFrame = 72 << 20

// Message types.
const (
	tInit   = "init"
	tReady  = "ready"
	tRun    = "run"
	tCall   = "call"
	tResult = "result"
	tCancel = "cancel"
	tDone   = "done"
	tLog    = "log"
)

// message is the union of every message; fields not used by a type stay zero. The field
// order is the encoding's, which appendHot writes by hand.
type message struct {
	T         string          `json:"t"`
	Grace     int64           `json:"grace,omitempty"`     // init, nanoseconds
	MaxFrame  int             `json:"maxFrame,omitempty"`  // init
	GCPercent int             `json:"gcPercent,omitempty"` // init (0: default), ready (actual)
	Limits    *runtime.Limits `json:"limits,omitempty"`    // init, run

	PID     int   `json:"pid,omitempty"` // ready
	VMBytes int64 `json:"vmBytes,omitempty"`
	ASLimit int64 `json:"asLimit,omitempty"`

	Code         string   `json:"code,omitempty"` // run: the program, then RunOptions' fields
	ProgramBytes int      `json:"programBytes,omitempty"`
	NS           []nsSpec `json:"ns,omitempty"`
	File         string   `json:"file,omitempty"`
	Truncate     bool     `json:"truncate,omitempty"`
	Same         bool     `json:"same,omitempty"`

	Draws    *runtime.Draws             `json:"draws,omitempty"`    // run, call, done
	KeepFull bool                       `json:"keepFull,omitempty"` // run
	Full     json.RawMessage            `json:"full,omitempty"`     // done (Result.FullValue)
	State    *runtime.State             `json:"state,omitempty"`    // run
	Globals  map[string]json.RawMessage `json:"globals,omitempty"`  // run
	StateOut map[string]json.RawMessage `json:"stateOut,omitempty"` // done (Result.State)

	// call: the compute budget left when the run made it, in nanoseconds, at least 1 (the
	// host knows the wall clock's deadline itself)
	Left int64 `json:"left,omitempty"`

	// run and done (the run's number on its worker, from 1), call and result (the call's)
	ID     uint64          `json:"id,omitempty"`
	NSI    int             `json:"nsi,omitempty"` // call
	Member string          `json:"member,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`

	Value   json.RawMessage `json:"value,omitempty"`   // result, done
	Error   *callError      `json:"error,omitempty"`   // result
	Panic   string          `json:"panic,omitempty"`   // result: the host's call panicked
	Reason  string          `json:"reason,omitempty"`  // cancel
	Logs    []string        `json:"logs,omitempty"`    // log, done
	Failure *failure        `json:"failure,omitempty"` // done
	Compute int64           `json:"compute,omitempty"` // done: Result.Compute, nanoseconds
}

type nsSpec struct {
	Global         string   `json:"global"`
	Members        []string `json:"members"`
	ErrorClass     string   `json:"errorClass,omitempty"`
	MemberProperty string   `json:"memberProperty,omitempty"`
	Noun           string   `json:"noun,omitempty"`
	// SnapshotFields are runtime.NamespaceOptions.SnapshotFields.
	SnapshotFields map[string]string `json:"snapshotFields,omitempty"`
}

type callError struct {
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

type failure struct {
	Kind    runtime.Kind `json:"kind"`
	Message string       `json:"message"`
}

// errProtocol is wrapped by every protocol violation.
var errProtocol = errors.New("protocol violation")

func protocolError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errProtocol, fmt.Sprintf(format, args...))
}

// frameWriter writes frames to one end of the channel, reusing its buffer. Callers
// serialise their writes, so one frame is one Write, made by the goroutine that has the
// frame: a hand-off to a writer goroutine that wakes a thread costs more than the write.
type frameWriter struct {
	w   io.Writer
	max int
	buf []byte
}

// keepBuf is the largest frame buffer a frameWriter keeps for the next frame; a larger one
// (a big program or result) is dropped rather than held for the life of the channel.
const keepBuf = 64 << 10

func (fw *frameWriter) write(m *message) error {
	b, err := appendFrame(fw.buf[:0], m, fw.max)
	if cap(b) <= keepBuf {
		fw.buf = b
	} else {
		fw.buf = nil
	}
	if err != nil {
		return err
	}
	_, err = fw.w.Write(b)
	return err
}

// appendFrame appends m as one frame (header and body) to b.
func appendFrame(b []byte, m *message, max int) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b, ok := appendHot(b, m)
	if !ok {
		buf := bytes.NewBuffer(b)
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m); err != nil {
			return b[:start], err
		}
		b = buf.Bytes()
		b = b[:len(b)-1] // Encode's newline
	}
	n := len(b) - start - 4
	if n > max {
		return b[:start], &frameSizeError{t: m.T, n: n, max: max}
	}
	binary.BigEndian.PutUint32(b[start:], uint32(n))
	return b, nil
}

// frameSizeError is a message too large to send as one frame.
type frameSizeError struct {
	t      string
	n, max int
}

func (e *frameSizeError) Error() string {
	return fmt.Sprintf("a %s frame of %d bytes is over the %d-byte limit", e.t, e.n, e.max)
}

// frameReader reads frames from one end of the channel through a buffer, so that a header
// and a small body take one read system call.
type frameReader struct {
	r   *bufio.Reader
	max int
	hdr [4]byte
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// read reads one frame and decodes it strictly. io.EOF means the channel closed cleanly
// between frames.
func (fr *frameReader) read() (*message, error) { return readFrameFrom(fr.r, fr.max, fr.hdr[:]) }

func readFrameFrom(r io.Reader, max int, hdr []byte) (*message, error) {
	if _, err := io.ReadFull(r, hdr); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, protocolError("the channel closed inside a frame header")
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr)
	if n == 0 {
		return nil, protocolError("an empty frame")
	}
	if uint64(n) > uint64(max) {
		return nil, protocolError("a frame of %d bytes is over the %d-byte limit", n, max)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, protocolError("the channel closed inside a %d-byte frame", n)
	}
	return decode(body)
}

// decode decodes one frame's body strictly: exactly one JSON object of the message shape,
// no unknown fields, a type. The hot frames of a sub-call in the form appendHot writes them
// take a fast path that accepts nothing the strict decoder would not (FuzzDecode).
func decode(body []byte) (*message, error) {
	if m, ok := decodeHot(body); ok {
		return m, nil
	}
	return decodeStrict(body)
}

func decodeStrict(body []byte) (*message, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var m message
	if err := dec.Decode(&m); err != nil {
		return nil, protocolError("a frame that is not a message: %v", err)
	}
	if dec.More() {
		return nil, protocolError("a frame with data after its message")
	}
	if m.T == "" {
		return nil, protocolError("a message without a type")
	}
	return &m, nil
}

// validKind reports whether k is a failure kind a worker may report.
func validKind(k runtime.Kind) bool {
	switch k {
	case runtime.KindException, runtime.KindTimeout, runtime.KindAbort, runtime.KindInvalidOutput,
		runtime.KindOutputLimit, runtime.KindMemoryLimit:
		return true
	}
	return false
}
