package runtime

import (
	"errors"

	"github.com/runcode-go/runcode/internal/jsprep"
)

// Program is a prepared model program: parsed, wrapped and compiled. A Program is immutable
// and safe for concurrent use; it can be run any number of times on any pool.
type Program struct{ prg *jsprep.Program }

// TypeScript reports whether the program needed TypeScript stripping.
func (p *Program) TypeScript() bool { return p.prg.TypeScript }

// PrepareOptions configures Prepare. A nil *PrepareOptions means the defaults. Prepare
// reads it and keeps no reference.
type PrepareOptions struct {
	// MaxBytes bounds the program text. Zero means 1 MiB.
	MaxBytes int
	// Namespaces names the globals whose members return promises (tools, say), for
	// Warnings: a call of one whose value is used without await is warned about.
	// Prepare and References ignore it. Nil means none.
	Namespaces []string
}

func (o *PrepareOptions) maxBytes() int {
	if o == nil {
		return 0
	}
	return o.MaxBytes
}

// Prepare turns model code (the body of an async function, JavaScript or TypeScript) into a
// Program. It parses the code as plain JavaScript first and strips TypeScript with esbuild
// only when that fails, so plain programs never pay for esbuild. A program that is too large
// or does not parse is reported as a *Failure of kind exception, whose message carries the
// line, the column and the offending line of the model's own text. Prepare is safe for
// concurrent use.
func Prepare(code string, opts *PrepareOptions) (*Program, error) {
	prg, err := jsprep.Prepare(code, opts.maxBytes())
	if err != nil {
		return nil, prepFailure(err)
	}
	return &Program{prg}, nil
}

// prepFailure is the *Failure of a program jsprep refused.
func prepFailure(err error) error {
	var f *jsprep.Failure
	if errors.As(err, &f) {
		return &Failure{Kind: KindException, Message: f.Message}
	}
	return err
}

// Reference is an access to a member of a global in a program. Line and Column
// (1-based) point at the member's name in the model's own text, or for a dynamic
// access at the global's (or its alias's) name. A Reference is a plain value.
type Reference struct {
	// Member is the member's name; empty for a dynamic access.
	Member       string
	Line, Column int
	// Dynamic reports an access whose member is not known statically: global[expr],
	// a rest pattern (const { ...rest } = global), or the global used as a value any
	// other way (passed to a function, enumerated, spread).
	Dynamic bool
}

// References checks code as Prepare does and lists, in source order, the program's
// accesses to members of global: global.name, global["name"] (or a template literal
// without substitutions), through optional chaining and aliases (const t = global), and
// destructuring (const { name, "other": o } = global). Any other use of global or an alias
// is a dynamic access; the static members are complete only when there is none. A
// parameter or local named global hides it in its scope (aliases are followed by name).
// A program that does not parse fails as in Prepare. It is for tools that check programs
// (runcode check), not for the run path.
func References(code, global string, opts *PrepareOptions) ([]Reference, error) {
	refs, err := jsprep.References(code, global, opts.maxBytes())
	if err != nil {
		return nil, prepFailure(err)
	}
	var out []Reference
	for _, r := range refs {
		out = append(out, Reference(r))
	}
	return out, nil
}

// Warning is a pattern in a program that works but is likely to be slow. A Warning is a
// plain value.
type Warning struct {
	Line, Column int
	Message      string
}

// Warnings checks code as Prepare does and lists, in source order, what works but is
// likely a mistake or slow: a call of a member of one of opts.Namespaces whose value is
// read without await (tools.get(…).total, or const r = tools.get(…); r.total); and
// `s += …` in a loop on a string declared with a literal or template (quadratic under
// goja). A parameter or local named like a namespace hides it. A program that does not
// parse fails as in Prepare. Like References, it is not for the run path.
func Warnings(code string, opts *PrepareOptions) ([]Warning, error) {
	var globals []string
	if opts != nil {
		globals = opts.Namespaces
	}
	ws, err := jsprep.Warnings(code, globals, opts.maxBytes())
	if err != nil {
		return nil, prepFailure(err)
	}
	var out []Warning
	for _, w := range ws {
		out = append(out, Warning(w))
	}
	return out, nil
}

// Suggest returns the name in names nearest to s, when it is near enough to be a
// plausible typo: at most a third of the longer name's length in edits (at least one),
// counting insertions, deletions, substitutions and swaps of neighbours, case ignored
// ("gerp" is one edit from "grep"). It returns "" when nothing is that near.
func Suggest(s string, names []string) string { return jsprep.Suggest(s, names) }
