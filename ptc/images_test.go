package ptc

import (
	"context"
	"reflect"
	goruntime "runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// imageTool returns a tool "shot" whose every call renders a text and one PNG of size
// bytes of base64, a new string per call (made by data), like read_file on a large
// workspace image.
func imageTool(size int, data func(n int) string) *registry.Tool {
	if data == nil {
		blob := strings.Repeat("A", size)
		data = func(int) string { return blob }
	}
	n := 0
	return &registry.Tool{Name: "shot",
		Execute: func(context.Context, *registry.Call) (any, error) { n++; return n, nil },
		Output: registry.Output{Render: func(_, v registry.Value) ([]registry.Content, error) {
			var i int
			if err := v.Decode(&i); err != nil {
				return nil, err
			}
			return []registry.Content{registry.Text("<path>shot.png</path>"), {Type: "image", MIMEType: "image/png", Data: data(i)}}, nil
		}}}
}

// attached counts the image blocks of contexts and their bytes of base64.
func attached(contexts []pipeline.AdditionalContext) (images, bytes int) {
	for _, c := range contexts {
		for _, b := range c.Content {
			if b.Type == "image" {
				images++
				bytes += len(b.Data)
			}
		}
	}
	return images, bytes
}

// TestImageBudget: a run attaches images in call order up to its image budget (bytes
// of base64 and a count); the images past it are left out, the text says how many,
// from which sub-call on and why, and a failed run's contexts are bounded the same way.
// A 3 MiB image read thirty times under the default 16 MiB keeps five; read 200 times
// the run fails at its heap budget (the records hold 512 MiB) and still keeps five.
func TestImageBudget(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name       string
		size       int
		opts       Options
		code       string
		wantImages int
		wantText   string
	}{
		{name: "ok run, default byte budget", size: 3 * mib,
			code:       `for (let i = 0; i < 30; i++) await tools.shot({}); return "read 30"`,
			wantImages: 5,
			wantText:   "read 30\n[25 of 30 images left out, from sub-call call-1:code:6 (shot) on: a run's images may take at most 16 MiB of base64 data; read fewer or smaller images per run]"},
		{name: "failed run, memory-limit", size: 3 * mib,
			code:       `for (let i = 0; i < 200; i++) await tools.shot({}); return "never"`,
			wantImages: 5,
			wantText:   "Error: code run failed (memory-limit): heap limit of 512 MiB exceeded by the arguments and results of its tool calls\n[166 of 171 images left out, from sub-call call-1:code:6 (shot) on: a run's images may take at most 16 MiB of base64 data; read fewer or smaller images per run]"},
		{name: "failed run, exception", size: 3 * mib,
			code:       `for (let i = 0; i < 7; i++) await tools.shot({}); console.log("done"); throw new Error("later")`,
			wantImages: 5,
			wantText:   "Error: code run failed (exception): Error: later\n    at program.js:1:78\nCaptured output:\ndone\n[2 of 7 images left out, from sub-call call-1:code:6 (shot) on: a run's images may take at most 16 MiB of base64 data; read fewer or smaller images per run]"},
		{name: "default count cap", size: 100,
			code:       `for (let i = 0; i < 30; i++) await tools.shot({})`,
			wantImages: DefaultMaxImages,
			wantText:   "(run_code completed with no output)\n[10 of 30 images left out, from sub-call call-1:code:21 (shot) on: a run attaches at most 20 images; read fewer images per run]"},
		{name: "executor's budgets", size: 1000, opts: Options{MaxImageBytes: 2500, MaxImages: 5},
			code:       `for (let i = 0; i < 4; i++) await tools.shot({}); return "x"`,
			wantImages: 2,
			wantText:   "x\n[2 of 4 images left out, from sub-call call-1:code:3 (shot) on: a run's images may take at most 2500 bytes of base64 data; read fewer or smaller images per run]"},
		{name: "one image left out", size: 1000, opts: Options{MaxImageBytes: 1 << 10},
			code:       `await tools.shot({}); await tools.shot({})`,
			wantImages: 1,
			wantText:   "(run_code completed with no output)\n[1 of 2 images left out, from sub-call call-1:code:2 (shot) on: a run's images may take at most 1 KiB of base64 data; read fewer or smaller images per run]"},
		{name: "within the budget", size: 1000,
			code:       `await tools.shot({}); await tools.shot({}); return "two"`,
			wantImages: 2, wantText: "two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.Events = nil // events would keep every image's content
			e.ptc = tt.opts
			e.register(imageTool(tt.size, nil))
			res, rep := e.run(context.Background(), tt.code)
			if got := resultText(res); got != tt.wantText {
				t.Errorf("text:\n%s\nwant:\n%s", got, tt.wantText)
			}
			images, bytes := attached(res.Contexts)
			if images != tt.wantImages || bytes != tt.wantImages*tt.size {
				t.Errorf("%d images (%d bytes) attached, want %d (%d bytes)", images, bytes, tt.wantImages, tt.wantImages*tt.size)
			}
			if diff := cmp.Diff(res.Contexts, rep.Contexts); diff != "" {
				t.Errorf("the report's contexts are not the result's (-result +report):\n%s", diff)
			}
			if rep.ImagesLeftOut != len(rep.Calls)-tt.wantImages {
				t.Errorf("report: %d images left out, want %d", rep.ImagesLeftOut, len(rep.Calls)-tt.wantImages)
			}
			// The records of the sub-calls past the budget no longer hold their images.
			for i, c := range rep.Calls {
				images, _ := attached([]pipeline.AdditionalContext{{Content: c.Result.Content}})
				want := 1
				if i >= tt.wantImages {
					want = 0
				}
				if images != want {
					t.Errorf("record of %s holds %d images, want %d", c.ID, images, want)
				}
			}
		})
	}
}

// TestImagesLeftOutAreReleased: once a run is over, neither its result nor its report
// keeps the data of the images it left out alive (only the attached ones).
func TestImagesLeftOutAreReleased(t *testing.T) {
	e := newEnv(t)
	e.opts.Events = nil
	e.ptc.MaxImages = 2
	var data []weak.Pointer[byte]
	e.register(imageTool(0, func(n int) string {
		s := strings.Repeat(string(rune('A'+n)), 1<<16)
		data = append(data, weak.Make(unsafe.StringData(s)))
		return s
	}))
	res, rep := e.run(context.Background(), `for (let i = 0; i < 6; i++) await tools.shot({})`)
	goruntime.GC()
	goruntime.GC()
	var live []int
	for i, p := range data {
		if p.Value() != nil {
			live = append(live, i+1)
		}
	}
	if diff := cmp.Diff([]int{1, 2}, live); diff != "" {
		t.Errorf("image data still alive, by sub-call (-want +got):\n%s", diff)
	}
	goruntime.KeepAlive(res)
	goruntime.KeepAlive(rep)
}

// TestImageBudgetPolicyContexts: images a post-execute policy attached to a sub-call
// count against the same budget, in call order with the sub-calls' own images.
func TestImageBudgetPolicyContexts(t *testing.T) {
	e := newEnv(t)
	png := registry.Content{Type: "image", MIMEType: "image/png", Data: strings.Repeat("B", 100)}
	e.opts.PostExecute = []pipeline.PostExecuteFunc{func(_ context.Context, c *pipeline.Call, _ *pipeline.Result) (pipeline.PostAction, error) {
		if c.Name != "echo" {
			return pipeline.PostAction{}, nil
		}
		return pipeline.PostAction{Contexts: []pipeline.AdditionalContext{{Source: "screenshots", Content: []registry.Content{registry.Text("screen"), png}}}}, nil
	}}
	e.ptc.MaxImages = 2
	e.register(echoTool(), imageTool(100, nil))
	res, _ := e.run(context.Background(), `await tools.echo({text: "a"}); await tools.shot({}); await tools.echo({text: "b"})`)
	want := []pipeline.AdditionalContext{
		{Source: "screenshots", CallID: "call-1:code:1", Tool: "echo", Content: []registry.Content{registry.Text("screen"), png}},
		{Source: "run_code", CallID: "call-1:code:2", Tool: "shot", Content: []registry.Content{registry.Text("<path>shot.png</path>"), {Type: "image", MIMEType: "image/png", Data: strings.Repeat("A", 100)}}},
		{Source: "screenshots", CallID: "call-1:code:3", Tool: "echo", Content: []registry.Content{registry.Text("screen")}},
	}
	if diff := cmp.Diff(want, res.Contexts); diff != "" {
		t.Errorf("contexts (-want +got):\n%s", diff)
	}
	if got, want := resultText(res), "(run_code completed with no output)\n[1 of 3 images left out, from sub-call call-1:code:3 (echo) on: a run attaches at most 2 images; read fewer images per run]"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

func TestImageBudgetOptions(t *testing.T) {
	pool := newPool(t, 1)
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{MaxImageBytes: -1}, "ptc: MaxImageBytes must not be negative, got -1"},
		{Options{MaxImages: -2}, "ptc: MaxImages must not be negative, got -2"},
	} {
		tt.opts.Pool = pool
		if _, err := New(pipeline.New(nil), &tt.opts); err == nil || err.Error() != tt.want {
			t.Errorf("New(%+v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

// TestLeanRecordCopiesEveryField: a record rebuilt without its left-out images
// (leanRecord) carries every exported field of bindings.SubCall; a field added there
// must be copied here too.
func TestLeanRecordCopiesEveryField(t *testing.T) {
	typ := reflect.TypeFor[bindings.SubCall]()
	var exported []string
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() {
			exported = append(exported, f.Name)
		}
	}
	want := []string{"ID", "Name", "Args", "Result", "NeverStarted", "AbandonedRunning", "Duration", "Replayed"}
	if diff := cmp.Diff(want, exported); diff != "" {
		t.Errorf("bindings.SubCall's fields changed: copy them in leanRecord (-copied +exported):\n%s", diff)
	}
	c := &bindings.SubCall{ID: "c:code:1", Name: "shot", Args: registry.MustParseValue(`{"a":1}`), Result: &pipeline.Result{CallID: "c:code:1"},
		NeverStarted: true, AbandonedRunning: true, Duration: 3, Replayed: true}
	got := leanRecord(c, nil, nil)
	if got.ID != c.ID || got.Name != c.Name || got.Args.String() != c.Args.String() || !got.NeverStarted || !got.AbandonedRunning || got.Duration != 3 || !got.Replayed || got.Result.CallID != "c:code:1" || got.Result == c.Result {
		t.Errorf("leanRecord(%+v) = %+v", c, got)
	}
}
