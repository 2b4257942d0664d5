package genkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/runcode-go/runcode/registry"
)

// ToolOptions configures [Tool] and [Register]. Nil means every default.
type ToolOptions struct {
	// Source names where the tools come from (registry.Tool.Source), which the SDK
	// index groups tools by. Empty means "genkit".
	Source string
	// TimeoutMs is each tool's declared deadline (registry.Tool.TimeoutMs). Zero means
	// none.
	TimeoutMs int
	// ConcurrencySafe lets calls of the tools overlap with other parallel-safe calls.
	// False (the default) runs each call alone, since a Genkit tool says nothing about
	// its side effects.
	ConcurrencySafe bool
}

// Tool turns a Genkit tool (what genkit.DefineTool, genkit.DefineMultipartTool and
// ai.NewTool return) into a runcode tool, so that a run_code program (or a model,
// under modes native and both) can call it through the pipeline. Its definition gives
// the name, the description, the parameters (the input schema; none means any object)
// and, but for a multipart tool, the output schema, which the pipeline checks the
// output against and the SDK declares.
//
// A call passes its arguments, validated and canonical, as the tool's input; the
// tool's output is the value, and a multipart tool's content follows the value's text:
// text parts as text, media parts with a base64 data URL as images (or audio), other
// media as a line naming its URL. A Go error fails the call with its message. A Genkit
// interrupt (ai.ToolContext.Interrupt) fails the call too, saying what it asked:
// runcode asks a person before a call (a pre-execute hook answering pipeline.Ask),
// not from inside one.
func Tool(t ai.Tool, opts *ToolOptions) (*registry.Tool, error) {
	if t == nil {
		return nil, errors.New("genkit: Tool: nil tool")
	}
	var o ToolOptions
	if opts != nil {
		o = *opts
	}
	if o.Source == "" {
		o.Source = "genkit"
	}
	def := t.Definition()
	if def == nil || def.Name == "" {
		return nil, fmt.Errorf("genkit: Tool: %T has no name in its definition", t)
	}
	rt := &registry.Tool{Name: def.Name, Description: def.Description, Source: o.Source, TimeoutMs: o.TimeoutMs}
	var err error
	if rt.Parameters, err = schema(def.InputSchema); err != nil {
		return nil, fmt.Errorf("genkit: tool %q: input schema: %w", def.Name, err)
	}
	// A multipart tool's definition declares the schema of the whole response
	// (output and content), not of its output, which is the value here.
	if multipart, _ := def.Metadata["multipart"].(bool); !multipart {
		if rt.Output.Schema, err = schema(def.OutputSchema); err != nil {
			return nil, fmt.Errorf("genkit: tool %q: output schema: %w", def.Name, err)
		}
	}
	if o.ConcurrencySafe {
		rt.IsConcurrencySafe = func(registry.Value) bool { return true }
	}
	rt.Execute = func(ctx context.Context, call *registry.Call) (any, error) {
		resp, err := t.RunRawMultipart(ctx, call.Args.Any())
		if err != nil {
			if ok, meta := ai.IsToolInterruptError(err); ok {
				data, _ := json.Marshal(meta)
				return nil, fmt.Errorf("tool %q interrupted to ask for input (%s), which runcode does not carry out of a tool call; make it ask before the call (a pipeline pre-execute hook answering Ask)", def.Name, data)
			}
			return nil, err
		}
		if resp == nil {
			return nil, nil
		}
		if len(resp.Content) == 0 {
			return resp.Output, nil
		}
		return answer(resp)
	}
	return rt, nil
}

// schema is a Genkit JSON Schema map as a registry schema; nil or empty is the zero
// schema.
func schema(m map[string]any) (registry.Schema, error) {
	if len(m) == 0 {
		return registry.Schema{}, nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return registry.Schema{}, err
	}
	return registry.RawSchema(data), nil
}

// answer is a multipart response as a runcode answer: the output as the value, and
// content of the value's text (a string as itself, anything else as indented JSON)
// followed by the parts.
func answer(resp *ai.MultipartToolResponse) (registry.Answer, error) {
	var content []registry.Content
	switch out := resp.Output.(type) {
	case nil:
	case string:
		if out != "" {
			content = append(content, registry.Text(out))
		}
	default:
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return registry.Answer{}, fmt.Errorf("output is not JSON: %v", err)
		}
		content = append(content, registry.Text(string(data)))
	}
	for _, p := range resp.Content {
		switch {
		case p.IsText():
			if p.Text != "" {
				content = append(content, registry.Text(p.Text))
			}
		case p.IsMedia():
			content = append(content, mediaContent(p))
		default:
			content = append(content, registry.Text(fmt.Sprintf("[%s part omitted]", kindName(p))))
		}
	}
	return registry.Answer{Value: resp.Output, Content: content}, nil
}

// mediaContent is a media part as content: a base64 data URL of an image or audio as
// such, anything else as a line naming it.
func mediaContent(p *ai.Part) registry.Content {
	mime := p.ContentType
	if rest, ok := strings.CutPrefix(p.Text, "data:"); ok {
		if head, data, ok := strings.Cut(rest, ","); ok && strings.HasSuffix(head, ";base64") {
			if mime == "" {
				mime = strings.TrimSuffix(head, ";base64")
			}
			switch {
			case strings.HasPrefix(mime, "image/"):
				return registry.Content{Type: "image", Data: data, MIMEType: mime}
			case strings.HasPrefix(mime, "audio/"):
				return registry.Content{Type: "audio", Data: data, MIMEType: mime}
			}
		}
		return registry.Text(fmt.Sprintf("[media of type %q omitted]", mime))
	}
	return registry.Text(fmt.Sprintf("[media %s at %s]", mime, p.Text))
}

// kindName names a part's kind for a line saying it was left out.
func kindName(p *ai.Part) string {
	switch {
	case p.IsData():
		return "data"
	case p.IsToolRequest():
		return "tool request"
	case p.IsToolResponse():
		return "tool response"
	case p.IsReasoning():
		return "reasoning"
	case p.IsCustom():
		return "custom"
	}
	return "unknown"
}

// Register turns each of tools into a runcode tool with [Tool] and registers it in
// scope. It registers all or none: on an error it disposes of what it registered.
// dispose removes them all.
func Register(scope *registry.Scope, tools []ai.Tool, opts *ToolOptions) (dispose func(), err error) {
	var undo []func()
	dispose = func() {
		for _, d := range undo {
			d()
		}
	}
	for _, t := range tools {
		rt, err := Tool(t, opts)
		if err != nil {
			dispose()
			return nil, err
		}
		d, err := scope.Register(rt)
		if err != nil {
			dispose()
			return nil, fmt.Errorf("genkit: Register: %w", err)
		}
		undo = append(undo, d)
	}
	return dispose, nil
}
