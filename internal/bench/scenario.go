package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/runcode-go/runcode/registry"
)

// scenarioFormat is the only scenario format runcode bench reads
// (docs/benchmarks.md; the S1-S7 set is in bench/scenarios/).
const scenarioFormat = "codemode-bench-scenario/v1"

// scenario is one scenario file.
type scenario struct {
	Format      string `json:"format"`
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Mode        string `json:"mode"`
	Iterations  struct {
		Warmup   *int `json:"warmup"`
		Measured *int `json:"measured"`
	} `json:"iterations"`
	Sandboxes int            `json:"sandboxes"`
	Tools     []scenarioTool `json:"tools"`
	Code      *string        `json:"code"`
	Expect    *struct {
		Result json.RawMessage `json:"result"`
		Logs   []string        `json:"logs"`
	} `json:"expect"`

	warmup, measured int // from Iterations, after overrides
}

type scenarioTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Behavior    struct {
		Type  string `json:"type"`
		Ms    *int   `json:"ms"`
		Count *int   `json:"count"`
	} `json:"behavior"`
}

var jsIdentifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// readScenario reads and checks one scenario file. Errors name the file.
func readScenario(path string) (*scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read the scenario: %v", path, err)
	}
	sc, err := parseScenario(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return sc, nil
}

// parseScenario decodes a scenario and checks it against the format: unknown fields,
// another format, a missing or bad field are all rejected.
func parseScenario(data []byte) (*scenario, error) {
	var sc scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("not a scenario: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a scenario: text after the JSON object")
	}
	if sc.Format != scenarioFormat {
		return nil, fmt.Errorf("format is %q; runcode bench reads only %q", sc.Format, scenarioFormat)
	}
	if sc.ID == "" {
		return nil, errors.New("id is missing")
	}
	switch sc.Mode {
	case "warm", "cold", "memory":
	default:
		return nil, fmt.Errorf("%s: mode is %q; want warm, cold or memory", sc.ID, sc.Mode)
	}
	switch it := sc.Iterations; {
	case it.Warmup == nil || it.Measured == nil:
		return nil, fmt.Errorf("%s: iterations needs warmup and measured", sc.ID)
	case *it.Warmup < 0:
		return nil, fmt.Errorf("%s: iterations.warmup must not be negative, got %d", sc.ID, *it.Warmup)
	case *it.Measured < 1:
		return nil, fmt.Errorf("%s: iterations.measured must be at least 1, got %d", sc.ID, *it.Measured)
	}
	sc.warmup, sc.measured = *sc.Iterations.Warmup, *sc.Iterations.Measured
	if sc.Mode == "memory" && sc.Sandboxes < 1 {
		return nil, fmt.Errorf("%s: memory mode needs sandboxes of at least 1, got %d", sc.ID, sc.Sandboxes)
	}
	if sc.Code == nil {
		return nil, fmt.Errorf("%s: code is missing", sc.ID)
	}
	if sc.Expect == nil || sc.Expect.Logs == nil || sc.Expect.Result == nil {
		return nil, fmt.Errorf("%s: expect needs result and logs", sc.ID)
	}
	seen := map[string]bool{}
	for i, t := range sc.Tools {
		if !jsIdentifier.MatchString(t.Name) {
			return nil, fmt.Errorf("%s: tools[%d].name %q is not a JavaScript identifier", sc.ID, i, t.Name)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: tool %q is declared twice", sc.ID, t.Name)
		}
		seen[t.Name] = true
		b := t.Behavior
		switch b.Type {
		case "echo":
		case "sleep":
			if b.Ms == nil || *b.Ms < 0 {
				return nil, fmt.Errorf("%s: tool %q: behavior sleep needs ms of at least 0", sc.ID, t.Name)
			}
		case "rows":
			if b.Count == nil || *b.Count < 0 {
				return nil, fmt.Errorf("%s: tool %q: behavior rows needs count of at least 0", sc.ID, t.Name)
			}
		default:
			return nil, fmt.Errorf("%s: tool %q: behavior type %q; want echo, sleep or rows", sc.ID, t.Name, b.Type)
		}
	}
	return &sc, nil
}

// check compares a run's output with the scenario's expect: JSON deep equality of the
// result (unless expect.result is null) and of the logs.
func (sc *scenario) check(value json.RawMessage, logs []string) error {
	if string(bytes.TrimSpace(sc.Expect.Result)) != "null" {
		if len(value) == 0 {
			value = json.RawMessage("null") // undefined becomes null
		}
		var got, want any
		if err := json.Unmarshal(value, &got); err != nil {
			return fmt.Errorf("%s: the result is not JSON: %v", sc.ID, err)
		}
		if err := json.Unmarshal(sc.Expect.Result, &want); err != nil {
			return fmt.Errorf("%s: expect.result is not JSON: %v", sc.ID, err)
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("%s: expect failed: result is %s, want %s", sc.ID, clip(value), clip(sc.Expect.Result))
		}
	}
	if logs == nil {
		logs = []string{}
	}
	if !reflect.DeepEqual(logs, sc.Expect.Logs) {
		g, _ := json.Marshal(logs)
		w, _ := json.Marshal(sc.Expect.Logs)
		return fmt.Errorf("%s: expect failed: logs are %s, want %s", sc.ID, clip(g), clip(w))
	}
	return nil
}

func clip(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// runProgram is the program text of run n (1-based): the scenario's code with a comment
// unique to the run, so that no compile cache can make a later run cheaper.
func (sc *scenario) runProgram(n int) string {
	return *sc.Code + "\n//# run " + fmt.Sprint(n)
}

// benchTools holds the host side of a scenario's tools.
type benchTools struct {
	calls atomic.Int64 // host calls answered (every tool, every run)
}

// register registers the scenario's tools in scope: every one concurrency-safe, its
// arguments validated against its inputSchema by the pipeline.
func (bt *benchTools) register(scope *registry.Scope, sc *scenario) error {
	for _, t := range sc.Tools {
		tool := &registry.Tool{
			Name:              t.Name,
			Description:       t.Description,
			IsConcurrencySafe: func(registry.Value) bool { return true },
		}
		if len(t.InputSchema) > 0 {
			tool.Parameters = registry.RawSchema(t.InputSchema)
		}
		switch b := t.Behavior; b.Type {
		case "echo":
			tool.Execute = bt.echo
		case "sleep":
			tool.Execute = bt.sleep(time.Duration(*b.Ms) * time.Millisecond)
		case "rows":
			v, text, err := rowsValue(*b.Count)
			if err != nil {
				return err
			}
			// The JSON text is built once per process and handed over as an upstream
			// answer's content; the runtime converts it into a fresh value on every call.
			answer := registry.Answer{Value: v, Content: []registry.Content{registry.Text(text)}}
			tool.Execute = func(context.Context, *registry.Call) (any, error) {
				bt.calls.Add(1)
				return answer, nil
			}
		}
		if _, err := scope.Register(tool); err != nil {
			return fmt.Errorf("%s: tool %q: %v", sc.ID, t.Name, err)
		}
	}
	return nil
}

// echo answers with the arguments, as an upstream server's JSON text would.
func (bt *benchTools) echo(_ context.Context, call *registry.Call) (any, error) {
	bt.calls.Add(1)
	return registry.Answer{Value: call.Args, Content: []registry.Content{registry.Text(call.Args.String())}}, nil
}

// sleep answers with the arguments after a timer (never a blocked thread per call beyond
// the body's goroutine): concurrent calls overlap.
func (bt *benchTools) sleep(d time.Duration) func(context.Context, *registry.Call) (any, error) {
	return func(ctx context.Context, call *registry.Call) (any, error) {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		}
		bt.calls.Add(1)
		return registry.Answer{Value: call.Args, Content: []registry.Content{registry.Text(call.Args.String())}}, nil
	}
}

// orderRow is one row of behavior rows, fields in the order of the format.
type orderRow struct {
	ID         int    `json:"id"`
	Category   string `json:"category"`
	Region     string `json:"region"`
	PriceCents int    `json:"priceCents"`
	Qty        int    `json:"qty"`
	Active     bool   `json:"active"`
	Created    string `json:"created"`
}

var (
	rowCategories = []string{"books", "electronics", "garden", "grocery", "toys"}
	rowRegions    = []string{"us-east", "us-west", "eu-west", "eu-central", "ap-south", "ap-east", "sa-east"}
)

// rowsJSON is the JSON text of count rows made by the format's formula.
func rowsJSON(count int) []byte {
	rows := make([]orderRow, count)
	for i := range rows {
		rows[i] = orderRow{
			ID:         i + 1,
			Category:   rowCategories[i%5],
			Region:     rowRegions[(i*3)%7],
			PriceCents: 100 + (i*7919)%99900,
			Qty:        (i * 31) % 50,
			Active:     i%3 != 0,
			Created:    fmt.Sprintf("2024-%02d-%02d", 1+i%12, 1+i%28),
		}
	}
	data, err := json.Marshal(rows)
	if err != nil {
		panic(err) // ints, bools and ASCII strings always marshal
	}
	return data
}

var rowsCache sync.Map // count -> *rowsEntry

type rowsEntry struct {
	once sync.Once
	v    registry.Value
	text string
	err  error
}

// rowsValue returns the rows of count as a registry value and as JSON text, built once per
// process.
func rowsValue(count int) (registry.Value, string, error) {
	e, _ := rowsCache.LoadOrStore(count, &rowsEntry{})
	ent := e.(*rowsEntry)
	ent.once.Do(func() {
		data := rowsJSON(count)
		ent.v, ent.err = registry.ParseValue(data)
		ent.text = ent.v.String()
	})
	return ent.v, ent.text, ent.err
}

// describeScenario is the run_code description argument of a run.
func describeScenario(sc *scenario, n int) string {
	return strings.TrimSpace(fmt.Sprintf("bench %s %s, run %d", sc.ID, sc.Name, n))
}
