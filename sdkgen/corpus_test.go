package sdkgen

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/runcode-go/runcode/internal/testfs"
)

// corpusDir holds tool schemas as real MCP servers publish them, one file per server,
// and programs written against each server's SDK in a directory of the same name.
const corpusDir = "../testdata/schemas"

type corpusServer struct {
	name     string
	tools    []Tool
	native   []byte // the tools' schemas as sent natively
	programs map[string]string
}

func loadCorpus(t testing.TB) []corpusServer {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus under %s: %v", corpusDir, err)
	}
	var out []corpusServer
	for _, f := range files {
		s := corpusServer{name: strings.TrimSuffix(filepath.Base(f), ".json"), tools: decodeTools(t, testfs.Read(t, f)), programs: map[string]string{}}
		var native []map[string]any
		for _, m := range s.tools {
			native = append(native, map[string]any{"name": m.Name, "description": m.Description, "parameters": m.Parameters})
		}
		if s.native, err = json.Marshal(native); err != nil {
			t.Fatal(err)
		}
		progs, _ := filepath.Glob(filepath.Join(corpusDir, s.name, "*.ts"))
		for _, p := range progs {
			s.programs[filepath.Base(p)] = testfs.Read(t, p)
		}
		out = append(out, s)
	}
	return out
}

var wantLine = regexp.MustCompile(`(?m)^// want: (TS\d+)`)

// TestTypeCheck checks, with the real TypeScript compiler (tsc --noEmit --strict, one
// invocation for everything): every golden SDK; each corpus server's SDK with its
// programs, where ok_*.ts must type-check and bad_*.ts must fail with the codes their
// "// want:" lines name; and SDKs for a sample of random schemas, which must
// type-check too.
func TestTypeCheck(t *testing.T) {
	tsc := findTSC(t)
	var projects []tsProject
	goldens, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range goldens {
		data := testfs.Read(t, file)
		name := "golden-" + strings.TrimSuffix(filepath.Base(file), ".txtar")
		projects = append(projects, tsProject{name: name, sdk: Render(decodeTools(t, parseArchive(data).files["tools.json"])).Declarations})
	}
	corpus := loadCorpus(t)
	for _, s := range corpus {
		projects = append(projects, tsProject{name: "corpus-" + s.name, sdk: Render(s.tools).Declarations, programs: s.programs})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 4 {
		var tools []Tool
		for j := range 25 {
			tools = append(tools, Tool{Name: "t" + strconv.Itoa(j), Parameters: randomSchema(rng, 4), Output: randomSchema(rng, 4)})
		}
		for _, seed := range fuzzSeeds {
			tools = append(tools, Tool{Name: "seed" + strconv.Itoa(len(tools)), Parameters: json.RawMessage(seed)})
		}
		projects = append(projects, tsProject{name: "random-" + strconv.Itoa(i), sdk: Render(tools).Declarations})
	}

	// The fuzz corpus's kept inputs, as tools.
	var kept []Tool
	files, _ := filepath.Glob("testdata/fuzz/FuzzRender/*")
	for _, f := range files {
		data := testfs.Read(t, f)
		var args []string
		for _, line := range strings.Split(data, "\n")[1:] {
			if v, ok := strings.CutPrefix(line, "string("); ok {
				if u, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
					args = append(args, u)
				}
			}
		}
		if len(args) == 3 {
			kept = append(kept, Tool{Name: args[0], Description: args[1], Parameters: json.RawMessage(args[2]), Output: json.RawMessage(args[2])})
		}
	}
	projects = append(projects, tsProject{name: "fuzz-kept", sdk: Render(kept).Declarations})
	projects = append(projects, inferredProject(t))
	echo := decodeTools(t, parseArchive(testfs.Read(t, "testdata/echo.txtar")).files["tools.json"])
	for _, budget := range []int{-1, 1} { // the full SDK and the index
		projects = append(projects, tsProject{name: "globals-" + strconv.Itoa(budget),
			sdk: Section(echo, &Options{Budget: budget, State: true, SaveScripts: true}).Declarations,
			programs: map[string]string{
				"ok_globals.ts": `const seen = state.get("seen");
state.set("seen", [1, 2, { three: "3" }]);
const keys: string[] = state.keys();
const gone: boolean = state.delete("old");
const saved = await scripts.$save({ name: "double", description: "Doubles n.", inputSchema: { type: "object", properties: { n: { type: "number" } } }, code: "return input.n * 2" });
const tool: string = saved.tool;
return [seen, keys, gone, tool];`,
				"bad_globals.ts": `// want: TS2345
state.set("k", undefined);`,
			}})
	}

	// The canary must fail: it proves tsc checked every project up to the last.
	diags := typeCheck(t, tsc, append(projects, tsProject{name: "zz-canary", sdk: "const canary: number = \"x\"\n"}))
	if c := diags["zz-canary"]["sdk.ts"]; len(c) != 1 || c[0].code != "TS2322" {
		t.Fatalf("tsc did not report the canary's error (got %v): the checks cannot be trusted", c)
	}
	for _, p := range projects {
		t.Run(p.name, func(t *testing.T) {
			got := diags[p.name]
			for _, d := range got["sdk.ts"] {
				t.Errorf("the SDK does not type-check: %s %s", d.code, d.text)
			}
			if t.Failed() {
				t.Logf("SDK:\n%s", p.sdk)
			}
			for _, name := range slices.Sorted(func(yield func(string) bool) {
				for n := range p.programs {
					if !yield(n) {
						return
					}
				}
			}) {
				want := wantLine.FindAllStringSubmatch(p.programs[name], -1)
				var codes []string
				for _, d := range got[name] {
					codes = append(codes, d.code)
				}
				if len(want) == 0 && len(got[name]) > 0 {
					t.Errorf("%s: should type-check, got %v", name, got[name])
				}
				if len(want) > 0 && !strings.HasPrefix(name, "bad_") || len(want) == 0 && !strings.HasPrefix(name, "ok_") {
					t.Errorf("%s: ok_ programs have no want line and bad_ programs have one", name)
				}
				for _, w := range want {
					if !slices.Contains(codes, w[1]) {
						t.Errorf("%s: want error %s, got %v", name, w[1], got[name])
					}
				}
			}
		})
	}
}

// TestCorpusFallbacks pins that every corpus tool renders with no fallback at all,
// and reports the SDK's size against the same tools' schemas as sent natively (name,
// description, parameters): the argument declarations alone must be smaller; the
// whole SDK also declares every output and the fixed frame, which native mode never
// sends.
func TestCorpusFallbacks(t *testing.T) {
	frame := len(Render(nil).Declarations)
	var tools, exact, sdkBytes, argBytes, nativeBytes int
	for _, s := range loadCorpus(t) {
		sdk := Render(s.tools)
		bad := map[string]bool{}
		for _, f := range sdk.Fallbacks {
			bad[f.Tool] = true
			t.Errorf("%s: %s %s %q: %s", s.name, f.Tool, f.Schema, f.Path, f.Reason)
		}
		argsOnly := slices.Clone(s.tools)
		for i := range argsOnly {
			argsOnly[i].Output = nil
		}
		args := len(Render(argsOnly).Declarations) - frame
		for _, tool := range argsOnly {
			args -= len("  " + key(tool.Name) + ": JsonValue;\n") // its ToolOutputMap entry
		}
		tools += len(s.tools)
		exact += len(s.tools) - len(bad)
		sdkBytes += len(sdk.Declarations)
		argBytes += args
		nativeBytes += len(s.native)
		t.Logf("%-10s %2d tools: native schemas %5d bytes; SDK arguments %5d (%.2f), whole SDK %5d (%.2f)",
			s.name, len(s.tools), len(s.native), args, float64(args)/float64(len(s.native)), len(sdk.Declarations), float64(len(sdk.Declarations))/float64(len(s.native)))
	}
	t.Logf("corpus: %d of %d tools render with no fallback; native %d bytes, SDK arguments %d (%.2f), whole SDK with outputs and frame %d (%.2f)",
		exact, tools, nativeBytes, argBytes, float64(argBytes)/float64(nativeBytes), sdkBytes, float64(sdkBytes)/float64(nativeBytes))
	if argBytes >= nativeBytes {
		t.Errorf("the SDK's argument declarations (%d bytes) are not smaller than the native schemas (%d bytes)", argBytes, nativeBytes)
	}
}

// randomSchema returns a random JSON Schema-like document of bounded depth, mixing
// keywords real schemas use with malformed values.
func randomSchema(rng intn, depth int) json.RawMessage {
	data, _ := json.Marshal(randomNode(rng, depth))
	return data
}

// intn is the randomness randomNode needs: a *rand.Rand, or a fuzzer's bytes.
type intn interface{ IntN(n int) int }

func randomNode(rng intn, depth int) any {
	if depth == 0 || rng.IntN(6) == 0 {
		switch rng.IntN(8) {
		case 0:
			return true
		case 1:
			return false
		case 2:
			return map[string]any{"type": []any{"string", "null"}}
		case 3:
			return map[string]any{"enum": []any{"a", 1.5, nil, true, map[string]any{"k*/": "v"}}}
		case 4:
			return map[string]any{"$ref": "#/$defs/D" + strconv.Itoa(rng.IntN(3))}
		case 5:
			return map[string]any{"const": []any{"x\u2028", -0.0}}
		}
		return map[string]any{"type": []string{"string", "number", "integer", "boolean", "null", "bogus"}[rng.IntN(6)]}
	}
	n := map[string]any{}
	switch rng.IntN(6) {
	case 0:
		props := map[string]any{}
		for i := range rng.IntN(4) {
			props[[]string{"a", "my-key", "*/", "9", "class", "x y"}[rng.IntN(6)]+strconv.Itoa(i)] = randomNode(rng, depth-1)
		}
		n["type"] = "object"
		n["properties"] = props
		n["required"] = []any{"a0", "zz", 3}
		if rng.IntN(2) == 0 {
			n["additionalProperties"] = randomNode(rng, depth-1)
		}
	case 1:
		n["type"] = "array"
		n["items"] = randomNode(rng, depth-1)
	case 2:
		n["prefixItems"] = []any{randomNode(rng, depth-1), randomNode(rng, depth-1)}
		n["minItems"] = rng.IntN(3)
	case 3:
		n["anyOf"] = []any{randomNode(rng, depth-1), randomNode(rng, depth-1)}
	case 4:
		n["allOf"] = []any{randomNode(rng, depth-1), randomNode(rng, depth-1)}
		n["nullable"] = true
	case 5:
		n["$ref"] = "#/$defs/D" + strconv.Itoa(rng.IntN(3))
	}
	n["description"] = "d */ \n x"
	if depth >= 3 {
		n["$defs"] = map[string]any{"D0": randomNode(rng, 1), "D1": map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/D1"}, map[string]any{"type": "null"}}}, "D2": randomNode(rng, 2)}
	}
	return n
}

// inferredProject is an SDK whose output types were learned from results (Shape),
// with programs that use them: every shape a result can give must type-check.
func inferredProject(t *testing.T) tsProject {
	results := map[string][]string{
		"profile": {`{"id": 7, "name": "Ada"}`, `{"id": 8, "name": "Bob", "email": "b@x", "tags": ["a"]}`},
		"rows":    {`[{"sku": "A", "qty": 1, "note": null}, {"sku": "B", "qty": 2, "note": "x"}]`, `[]`},
		"mixed":   {`"text"`, `42`, `{"ok": true}`},
		"wide":    {`{"a-b": {"x y": [[1, 2], [3]]}, "class": 1, "\u0000": true}`},
		"many":    {`1`, `"x"`, `true`, `[1]`},
		"deep":    {strings.Repeat(`{"x":`, 12) + "1" + strings.Repeat("}", 12)},
	}
	var tools []Tool
	for _, name := range slices.Sorted(maps.Keys(results)) {
		var sh Shape
		for _, r := range results[name] {
			if _, err := sh.Observe([]byte(r)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		tools = append(tools, Tool{Name: name, Output: sh.Schema(), Inferred: len(results[name])})
	}
	return tsProject{name: "inferred", sdk: Render(tools).Declarations, programs: map[string]string{
		"ok_inferred.ts": `const p = await tools.profile({});
const id: number = p.id;
const email: string | undefined = p.email;
const tag: string | undefined = p.tags?.[0];
const rows = await tools.rows({});
const total = rows.reduce((n, r) => n + r.qty, 0);
const note: string | null = rows[0].note;
const m = await tools.mixed({});
if (typeof m === "object") { const ok: boolean = m.ok; }
const w = await tools.wide({});
const cell: number = w["a-b"]["x y"][0][1];
return [id, email, tag, total, note, cell];`,
		"bad_inferred.ts": `const p = await tools.profile({});
// want: TS2322
const name: number = p.name;`,
	}}
}
