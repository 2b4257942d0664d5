package manifest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// Mock answers calls without a back end: one [MockAnswer] for every call, or Cases
// matched against the arguments with a Default. It is read-only once parsed, so its
// tool may be called from many goroutines at once.
type Mock struct {
	MockAnswer
	// Cases are tried in order: the first whose Args are a subset of the call's
	// arguments answers.
	Cases []Case
	// Default answers when no case matches; without it the call fails with
	// "no mock case matches".
	Default *MockAnswer
}

// MockAnswer is one mock answer: exactly one of Result, Echo and Error, optionally with
// Content (beside Result or Echo) and DelayMs.
type MockAnswer struct {
	// Result is the canonical value (JSON text; null is a value).
	Result json.RawMessage `json:"result"`
	// Echo makes the call's arguments the value.
	Echo bool `json:"echo"`
	// Error makes the call fail with this message.
	Error *string `json:"error"`
	// Content is the rendered content, MCP-style blocks; if nil, the value rendered
	// as text (a string raw, anything else as indented JSON).
	Content []registry.Content `json:"content"`
	// DelayMs delays the answer, honouring cancellation.
	DelayMs int `json:"delayMs"`

	value registry.Value // Result, parsed by check
}

// Case is an answer for calls whose arguments include Args.
type Case struct {
	MockAnswer
	Args registry.Value `json:"args"`
}

// UnmarshalJSON decodes a mock strictly: an answer, or cases with a default.
func (m *Mock) UnmarshalJSON(data []byte) error {
	var raw struct {
		MockAnswer
		Cases   []json.RawMessage `json:"cases"`
		Default json.RawMessage   `json:"default"`
	}
	if err := strictDecode(data, &raw); err != nil {
		return fmt.Errorf("mock: %w", err)
	}
	m.MockAnswer = raw.MockAnswer
	for i, c := range raw.Cases {
		var k Case
		if err := strictDecode(c, &k); err != nil {
			return fmt.Errorf("mock.cases[%d]: %w", i, err)
		}
		m.Cases = append(m.Cases, k)
	}
	if raw.Cases != nil && m.Cases == nil {
		m.Cases = []Case{}
	}
	if raw.Default != nil {
		m.Default = &MockAnswer{}
		if err := strictDecode(raw.Default, m.Default); err != nil {
			return fmt.Errorf("mock.default: %w", err)
		}
	}
	return nil
}

// check validates the mock's forms.
func (m *Mock) check() error {
	if m.Cases == nil && m.Default == nil {
		return m.MockAnswer.check("mock")
	}
	if m.MockAnswer.given() {
		return errors.New(`mock: "cases"/"default" cannot be combined with a top-level answer; put it in "default"`)
	}
	if m.Cases == nil {
		return errors.New(`mock: "default" needs "cases"; without cases, write the answer directly`)
	}
	for i := range m.Cases {
		c := &m.Cases[i]
		if c.Args.IsZero() || c.Args.Kind() != "object" {
			return fmt.Errorf(`mock.cases[%d]: "args" must be an object (the arguments a call must include)`, i)
		}
		if err := c.MockAnswer.check(fmt.Sprintf("mock.cases[%d]", i)); err != nil {
			return err
		}
	}
	if m.Default != nil {
		return m.Default.check("mock.default")
	}
	return nil
}

func (a *MockAnswer) given() bool {
	return a.Result != nil || a.Echo || a.Error != nil || a.Content != nil || a.DelayMs != 0
}

func (a *MockAnswer) check(at string) error {
	n := 0
	for _, set := range []bool{a.Result != nil, a.Echo, a.Error != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return fmt.Errorf(`%s: needs one of "result", "echo": true or "error"`, at)
	case n > 1:
		return fmt.Errorf(`%s: "result", "echo" and "error" are exclusive; give one`, at)
	case a.Error != nil && a.Content != nil:
		return fmt.Errorf(`%s: "content" goes with "result" or "echo", not "error"`, at)
	case a.DelayMs < 0:
		return fmt.Errorf("%s: delayMs must not be negative, got %d", at, a.DelayMs)
	}
	if a.Result != nil {
		v, err := registry.ParseValue(a.Result)
		if err != nil {
			return fmt.Errorf("%s: result: %w", at, err)
		}
		a.value = v
	}
	for i, c := range a.Content {
		if err := checkBlock(c); err != nil {
			return fmt.Errorf("%s.content[%d]: %w", at, i, err)
		}
	}
	return nil
}

func checkBlock(c registry.Content) error {
	switch c.Type {
	case "text":
		return nil
	case "image", "audio":
		if c.MIMEType == "" {
			return fmt.Errorf("an %s block needs a mimeType", c.Type)
		}
		if _, err := base64.StdEncoding.DecodeString(c.Data); err != nil || c.Data == "" {
			return fmt.Errorf("an %s block needs base64 data", c.Type)
		}
		return nil
	case "resource":
		if c.URI == "" {
			return errors.New("a resource block needs a uri")
		}
		return nil
	}
	return fmt.Errorf("unknown block type %q (want text, image, audio or resource)", c.Type)
}

// checkResults validates every mock result against the tool's output schema.
func (m *Mock) checkResults(e *registry.Entry) error {
	check := func(at string, a *MockAnswer) error {
		if a == nil || a.Result == nil {
			return nil
		}
		if v := e.ValidateOutput(a.value); v != nil {
			return fmt.Errorf("%s: result does not match outputSchema: %v", at, v)
		}
		return nil
	}
	if err := check("mock", &m.MockAnswer); err != nil {
		return err
	}
	for i := range m.Cases {
		if err := check(fmt.Sprintf("mock.cases[%d]", i), &m.Cases[i].MockAnswer); err != nil {
			return err
		}
	}
	return check("mock.default", m.Default)
}

// ErrNoCase is the failure of a mock call that no case matches and that has no default.
var ErrNoCase = errors.New("no mock case matches")

// answer picks the answer for args.
func (m *Mock) answer(args registry.Value) (*MockAnswer, error) {
	if m.Cases == nil {
		return &m.MockAnswer, nil
	}
	var got any
	if err := json.Unmarshal(args.Bytes(), &got); err != nil {
		return nil, err
	}
	for i := range m.Cases {
		var want any
		if err := json.Unmarshal(m.Cases[i].Args.Bytes(), &want); err != nil {
			return nil, err
		}
		if subset(want, got) {
			return &m.Cases[i].MockAnswer, nil
		}
	}
	if m.Default != nil {
		return m.Default, nil
	}
	return nil, ErrNoCase
}

// subset reports whether want is included in got: objects key by key (recursively),
// anything else by equality.
func subset(want, got any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		return string(wb) == string(gb)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, w := range wm {
		g, ok := gm[k]
		if !ok || !subset(w, g) {
			return false
		}
	}
	return true
}

// execute is the mock tool's body.
func (m *Mock) execute(ctx context.Context, call *registry.Call) (any, error) {
	a, err := m.answer(call.Args)
	if err != nil {
		return nil, err
	}
	if a.DelayMs > 0 {
		t := time.NewTimer(time.Duration(a.DelayMs) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-t.C:
		}
	}
	switch {
	case a.Error != nil:
		return nil, errors.New(*a.Error)
	case a.Echo:
		return call.Args, nil
	}
	return a.value, nil
}

// render gives the answer's content blocks, or the value as text.
func (m *Mock) render(args, value registry.Value) ([]registry.Content, error) {
	if a, err := m.answer(args); err == nil && a.Content != nil {
		return append([]registry.Content(nil), a.Content...), nil
	}
	if value.Kind() == "string" {
		var s string
		if err := value.Decode(&s); err != nil {
			return nil, err
		}
		return []registry.Content{registry.Text(s)}, nil
	}
	return []registry.Content{registry.Text(string(registry.Indent(value)))}, nil
}
