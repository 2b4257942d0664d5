package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/runcode-go/runcode/registry"
)

// pausedBatchFormat names the encoding of a PausedBatch; a change that an older
// decoder would misread gets a new name.
const pausedBatchFormat = "runcode.paused-batch/v1"

// PausedBatch is a model turn's calls with their results, one per call in order, at
// least one of them paused: what a host keeps to answer the turn later, in another
// process or on another replica, with [ResumeBatch] and an executor that shares the
// paused runs' store (ptc.Options.Store). Its JSON encoding is versioned and decoded
// strictly.
//
// The encoding holds the calls' arguments and the finished calls' results, tool output
// included, so it is as sensitive as the conversation it belongs to. It does not hold
// a ToolError's cause (Err), which a loaded result lacks, nor any authority: a
// continuation is checked by the store that issued it (signed, expiring, single-use),
// so a batch saved twice resumes each run once.
type PausedBatch struct {
	// Host names what saved the batch (an adapter and its API, "anthropic",
	// "openai.chat"), so that what loads it can refuse another's. Empty means none.
	Host    string
	Calls   []RawCall
	Results []*Result
	// Extra is what else the host needs to answer the turn (JSON, the host's own
	// encoding), or nil.
	Extra json.RawMessage
}

type savedBatch struct {
	Format  string          `json:"format"`
	Host    string          `json:"host,omitempty"`
	Calls   []savedCall     `json:"calls"`
	Results []savedResult   `json:"results"`
	Extra   json.RawMessage `json:"extra,omitempty"`
}

type savedCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Agent     string `json:"agent,omitempty"`
}

type savedResult struct {
	CallID string `json:"callId"`
	Name   string `json:"name"`
	// Value is absent for the zero Value, so that a JSON null value stays one.
	Value    json.RawMessage    `json:"value,omitempty"`
	Content  []registry.Content `json:"content"`
	Error    *savedError        `json:"error,omitempty"`
	Contexts []savedContext     `json:"contexts,omitempty"`
	Pause    *Pause             `json:"pause,omitempty"`
}

type savedError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

type savedContext struct {
	Source  string             `json:"source"`
	CallID  string             `json:"callId,omitempty"`
	Tool    string             `json:"tool,omitempty"`
	Content []registry.Content `json:"content"`
}

// MarshalJSON encodes the batch. It fails on a batch that [PausedBatch.UnmarshalJSON]
// would refuse, so that what is saved can be loaded.
func (b PausedBatch) MarshalJSON() ([]byte, error) {
	out := savedBatch{Format: pausedBatchFormat, Host: b.Host, Extra: b.Extra, Calls: make([]savedCall, len(b.Calls)), Results: make([]savedResult, len(b.Results))}
	for i, c := range b.Calls {
		out.Calls[i] = savedCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Agent: c.Agent}
	}
	for i, r := range b.Results {
		if r == nil {
			return nil, fmt.Errorf("pipeline: PausedBatch: result %d is nil", i)
		}
		s := savedResult{CallID: r.CallID, Name: r.Name, Content: r.Content, Pause: r.Pause}
		if !r.Value.IsZero() {
			s.Value = r.Value.Bytes()
		}
		if r.Error != nil {
			s.Error = &savedError{Code: r.Error.Code, Message: r.Error.Message}
		}
		for _, c := range r.Contexts {
			s.Contexts = append(s.Contexts, savedContext{Source: c.Source, CallID: c.CallID, Tool: c.Tool, Content: c.Content})
		}
		out.Results[i] = s
	}
	if err := out.check(); err != nil {
		return nil, fmt.Errorf("pipeline: PausedBatch: %w", err)
	}
	return json.Marshal(out)
}

// UnmarshalJSON decodes a batch that MarshalJSON encoded. It refuses, naming what is
// wrong, another format, unknown fields, a result that does not answer its call, an
// unknown content type, a malformed pause, and a batch with nothing paused.
func (b *PausedBatch) UnmarshalJSON(data []byte) error {
	var in savedBatch
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&in); err != nil {
		return fmt.Errorf("pipeline: PausedBatch: %w", err)
	}
	if d.More() {
		return errors.New("pipeline: PausedBatch: data after the batch")
	}
	if in.Format != pausedBatchFormat {
		return fmt.Errorf("pipeline: PausedBatch: format %q, want %q", in.Format, pausedBatchFormat)
	}
	if err := in.check(); err != nil {
		return fmt.Errorf("pipeline: PausedBatch: %w", err)
	}
	// The JSON carried as is comes back compact, as MarshalJSON writes it.
	in.Extra = compact(in.Extra)
	for _, r := range in.Results {
		if r.Pause != nil {
			for i := range r.Pause.Pending {
				r.Pause.Pending[i].Arguments = compact(r.Pause.Pending[i].Arguments)
			}
		}
	}
	out := PausedBatch{Host: in.Host, Extra: in.Extra, Calls: make([]RawCall, len(in.Calls)), Results: make([]*Result, len(in.Results))}
	for i, c := range in.Calls {
		out.Calls[i] = RawCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Agent: c.Agent}
	}
	for i, s := range in.Results {
		r := &Result{CallID: s.CallID, Name: s.Name, Content: s.Content, Pause: s.Pause}
		if s.Value != nil {
			v, err := registry.ParseValue(s.Value)
			if err != nil {
				return fmt.Errorf("pipeline: PausedBatch: result %d: value: %w", i, err)
			}
			r.Value = v
		}
		if s.Error != nil {
			r.Error = &ToolError{Code: s.Error.Code, Message: s.Error.Message}
		}
		for _, c := range s.Contexts {
			r.Contexts = append(r.Contexts, AdditionalContext{Source: c.Source, CallID: c.CallID, Tool: c.Tool, Content: c.Content})
		}
		out.Results[i] = r
	}
	*b = out
	return nil
}

// LoadPausedBatch decodes a batch that host saved (PausedBatch.Host): what an adapter's
// LoadPaused does first. It fails on data that is not a batch and on another host's.
func LoadPausedBatch(data []byte, host string) (*PausedBatch, error) {
	var b PausedBatch
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, err
	}
	if b.Host != host {
		return nil, fmt.Errorf("pipeline: PausedBatch: saved by %q, not by %q", b.Host, host)
	}
	return &b, nil
}

// check is what both directions require of a batch.
func (b *savedBatch) check() error {
	if len(b.Calls) != len(b.Results) {
		return fmt.Errorf("%d results for %d calls", len(b.Results), len(b.Calls))
	}
	paused := false
	ids := map[string]bool{}
	for i, r := range b.Results {
		c := b.Calls[i]
		switch {
		case c.ID == "":
			return fmt.Errorf("call %d has no id", i)
		case r.CallID != c.ID || r.Name != c.Name:
			return fmt.Errorf("result %d answers %s %q, not call %q (%s)", i, r.Name, r.CallID, c.ID, c.Name)
		case r.Error != nil && (r.Error.Code == "" || r.Pause != nil || r.Value != nil):
			return fmt.Errorf("result %d: a failed result has a code and neither a value nor a pause", i)
		}
		if err := checkContent(r.Content); err != nil {
			return fmt.Errorf("result %d: %w", i, err)
		}
		for _, x := range r.Contexts {
			if err := checkContent(x.Content); err != nil {
				return fmt.Errorf("result %d: context from %q: %w", i, x.Source, err)
			}
		}
		if r.Pause == nil {
			continue
		}
		paused = true
		if r.Pause.Continuation == "" || len(r.Pause.Pending) == 0 {
			return fmt.Errorf("result %d: a pause has a continuation and at least one pending call", i)
		}
		for _, p := range r.Pause.Pending {
			if p.ID == "" || p.Tool == "" || !json.Valid(p.Arguments) {
				return fmt.Errorf("result %d: pending call %q: it has an id, a tool and JSON arguments", i, p.ID)
			}
			if ids[p.ID] {
				return fmt.Errorf("result %d: pending call %q appears twice in the batch", i, p.ID)
			}
			ids[p.ID] = true
		}
	}
	if !paused {
		return errors.New("no result is paused")
	}
	return nil
}

// compact returns valid JSON text without insignificant space (nil for nil).
func compact(data json.RawMessage) json.RawMessage {
	if data == nil {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return data // not reached: check and the decoder have validated it
	}
	return b.Bytes()
}

func checkContent(content []registry.Content) error {
	for _, c := range content {
		switch c.Type {
		case "text", "image", "audio", "resource":
		default:
			return fmt.Errorf("content of type %q, want text, image, audio or resource", c.Type)
		}
	}
	return nil
}
