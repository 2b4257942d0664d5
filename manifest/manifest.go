package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/runcode-go/runcode/registry"
)

// Manifest is a loaded, validated tool manifest. It is immutable after [Parse] or
// [Load] and safe for concurrent use; its tools run calls concurrently.
type Manifest struct {
	// File names the manifest in messages.
	File string
	// Tools are the declared tools, in file order.
	Tools []*Tool
	// Servers are the declared upstream MCP servers, by name.
	Servers map[string]*Upstream

	opts Options
}

// Tool is one declared tool: exactly one of Mock and Command is set. It must not be
// changed once its manifest is parsed.
type Tool struct {
	// Name is the model-facing name (registry rules: non-empty, at most 128 bytes, no
	// control characters, not run_code).
	Name string `json:"name"`
	// Description tells the model what the tool does.
	Description string `json:"description"`
	// Source names where the tool comes from (a server, a team); the SDK index groups
	// tools by it. Optional.
	Source string `json:"source"`
	// InputSchema is the JSON Schema of the arguments; if absent, any object.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of the value; if absent, any JSON value.
	OutputSchema json.RawMessage `json:"outputSchema"`
	// ConcurrencySafe lets calls overlap with other safe calls (default false).
	ConcurrencySafe bool `json:"concurrencySafe"`
	// Idempotent declares that a call run twice has the effect of running once, so a
	// run resumed after a crash may run a call that was in flight again (default false:
	// such a run ends interrupted instead).
	Idempotent bool `json:"idempotent"`
	// TimeoutMs is the declared deadline, enforced by the pipeline's timeout wrapper;
	// zero means none.
	TimeoutMs int `json:"timeoutMs"`
	// Mock answers calls from the manifest.
	Mock *Mock `json:"mock"`
	// Command is the program and arguments of a process started for each call.
	Command []string `json:"command"`
	// Env sets variables of a command tool's process, over those it inherits (see
	// [Options.Env]). Only with Command.
	Env map[string]string `json:"env"`
	// Approval is what a host does before a call runs: "ask" (a person approves each
	// call), "deny" (never runs) or "allow". Empty means the host's default (allow).
	Approval string `json:"approval"`
}

// Upstream is an upstream MCP server as agents' MCP config files declare it: a process
// (Command, Args, Env, Cwd) or a remote endpoint (URL, Headers). Type is optional
// (stdio, http, sse or streamable-http). It is a plain value.
type Upstream struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// StartupTimeoutMs bounds starting the server (its process start, the MCP
	// handshake and the first tool listing), in milliseconds: a server fetched by npx
	// on first use can take longer than the default. Zero means the client's default
	// (30 s).
	StartupTimeoutMs int `json:"startupTimeoutMs"`
	// Approval sets, by the tool's name as the server lists it, what a host does
	// before a call runs: "ask", "deny" or "allow" (see [Tool.Approval]). A tool not
	// named gets the host's default (runcode serve: ask for a tool annotated
	// destructiveHint, else allow).
	Approval map[string]string `json:"approval"`
}

// Options configures loading. The zero value is ready to use; Parse copies it.
type Options struct {
	// Dir is the directory relative command paths ("./x.sh") are resolved against.
	// If empty, they are left as written (relative to the process's directory).
	Dir string
	// Env is the host's environment, as KEY=value pairs (os.Environ()), from which
	// command tools inherit only the variables [InheritedEnv] names: a host's secrets
	// (runcode serve's RUNCODE_HTTP_TOKEN, cloud credentials) must not reach a program
	// through a tool that prints its environment. A tool's process gets those, then its
	// manifest env, then RUNCODE_TOOL=<name>. If nil, it inherits nothing.
	Env []string
}

// ErrInvalid is wrapped by every [Error].
var ErrInvalid = errors.New("invalid manifest")

// Error reports a manifest that cannot be used: which file, which tool (or server)
// and what is wrong. It is a plain value.
type Error struct {
	// File names the manifest.
	File string
	// Tool names the tool, or is "" for a problem with the file as a whole.
	Tool string
	// Server names the MCP server, if the problem is there.
	Server string
	// Problem says what is wrong, lower-case.
	Problem string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("manifest " + e.File)
	switch {
	case e.Tool != "":
		fmt.Fprintf(&b, ": tool %q", e.Tool)
	case e.Server != "" || e.Problem == "server name is empty":
		fmt.Fprintf(&b, ": mcpServers %q", e.Server)
	}
	b.WriteString(": " + e.Problem)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is matches [ErrInvalid].
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Load reads and parses the manifest name from fsys.
func Load(fsys fs.FS, name string, opts *Options) (*Manifest, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &Error{File: name, Problem: "cannot read the file: " + errText(err), Err: err}
	}
	return Parse(name, data, opts)
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse parses and validates a manifest's JSON text. file names it in messages. It
// rejects, before anything runs: invalid JSON, unknown fields, a schema that does not
// compile, a duplicate or reserved name, a tool with neither or both of mock and
// command, a malformed mock, and malformed MCP servers.
func Parse(file string, data []byte, opts *Options) (*Manifest, error) {
	m := &Manifest{File: file, Servers: map[string]*Upstream{}}
	if opts != nil {
		m.opts = *opts
	}
	fail := func(tool, problem string, err error) error {
		return &Error{File: file, Tool: tool, Problem: problem, Err: err}
	}
	var doc struct {
		Tools      []json.RawMessage          `json:"tools"`
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := strictDecode(data, &doc); err != nil {
		return nil, fail("", "invalid JSON: "+err.Error(), err)
	}
	if doc.Tools == nil && doc.MCPServers == nil {
		return nil, fail("", `declares no "tools" and no "mcpServers"`, nil)
	}
	scratch := registry.New() // compiles every schema and checks names
	seen := map[string]int{}
	for i, raw := range doc.Tools {
		t := &Tool{}
		if err := strictDecode(raw, t); err != nil {
			var probe struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(raw, &probe)
			return nil, fail(toolLabel(probe.Name, i), err.Error(), err)
		}
		label := toolLabel(t.Name, i)
		if t.Name == "" {
			return nil, fail(label, `has no "name"`, nil)
		}
		if j, dup := seen[t.Name]; dup {
			return nil, fail(label, fmt.Sprintf("duplicate name: tools[%d] already declares it", j), registry.ErrDuplicate)
		}
		seen[t.Name] = i
		if err := m.checkTool(t); err != nil {
			return nil, fail(label, err.Error(), err)
		}
		rt := m.registryTool(t)
		if _, err := scratch.Register(rt); err != nil {
			return nil, fail(label, registryProblem(err), err)
		}
		if t.Mock != nil && t.OutputSchema != nil {
			e, _ := mustResolve(scratch).Get(t.Name)
			if err := t.Mock.checkResults(e); err != nil {
				return nil, fail(label, err.Error(), err)
			}
		}
		m.Tools = append(m.Tools, t)
	}
	for _, name := range slices.Sorted(maps.Keys(doc.MCPServers)) {
		s := &Upstream{}
		problem := func(err error) error {
			return &Error{File: file, Server: name, Problem: err.Error(), Err: err}
		}
		if name == "" {
			return nil, problem(errors.New("server name is empty"))
		}
		if err := strictDecode(doc.MCPServers[name], s); err != nil {
			return nil, problem(err)
		}
		if err := s.check(); err != nil {
			return nil, problem(err)
		}
		m.Servers[name] = s
	}
	return m, nil
}

func toolLabel(name string, i int) string {
	if name == "" {
		return fmt.Sprintf("tools[%d]", i)
	}
	return name
}

func mustResolve(s *registry.Scope) *registry.ResolvedToolSet {
	set, _ := s.Resolve(context.Background(), registry.Step{})
	return set
}

// registryProblem turns a registration error into a manifest problem.
func registryProblem(err error) string {
	msg := err.Error()
	for _, prefix := range []string{registry.ErrInvalidTool.Error() + ": ", registry.ErrReserved.Error() + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	if errors.Is(err, registry.ErrReserved) {
		return "name \"run_code\" is reserved for the run_code transport"
	}
	// Drop the registry's own `tool "x": ` prefix: the manifest error names the tool.
	if i := strings.Index(msg, "\": "); strings.HasPrefix(msg, "tool \"") && i > 0 {
		msg = msg[i+3:]
	}
	if strings.HasPrefix(msg, "parameters: ") {
		msg = "inputSchema does not compile: " + strings.TrimPrefix(msg, "parameters: ")
	} else if strings.HasPrefix(msg, "output schema: ") {
		msg = "outputSchema does not compile: " + strings.TrimPrefix(msg, "output schema: ")
	}
	return msg
}

// checkTool validates what registration does not: the tool's kind and its options.
func (m *Manifest) checkTool(t *Tool) error {
	switch {
	case t.Mock == nil && t.Command == nil:
		return errors.New(`has neither "mock" nor "command": declare how calls are answered`)
	case t.Mock != nil && t.Command != nil:
		return errors.New(`has both "mock" and "command": declare one`)
	case t.TimeoutMs < 0:
		return fmt.Errorf("timeoutMs must not be negative, got %d", t.TimeoutMs)
	case t.Command != nil && (len(t.Command) == 0 || t.Command[0] == ""):
		return errors.New(`"command" must name a program: ["path", "arg", …]`)
	case t.InputSchema != nil && !isObject(t.InputSchema):
		return errors.New("inputSchema must be a JSON Schema object")
	case t.OutputSchema != nil && !isObject(t.OutputSchema) && !isBool(t.OutputSchema):
		return errors.New("outputSchema must be a JSON Schema object or boolean")
	}
	if err := checkApproval(t.Approval); err != nil {
		return err
	}
	if err := checkEnv(t); err != nil {
		return err
	}
	if t.Mock != nil {
		return t.Mock.check()
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func isBool(raw json.RawMessage) bool {
	s := string(bytes.TrimSpace(raw))
	return s == "true" || s == "false"
}

// check validates an MCP server declaration.
func (s *Upstream) check() error {
	switch s.Type {
	case "", "stdio", "http", "sse", "streamable-http", "streamableHttp":
	default:
		return fmt.Errorf("unknown type %q (want stdio, http, sse or streamable-http)", s.Type)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return errors.New(`needs "command" (a process) or "url" (a remote server)`)
	case s.Command != "" && s.URL != "":
		return errors.New(`has both "command" and "url": declare one`)
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return errors.New(`"args", "env" and "cwd" apply only to a "command" server`)
	case s.Command != "" && len(s.Headers) > 0:
		return errors.New(`"headers" apply only to a "url" server`)
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return fmt.Errorf("url %q must start with http:// or https://", s.URL)
	case s.StartupTimeoutMs < 0:
		return fmt.Errorf("startupTimeoutMs must not be negative, got %d", s.StartupTimeoutMs)
	}
	return s.checkApprovals()
}

// strictDecode decodes one JSON value into v, rejecting unknown fields and trailing
// data.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return cleanJSONError(err)
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// cleanJSONError makes encoding/json's messages about the manifest, not about Go.
func cleanJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf("expected %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	if errors.As(err, &te) && stringMaps[te.Field] && te.Type.Kind().String() == "string" {
		// A value inside the object, not the object itself, has the wrong type.
		return fmt.Errorf("field %q must map names to strings, not to a %s", te.Field, te.Value)
	}
	if errors.As(err, &te) {
		return fmt.Errorf("field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.HasPrefix(msg, "unknown field ") {
		return errors.New(msg)
	}
	if msg == "EOF" {
		return errors.New("the file is empty")
	}
	return errors.New(msg)
}

// stringMaps are the fields that are objects of strings.
var stringMaps = map[string]bool{"env": true, "headers": true}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "float64":
		return "a number"
	case "slice":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return k
}

// Register registers every tool of m in scope. On failure nothing stays registered.
// The returned function removes them all.
func (m *Manifest) Register(scope *registry.Scope) (dispose func(), err error) {
	var undo []func()
	dispose = func() {
		for _, d := range undo {
			d()
		}
	}
	for _, t := range m.Tools {
		d, err := scope.Register(m.registryTool(t))
		if err != nil {
			dispose()
			return nil, &Error{File: m.File, Tool: t.Name, Problem: registryProblem(err), Err: err}
		}
		undo = append(undo, d)
	}
	return dispose, nil
}

// registryTool builds the registry definition of t.
func (m *Manifest) registryTool(t *Tool) *registry.Tool {
	rt := &registry.Tool{Name: t.Name, Description: t.Description, Source: t.Source, TimeoutMs: t.TimeoutMs}
	if t.InputSchema != nil {
		rt.Parameters = registry.RawSchema(t.InputSchema)
	}
	if t.OutputSchema != nil {
		rt.Output.Schema = registry.RawSchema(t.OutputSchema)
	}
	rt.Idempotent = t.Idempotent
	if t.ConcurrencySafe {
		rt.IsConcurrencySafe = func(registry.Value) bool { return true }
	}
	if t.Mock != nil {
		mock := t.Mock
		rt.Execute = mock.execute
		rt.Output.Render = mock.render
	} else {
		c := &command{name: t.Name, argv: m.resolveArgv(t.Command), env: commandEnv(m.opts.Env, t)}
		rt.Execute = c.execute
	}
	return rt
}
