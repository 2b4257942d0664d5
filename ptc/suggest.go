package ptc

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/internal/jsontext"
	"github.com/runcode-go/runcode/internal/jsshape"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// Suggested scripts (docs/run_code.md, "Suggested scripts"): a session remembers the
// shapes of its programs that ended ok, and a run whose program has the shape of an
// earlier ok one, with some literal that differed, suggests saving it as a script
// whose input is those literals.
const (
	// SuggestTTL is how long a session remembers the shapes of its programs after its
	// last run that ended ok.
	SuggestTTL = 7 * 24 * time.Hour
	// MaxSuggestShapes bounds the shapes a session remembers; past it, the one seen
	// longest ago is forgotten.
	MaxSuggestShapes = 32
	// maxShapeLiterals bounds the literals of a program whose shape is remembered (a
	// program with more holds data, not a procedure).
	maxShapeLiterals = 1024
)

// kindShapes keys, in a store, the shapes of a session's programs; the key is the
// session's name.
const kindShapes = "shapes"

// ScriptSuggestion suggests saving a run's program as a script: the program ended ok
// in an earlier run of the session with the same shape (jsshape.Of) and other
// values for some of its literals, which become the script's input. A
// ScriptSuggestion is a plain value.
type ScriptSuggestion struct {
	// Name is a script name (1 to 64 of a-z, 0-9 and _) made from the run_code call's
	// description, or from the tools the program called.
	Name string `json:"name"`
	// Description is the run_code call's, as the starting point of the script's.
	Description string `json:"description"`
	// InputSchema is an object schema with a required property per literal that
	// differed, typed string, number or boolean, in source order.
	InputSchema json.RawMessage `json:"inputSchema"`
	// Input is this run's values for it: calling the script with it does what this
	// run did.
	Input json.RawMessage `json:"input"`
	// Code is the program with each literal that differed replaced by input.<name>
	// (for a TypeScript program, the JavaScript it strips to). Empty when it could not
	// be made (esbuild put helpers before the program).
	Code string `json:"code,omitempty"`
}

// Script is the script the suggestion describes, to save with SaveScript.
func (s *ScriptSuggestion) Script() Script {
	return Script{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema, Code: s.Code}
}

// shapes is what the store keeps of a session's programs, the one seen longest ago
// first.
type shapes struct {
	Shapes []seenShape `json:"shapes"`
}

// seenShape is one program shape: its hash, a short hash of each literal's JSON in
// the latest run (the values themselves are not kept), and the indices of the
// literals that differed between any two of its runs.
type seenShape struct {
	Hash     string   `json:"h"`
	Literals []string `json:"l"`
	Varies   []int    `json:"v,omitempty"`
}

// suggest notes the shape of a program that ended ok in a run of s's session and
// returns the suggestion to save it, or nil: when the run has no session, the
// program's shape is new to the session or its literals never differed, or the store
// failed (a suggestion never fails a run).
func (e *Executor) suggest(ctx context.Context, s *sessionState, code, description string, calls []*bindings.SubCall) (sug *ScriptSuggestion) {
	if s == nil {
		return nil
	}
	defer func() {
		if recover() != nil { // a bug here must not fail a run that went well
			sug = nil
		}
	}()
	shape, err := jsshape.Of(code, e.o.ProgramBytes)
	if err != nil || len(shape.Literals) > maxShapeLiterals {
		return nil
	}
	lits := make([]string, len(shape.Literals))
	for i, l := range shape.Literals {
		sum := sha256.Sum256([]byte(l.JSON))
		lits[i] = base64.RawURLEncoding.EncodeToString(sum[:6])
	}
	ctx = context.WithoutCancel(ctx)
	var varies []int
	for range 3 { // another run of the session wrote in between: read again
		varies, err = e.noteShape(ctx, s.Session, shape.Hash, lits)
		if !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	if err != nil || len(varies) == 0 {
		return nil
	}
	return suggestion(shape, varies, description, calls)
}

// noteShape records the shape hash with its literals' hashes in the session's shapes
// and returns the indices of its literals that have differed between its runs.
func (e *Executor) noteShape(ctx context.Context, session, hash string, lits []string) ([]int, error) {
	var rec shapes
	var version int64
	switch r, err := e.store.Get(ctx, kindShapes, session); {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		if json.Unmarshal(r.Data, &rec) != nil {
			rec = shapes{} // unreadable: start again
		}
		version = r.Version
	}
	seen := seenShape{Hash: hash, Literals: lits}
	if i := slices.IndexFunc(rec.Shapes, func(s seenShape) bool { return s.Hash == hash }); i >= 0 {
		old := rec.Shapes[i]
		seen.Varies = old.Varies
		if len(old.Literals) == len(lits) {
			for j := range lits {
				if old.Literals[j] != lits[j] && !slices.Contains(seen.Varies, j) {
					seen.Varies = append(seen.Varies, j)
				}
			}
		}
		slices.Sort(seen.Varies)
		rec.Shapes = slices.Delete(rec.Shapes, i, i+1)
	}
	rec.Shapes = append(rec.Shapes, seen)
	if n := len(rec.Shapes) - MaxSuggestShapes; n > 0 {
		rec.Shapes = rec.Shapes[n:]
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if _, err := e.store.Put(ctx, store.Record{Kind: kindShapes, Key: session, Data: data, Expires: e.now().Add(SuggestTTL)}, version); err != nil {
		return nil, err
	}
	return seen.Varies, nil
}

// suggestion is the script that takes shape's literals at varies as its input.
func suggestion(shape *jsshape.Shape, varies []int, description string, calls []*bindings.SubCall) *ScriptSuggestion {
	used := map[string]bool{}
	unnamed := 0
	with := map[int]string{}
	var words []string // of the values that vary: a name made from the description leaves them out
	schema := []byte(`{"type":"object","properties":{`)
	input := []byte{'{'}
	var required []byte
	for n, i := range varies {
		l := shape.Literals[i]
		name := identifier(l.Name)
		if name == "" {
			for {
				unnamed++
				name = "value" + strconv.Itoa(unnamed)
				if !used[name] {
					break
				}
			}
		}
		if used[name] { // {city: "a"} and {city: "b"}: city and city2
			k := 2
			for used[name+strconv.Itoa(k)] {
				k++
			}
			name += strconv.Itoa(k)
		}
		used[name] = true
		with[i] = "input." + name
		typ := "number"
		switch l.JSON[0] {
		case '"':
			typ = "string"
		case 't', 'f':
			typ = "boolean"
		}
		value := l.JSON
		if typ == "string" {
			value = jsontext.Unquote(l.JSON)
		}
		words = append(words, nameWords(value)...)
		if n > 0 {
			schema, input, required = append(schema, ','), append(input, ','), append(required, ',')
		}
		schema = append(jsontext.AppendString(schema, name), `:{"type":"`+typ+`"}`...)
		input = append(append(jsontext.AppendString(input, name), ':'), l.JSON...)
		required = jsontext.AppendString(required, name)
	}
	schema = append(append(append(schema, `},"required":[`...), required...), "]}"...)
	s := &ScriptSuggestion{Name: suggestName(description, words, calls), Description: description,
		InputSchema: schema, Input: append(input, '}'), Code: shape.Replace(with)}
	if s.Code != "" {
		if _, err := runtime.Prepare(s.Code, nil); err != nil {
			s.Code = "" // not expected; a suggestion that does not run is worse than none
		}
	}
	return s
}

// identifier is the name a literal's context gives it as an identifier: the
// characters that cannot be in one become _, and a name that is left without a letter
// or that begins with a digit is none.
func identifier(name string) string {
	b := []byte(name)
	letter := false
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_' || c == '$':
		default:
			b[i] = '_'
		}
	}
	if !letter || b[0] >= '0' && b[0] <= '9' {
		return ""
	}
	return string(b)
}

// stopWords are left out of a name made from a description.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "for": true, "in": true, "on": true, "at": true, "to": true,
	"from": true, "by": true, "with": true, "and": true, "or": true, "into": true, "about": true, "is": true,
	"are": true, "my": true, "our": true, "their": true, "its": true, "this": true, "that": true, "these": true, "those": true,
}

// suggestName makes a script name (validScriptName's rule) from the description's words,
// less stop words and the words of the values that vary (a description says "weather
// for Paris", the script is for any city), or else from the names of the tools the
// program called, or else "script".
func suggestName(description string, values []string, calls []*bindings.SubCall) string {
	var words []string
	for _, w := range nameWords(description) {
		if !stopWords[w] && !slices.Contains(values, w) {
			words = append(words, w)
		}
	}
	if name := joinName(words); name != "" {
		return name
	}
	words = nil
	for _, c := range calls {
		for _, w := range nameWords(c.Name) {
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
	}
	if name := joinName(words); name != "" {
		return name
	}
	return "script"
}

// nameWords are the runs of a-z and 0-9 in s, lowered.
func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
}

// joinName joins words with _ up to 64 bytes, the longest a script's name may be.
func joinName(words []string) string {
	name := ""
	for _, w := range words {
		switch {
		case name == "":
			name = w[:min(len(w), 64)]
		case len(name)+1+len(w) <= 64:
			name += "_" + w
		default:
			return name
		}
	}
	return name
}
