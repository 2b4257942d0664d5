package runtime

import (
	"math"
	"math/big"
	"strings"
	"unicode"

	"github.com/dop251/goja"
)

// BigInt, guarded lazily (see lazyObjectFamilies). goja's BigInt arithmetic is Go's
// math/big inside one native call:
//   - BigInt(string) parses in time quadratic in the digits: strings of more than
//     maxBigIntDigits characters are refused with a SyntaxError before parsing, whichever
//     way BigInt gets them (directly, or from an object's valueOf or toString, converted
//     once by the guard);
//   - BigInt.prototype.toString and toLocaleString take time of order n^1.56 in the bits:
//     over maxBigIntStringBits, the RangeError V8 gives for a BigInt over its size limit;
//   - BigInt.asUintN and asIntN build 2 ** bits whatever their argument: for bits over the
//     budget the guard computes the result without it (x itself, when x fits), and refuses
//     only a result that is itself over the budget.
// The operators **, << and >> are VM instructions that no wrapper reaches; code is
// rewritten so that their operands are checked first (bigint_ops.go). The implicit
// conversions between strings and BigInts (==, <, + '', template literals) are
// instructions too, and still compute without bound in one step (BENCHMARKS.md,
// "BigInt"): only a process boundary (runtime/worker) bounds them.

// maxBigIntDigits bounds the characters of a string converted by BigInt().
const maxBigIntDigits = 100_000

// maxBigIntStringBits bounds the BigInts that toString converts (2.5 million decimal
// digits), under a second of native work.
const maxBigIntStringBits = 1 << 23

// msgBigIntSize is V8's message for a BigInt over its size limit.
const msgBigIntSize = "Maximum BigInt size exceeded"

// maxBigIntBits bounds a BigInt a guard lets be built: V8's own limit (2 ** 30 bits), and
// no more than a quarter of the run's heap budget.
func (r *run) maxBigIntBits() int64 { return min(1<<30, r.limits.HeapBytes*2) }

// guardBigInt guards BigInt, its statics and its prototype's toString, once per VM.
func (r *run) guardBigInt() {
	vm := r.vm
	g := vm.GlobalObject()
	orig, ok := g.Get("BigInt").(*goja.Object)
	if !ok {
		return
	}
	call, ok := goja.AssertFunction(orig)
	if !ok {
		return
	}
	r.objects.bigint = call
	proto, _ := orig.Get("prototype").(*goja.Object)
	// The guard is a bound function of a proxy around the original: it keeps
	// Function.prototype.toString's text, and new still throws goja's own TypeError.
	inner := vm.NewProxy(orig, &goja.ProxyTrapConfig{
		Apply: func(_ *goja.Object, this goja.Value, args []goja.Value) (v goja.Value) {
			defer r.recoverTrap()
			if len(args) > 0 {
				args = append([]goja.Value{r.bigintCallArg(args[0])}, args[1:]...)
			}
			return r.callOriginal(call, this, args...)
		},
		GetSym: r.hasInstanceTrap,
	})
	bound, err := r.objects.bind(vm.ToValue(inner), goja.Undefined())
	if err != nil {
		panic(err)
	}
	b := bound.ToObject(vm)
	b.Delete("length") // BigInt's own keys start with name, then length
	r.nameFunction(b, "BigInt")
	_ = b.DefineDataProperty("prototype", proto, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	for _, name := range []string{"asIntN", "asUintN"} {
		_ = b.DefineDataProperty(name, orig.Get(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		r.guardCall(b, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
			return r.asN(name == "asIntN", call, orig)
		})
	}
	if proto != nil {
		_ = proto.DefineDataProperty("constructor", b, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		for _, name := range []string{"toString", "toLocaleString"} {
			r.guardCall(proto, name, func(call goja.FunctionCall, orig goja.Callable) goja.Value {
				if x, ok := call.This.Export().(*big.Int); ok && x.BitLen() > maxBigIntStringBits {
					panic(r.rangeError(msgBigIntSize))
				}
				return r.callOriginal(orig, call.This, call.Arguments...)
			})
		}
	}
	_ = g.DefineDataProperty("BigInt", b, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// bigintCallArg converts BigInt's argument once, as goja does (ToNumeric for an object:
// its primitive, as a number unless it is a BigInt), and refuses a string too long to
// parse.
func (r *run) bigintCallArg(v goja.Value) goja.Value {
	if o, ok := v.(*goja.Object); ok {
		v = r.toPrimitiveNumber(o)
		if _, ok := v.Export().(*big.Int); !ok {
			return v.ToNumber()
		}
		return v
	}
	return r.bigintArg(v)
}

// bigintArg converts an argument goja's ToBigInt will convert, once (an object to a
// primitive with hint number), and refuses a string too long to parse.
func (r *run) bigintArg(v goja.Value) goja.Value {
	if o, ok := v.(*goja.Object); ok {
		v = r.toPrimitiveNumber(o)
	}
	if s, ok := v.(goja.String); ok && s.Length() > maxBigIntDigits {
		if n := len(strings.TrimFunc(s.String(), isJSSpace)); n > maxBigIntDigits {
			panic(r.syntaxError("Cannot convert a string of more than 100000 digits to a BigInt"))
		}
	}
	return v
}

func isJSSpace(c rune) bool { return unicode.IsSpace(c) || c == '\uFEFF' }

// toPrimitiveNumber is goja's ToPrimitive(o, number): Symbol.toPrimitive, then valueOf,
// then toString, each read and called once.
func (r *run) toPrimitiveNumber(o *goja.Object) goja.Value {
	vm := r.vm
	if ex := o.GetSymbol(goja.SymToPrimitive); ex != nil && !goja.IsUndefined(ex) && !goja.IsNull(ex) {
		fn, ok := goja.AssertFunction(ex)
		if !ok {
			panic(vm.NewTypeError("%s is not a method", ex.String()))
		}
		v, err := fn(o, vm.ToValue("number"))
		if err != nil {
			panic(err)
		}
		if _, ok := v.(*goja.Object); ok {
			panic(vm.NewTypeError("Cannot convert object to primitive value"))
		}
		return v
	}
	for _, name := range []string{"valueOf", "toString"} {
		if fn, ok := goja.AssertFunction(o.Get(name)); ok {
			v, err := fn(o)
			if err != nil {
				panic(err)
			}
			if _, ok := v.(*goja.Object); !ok {
				return v
			}
		}
	}
	panic(vm.NewTypeError("Cannot convert object to primitive value"))
}

// asN is BigInt.asIntN (signed) or BigInt.asUintN. goja computes 2 ** bits whatever x is;
// for bits over the budget the result is x itself when x fits in bits, and otherwise x is
// at least as large as 2 ** bits (asIntN, or asUintN of a non-negative x) or the result
// is over the budget (asUintN of a negative x).
func (r *run) asN(signed bool, call goja.FunctionCall, orig goja.Callable) goja.Value {
	if len(call.Arguments) < 2 {
		return r.callOriginal(orig, call.This, call.Arguments...) // throws its TypeError
	}
	bits := call.Argument(0).ToNumber() // once: a valueOf runs here, not again in the original
	f := math.Trunc(bits.ToFloat())
	if math.IsNaN(f) || f < 0 || f >= 1<<53 {
		// goja rejects bits before it converts x.
		return r.callOriginal(orig, call.This, bits, call.Argument(1))
	}
	x := r.bigintArg(call.Argument(1))
	if f <= float64(r.maxBigIntBits()) {
		return r.callOriginal(orig, call.This, bits, x)
	}
	v := r.toBigInt(x, orig)
	n, ok := v.Export().(*big.Int)
	if !ok {
		return r.callOriginal(orig, call.This, bits, x)
	}
	switch {
	case signed && float64(n.BitLen()) < f, !signed && n.Sign() >= 0 && float64(n.BitLen()) <= f:
		return v
	case !signed && n.Sign() < 0:
		panic(r.rangeError(msgBigIntSize))
	}
	return r.callOriginal(orig, call.This, bits, v) // 2 ** bits is no larger than x
}

// toBigInt converts the primitive x to a BigInt as goja's asIntN and asUintN do: a
// string or a boolean through the original BigInt (the guard bounded the strings it
// gets), anything else but a BigInt through the original static itself with 0 bits, so
// that it throws its own TypeError.
func (r *run) toBigInt(x goja.Value, orig goja.Callable) goja.Value {
	switch x.(type) {
	case goja.String:
	default:
		if _, ok := x.Export().(*big.Int); ok {
			return x
		}
		if _, ok := x.Export().(bool); !ok {
			return r.callOriginal(orig, goja.Undefined(), r.vm.ToValue(0), x)
		}
	}
	return r.callOriginal(r.objects.bigint, goja.Undefined(), x)
}
