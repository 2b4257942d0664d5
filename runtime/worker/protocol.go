package worker

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/runcode-go/runcode/runtime"
)

// The channel between host and worker is the worker's stdin (host to worker) and stdout
// (worker to host). Each frame is a 4-byte big-endian length followed by that many bytes of
// one JSON object, a message. Frames over the maximum size, bodies that are not exactly one
// JSON object of the message shape (unknown fields included), and messages out of protocol
// are errors: the host kills a worker that sends one, and a worker exits when its host does.
//
// Host to worker:
//
//	init    {t, limits, grace, maxFrame}          first frame; answered by ready
//	run     {t, id, code, programBytes, limits, ns}   one program; answered by done
//	result  {t, id, value | error | invalid | panic}  the outcome of call id
//	cancel  {t, reason}                           abort the current run with reason
//
// Worker to host:
//
//	ready   {t, pid, vmBytes, asLimit}            the worker is warm and limited
//	call    {t, id, ns, member, args}             a namespace call; ids count 1, 2, ... per run
//	log     {t, id, logs}                         log entries as the run's ledger accepted them,
//	                                              in order; id is the run's. The host keeps
//	                                              them so that a worker killed mid-run keeps
//	                                              its output.
//	done    {t, id, logs, value, failure}         the run's result; id is the run's

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

// message is the union of every message; fields not used by a type stay zero.
type message struct {
	T string `json:"t"`

	// init
	Grace    int64 `json:"grace,omitempty"` // nanoseconds
	MaxFrame int   `json:"maxFrame,omitempty"`

	// init and run
	Limits *runtime.Limits `json:"limits,omitempty"`

	// ready
	PID     int   `json:"pid,omitempty"`
	VMBytes int64 `json:"vmBytes,omitempty"`
	ASLimit int64 `json:"asLimit,omitempty"`

	// run
	Code         string   `json:"code,omitempty"`
	ProgramBytes int      `json:"programBytes,omitempty"`
	NS           []nsSpec `json:"ns,omitempty"`

	// run, done (the run's number on its worker, from 1), call and result (the call's)
	ID     uint64          `json:"id,omitempty"`
	NSI    int             `json:"nsi,omitempty"`
	Member string          `json:"member,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`

	// result and done
	Value json.RawMessage `json:"value,omitempty"`

	// result
	Error   *callError `json:"error,omitempty"`
	Invalid bool       `json:"invalid,omitempty"` // the host's result was not JSON
	Panic   string     `json:"panic,omitempty"`   // the host's wait function panicked

	// cancel
	Reason string `json:"reason,omitempty"`

	// log and done
	Logs []string `json:"logs,omitempty"`

	// done
	Failure *failure `json:"failure,omitempty"`
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

// writeFrame encodes m and writes it as one frame with a single Write.
func writeFrame(w io.Writer, m *message, max int) error {
	var buf bytes.Buffer
	buf.Write([]byte{0, 0, 0, 0})
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return err
	}
	b := buf.Bytes()
	b = b[:len(b)-1] // Encode's newline
	n := len(b) - 4
	if n > max {
		return fmt.Errorf("a %s frame of %d bytes is over the %d-byte limit", m.T, n, max)
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	_, err := w.Write(b)
	return err
}

// readFrame reads one frame and decodes it strictly. io.EOF means the channel closed
// cleanly between frames.
func readFrame(r io.Reader, max int) (*message, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, protocolError("the channel closed inside a frame header")
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
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

func decode(body []byte) (*message, error) {
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
