package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
)

// eval and the Function constructors hand a string built at run time to goja's parser,
// which Prepare's nesting scan never saw. They are replaced by guards that scan the source
// first and throw a catchable SyntaxError when it nests deeper than MaxNesting.
//
// eval is therefore always an indirect eval: the guard is not the intrinsic, so goja never
// compiles eval(s) as a direct call, and s runs in the global scope, as (0, eval)(s) would.
// The Function constructors keep their behaviour: call or new, subclassing, name, length,
// prototype and instanceof; Function.prototype.constructor and the async and generator
// function prototypes' constructor point at the guards. A guard builds the same source as
// goja's constructor and evaluates it with the intrinsic eval, as goja's does.
//
// GeneratorFunction is guarded only once a source with generator syntax is about to run:
// only a generator function leads to it, and building goja's generator machinery in every
// pooled VM would cost more idle memory than all the other guards together.

// funcKind is one Function constructor: its name, the source prefix goja writes before the
// parameters, and whether goja makes its prototype's constructor property writable.
type funcKind struct {
	name, prefix string
	writable     goja.Flag
}

var (
	kindFunction  = funcKind{"Function", "(function anonymous(", goja.FLAG_TRUE}
	kindAsync     = funcKind{"AsyncFunction", "(async function anonymous(", goja.FLAG_TRUE}
	kindGenerator = funcKind{"GeneratorFunction", "(function* anonymous(", goja.FLAG_FALSE}
)

// asyncProbe and generatorProbe evaluate to a function whose prototype is the async, or
// generator, function prototype.
var (
	asyncProbe     = compileOnce("probe.js", "(async () => {})")
	generatorProbe = compileOnce("probe.js", "(function* () {})")
)

// installEvalGuards replaces eval, Function and AsyncFunction with scanning guards.
func installEvalGuards(r *run) error {
	vm := r.vm
	global := vm.GlobalObject()
	evalIntrinsic, ok := goja.AssertFunction(global.Get("eval"))
	if !ok {
		return errors.New("eval is not a function")
	}
	r.in.eval = evalIntrinsic
	guard := r.native(func(call goja.FunctionCall) goja.Value {
		args := call.Arguments
		if src := call.Argument(0); goja.IsString(src) {
			if out := r.scanSource(src.String(), 0, true); out != src.String() {
				args = append([]goja.Value{vm.ToValue(out)}, args[1:]...)
			}
		}
		v, err := evalIntrinsic(goja.Undefined(), args...)
		if err != nil {
			panic(err)
		}
		return v
	}).ToObject(vm)
	r.nameFunction(guard, "eval")
	if err := global.DefineDataProperty("eval", guard, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	fnProto := r.in.errorCtor.Prototype() // Function.prototype
	f, err := r.guardFunctionKind(kindFunction, fnProto)
	if err != nil {
		return err
	}
	if err := global.DefineDataProperty("Function", f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	asyncFn, err := vm.RunProgram(asyncProbe())
	if err != nil {
		return err
	}
	_, err = r.guardFunctionKind(kindAsync, asyncFn.ToObject(vm).Prototype())
	return err
}

// scanSource throws the nesting SyntaxError if src nests too deeply, guards
// GeneratorFunction first if src has generator syntax, and returns src with its BigInt
// operators rewritten (bigint_ops.go). VM goroutine only.
func (r *run) scanSource(src string, prefix int, hashbang bool) string {
	s := nestScanner{src: src, bad: -1, prefix: prefix}
	s.run(hashbang)
	if s.bad >= 0 {
		panic(r.syntaxError(nestingMessage))
	}
	if namesOpsGlobal(withEscapesDecoded(src)) {
		panic(r.syntaxError(msgOpsGlobal))
	}
	if s.generators {
		if err := r.guardGenerators(); err != nil {
			panic(err)
		}
	}
	r.guardLazyFor(src, s.regexps) // code known only now may name them
	out, _, msg := rewriteSource(src)
	if msg != "" {
		panic(r.syntaxError(msg))
	}
	if out != src {
		r.installOps()
	}
	return out
}

// guardGenerators guards GeneratorFunction and the generator methods (guards_iter.go),
// once per VM. A program with generator syntax calls it before it runs.
func (r *run) guardGenerators() error {
	if r.generatorsGuarded {
		return nil
	}
	r.generatorsGuarded = true
	gen, err := r.vm.RunProgram(generatorProbe())
	if err != nil {
		return err
	}
	proto := gen.ToObject(r.vm).Prototype()
	r.guardGeneratorMethods(proto.Get("prototype").ToObject(r.vm))
	_, err = r.guardFunctionKind(kindGenerator, proto)
	return err
}

// guardFunctionKind installs the guard of one Function constructor, whose instances
// inherit from proto.
func (r *run) guardFunctionKind(kind funcKind, proto *goja.Object) (*goja.Object, error) {
	g := r.functionGuard(kind, proto)
	r.nameFunction(g, kind.name)
	if err := g.DefineDataProperty("prototype", proto, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
		return nil, err
	}
	if err := proto.DefineDataProperty("constructor", g, kind.writable, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return nil, err
	}
	return g, nil
}

// functionGuard is one Function constructor: it turns every argument into a string once
// (a toString that answers differently the second time cannot slip past the scan), scans
// the source goja would build from them, and evaluates it with the intrinsic eval.
func (r *run) functionGuard(kind funcKind, proto *goja.Object) *goja.Object {
	vm := r.vm
	var self *goja.Object
	self = vm.ToValue(func(call goja.ConstructorCall) *goja.Object {
		defer func() {
			if x := recover(); x != nil {
				if isGojaPanic(x) {
					panic(x)
				}
				r.fail(KindException, fmt.Sprintf("internal error: a host function panicked: %v", x))
				panic(vm.NewTypeError("run stopped"))
			}
		}()
		var src strings.Builder
		src.WriteString(kind.prefix)
		n := len(call.Arguments)
		for i, a := range call.Arguments {
			s := a.ToString()
			if _, ok := s.(*goja.Symbol); ok {
				panic(vm.NewTypeError("Cannot convert a Symbol value to a string"))
			}
			if i == n-1 {
				src.WriteString("\n) {\n")
			} else if i > 0 {
				src.WriteByte(',')
			}
			src.WriteString(s.String())
		}
		if n == 0 {
			src.WriteString("\n) {\n")
		}
		src.WriteString("\n})")
		text := r.scanSource(src.String(), len(kind.prefix), false)
		v, err := r.in.eval(goja.Undefined(), vm.ToValue(text))
		if err != nil {
			panic(err)
		}
		fn := v.ToObject(vm)
		if nt := call.NewTarget; nt != nil && nt != self {
			// A subclass's new.target: its prototype, as goja's constructor would use.
			if p, ok := nt.Get("prototype").(*goja.Object); ok && p != proto {
				_ = fn.SetPrototype(p)
			}
		}
		return fn
	}).ToObject(vm)
	return self
}

// nameFunction gives a guard its built-in's name and a length of 1.
func (r *run) nameFunction(f *goja.Object, name string) {
	_ = f.DefineDataProperty("name", r.vm.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", r.vm.ToValue(1), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// syntaxError builds a SyntaxError with msg. It takes the error object from the intrinsic
// eval of a source that cannot parse, so it is a genuine SyntaxError even if the program
// replaced the global one, and costs nothing until a guard throws.
func (r *run) syntaxError(msg string) *goja.Object {
	_, err := r.in.eval(goja.Undefined(), r.vm.ToValue("("))
	var ex *goja.Exception
	if errors.As(err, &ex) {
		if o, ok := ex.Value().(*goja.Object); ok {
			_ = o.DefineDataProperty("message", r.vm.ToValue(msg), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			return o
		}
	}
	return r.vm.NewTypeError(msg)
}
