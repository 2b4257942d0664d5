package jsvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
)

// StartFunc begins one call of a namespace member, as runtime.StartFunc says: on the VM
// goroutine, in call order, without blocking; done delivers the outcome once, from any
// goroutine.
type StartFunc func(ctx context.Context, member string, args json.RawMessage, done func(json.RawMessage, error))

// PanicError is the outcome of a call whose host function panicked with Value: it fails
// the run as an internal error naming the member.
type PanicError struct{ Value any }

func (p *PanicError) Error() string { return fmt.Sprint("host function panicked: ", p.Value) }

// CallError is runtime.CallError: a rejection with extra string properties. It is an
// immutable value.
type CallError struct {
	Message string
	Fields  map[string]string
}

func (e *CallError) Error() string { return e.Message }

// NamespaceOptions are runtime.NamespaceOptions: the error class, the member property,
// the noun and the snapshot fields of a namespace.
type NamespaceOptions struct {
	ErrorClass, MemberProperty, Noun string
	SnapshotFields                   map[string]string
}

// Namespace is runtime.Namespace: installed per run in constant time, immutable once
// NewNamespace built it, and safe for concurrent use by any number of runs.
type Namespace struct {
	Global           string
	Members          []string
	Start            StartFunc
	NamespaceOptions // Noun filled with its default
	// Errors, when not nil, turns a call's error into the VM's types (*Failure,
	// *CallError, *PanicError) before the run reads it.
	Errors func(error) error
	index  map[string]bool
}

// NamespaceError reports a namespace that cannot be installed. It is an immutable value.
type NamespaceError struct {
	Global string
	Reason string
}

func (e *NamespaceError) Error() string {
	return fmt.Sprintf("runtime: namespace %q: %s", e.Global, e.Reason)
}

// identRe matches an ASCII JavaScript identifier (what dot access can spell).
var identRe = lazyRegexp(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// reservedGlobals are names a namespace or error class cannot take: the host globals, the
// ECMAScript globals a program relies on, and the words that cannot be bindings.
var reservedGlobals = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range hostGlobals {
		m[n] = true
	}
	for _, n := range []string{
		"globalThis", "Object", "Function", "Array", "Number", "Boolean", "String", "Symbol",
		"BigInt", "Math", "JSON", "Reflect", "Proxy", "Promise", "Date", "RegExp", "Error",
		"TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError",
		"AggregateError", "Map", "Set", "WeakMap", "WeakSet", "ArrayBuffer", "DataView",
		"eval", "isNaN", "isFinite", "parseInt", "parseFloat", "encodeURI", "decodeURI",
		"encodeURIComponent", "decodeURIComponent", "escape", "unescape", "NaN", "Infinity",
		"undefined", "arguments", "require", "process", "import", "export", "await", "async",
		"let", "const", "var", "yield", "static", "this", "super", "new", "class", "function",
		"null", "true", "false", "void", "typeof", "delete", "in", "instanceof", "return",
		"if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
		"throw", "try", "catch", "finally", "with", "debugger", "enum", "implements",
		"interface", "package", "private", "protected", "public",
	} {
		m[n] = true
	}
	return m
}()

// NewNamespace builds a namespace installed as the global named global, with the given
// members (any strings) whose calls start through start, or a *NamespaceError.
func NewNamespace(global string, members []string, start StartFunc, opts *NamespaceOptions) (*Namespace, error) {
	if opts == nil {
		opts = &NamespaceOptions{}
	}
	bad := func(reason string) error { return &NamespaceError{Global: global, Reason: reason} }
	switch {
	case !identRe().MatchString(global):
		return nil, bad("the global name must be an identifier")
	case reservedGlobals[global]:
		return nil, bad("the global name is reserved")
	case start == nil:
		return nil, bad("start must not be nil")
	}
	if c := opts.ErrorClass; c != "" {
		switch {
		case !identRe().MatchString(c):
			return nil, bad(fmt.Sprintf("error class %q must be an identifier", c))
		case reservedGlobals[c] || c == global:
			return nil, bad(fmt.Sprintf("error class %q is reserved", c))
		}
	}
	switch opts.MemberProperty {
	case "name", "message", "stack", "cause", "constructor", "__proto__":
		return nil, bad(fmt.Sprintf("member property %q would shadow an Error property", opts.MemberProperty))
	}
	ns := &Namespace{Global: global, Members: slices.Clone(members), Start: start, NamespaceOptions: *opts,
		index: make(map[string]bool, len(members))}
	ns.SnapshotFields = maps.Clone(opts.SnapshotFields)
	if ns.Noun == "" {
		ns.Noun = global
	}
	for _, m := range members {
		if ns.index[m] {
			return nil, bad(fmt.Sprintf("member %q is listed twice", m))
		}
		ns.index[m] = true
	}
	return ns, nil
}

// WithStart returns the namespace with its calls started through start, the rest shared.
func (ns *Namespace) WithStart(start StartFunc) *Namespace {
	c := *ns
	c.Start = start
	return &c
}

// Has reports whether member is one of the namespace's members.
func (ns *Namespace) Has(member string) bool { return ns.index[member] }

// CheckNamespaces returns the *NamespaceError of a nil namespace, or of two namespaces
// (or error classes) claiming one global, or nil.
func CheckNamespaces(nss []*Namespace) error {
	seen := map[string]bool{}
	for _, ns := range nss {
		if ns == nil {
			return &NamespaceError{Reason: "a nil namespace"}
		}
		for _, n := range []string{ns.Global, ns.ErrorClass} {
			if n == "" {
				continue
			}
			if seen[n] {
				return &NamespaceError{Global: ns.Global, Reason: fmt.Sprintf("global %q is installed twice", n)}
			}
			seen[n] = true
		}
	}
	return nil
}

// calls are a run's namespaces and the calls its program makes of them. The VM
// goroutine owns them; pending is waited for when the run ends.
type calls struct {
	namespaces []*Namespace
	argBytes   int           // Job.ArgBytes
	draws      *recorder     // Job.Draws; nil when not recorded
	state      *sessionState // Job.State; nil when the run has none
	unsettled  []string      // calls by start order; "" once settled
	started    int
	pending    sync.WaitGroup // calls whose outcome has not come back
}

// nsObject backs a namespace's global as a goja dynamic object: members are looked up in
// the shared index and turned into functions on first access, so installing costs O(1).
type nsObject struct {
	r    *VM
	ns   *Namespace
	fns  map[string]goja.Value
	ctor *goja.Object // the error class, if any
}

func (o *nsObject) Get(key string) goja.Value {
	if !o.ns.index[key] {
		return nil
	}
	if f, ok := o.fns[key]; ok {
		return f
	}
	if o.fns == nil {
		o.fns = map[string]goja.Value{}
	}
	f := o.r.native(func(call goja.FunctionCall) goja.Value { return o.r.hostCall(o, key, call) })
	fo := f.ToObject(o.r.vm)
	_ = fo.DefineDataProperty("name", o.r.vm.ToValue(key), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	o.fns[key] = f
	return f
}

func (o *nsObject) Set(string, goja.Value) bool { return false }
func (o *nsObject) Has(key string) bool         { return o.ns.index[key] }
func (o *nsObject) Delete(key string) bool      { return !o.ns.index[key] }
func (o *nsObject) Keys() []string              { return slices.Clone(o.ns.Members) }

// errorClassSrc extends the Error constructor captured when the VM was built (the Go side
// names the class), so a program that replaced Error still gets a real error class.
const errorClassSrc = `(function (E) {
	'use strict';
	return class extends E {};
})`

var errorClassPrg = compileOnce("errorclass.js", errorClassSrc)

// installNamespaces installs the run's namespaces as read-only globals with null
// prototypes, and their error classes. VM goroutine, before the program runs.
func (r *VM) installNamespaces(nss []*Namespace) error {
	r.namespaces = nss
	g := r.vm.GlobalObject()
	for _, ns := range nss {
		o := &nsObject{r: r, ns: ns}
		if ns.ErrorClass != "" {
			// Built on first need: most runs never see a failed call.
			r.scope.lazy(ns.ErrorClass, func() goja.Value { return o.errorClass() })
		}
		obj := r.vm.NewDynamicObject(o)
		if err := obj.SetPrototype(nil); err != nil {
			return err
		}
		if err := g.DefineDataProperty(ns.Global, obj, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// errorClass returns the namespace's error class, building it on first use.
func (o *nsObject) errorClass() *goja.Object {
	if o.ctor == nil {
		f, err := o.r.vm.RunProgram(errorClassPrg())
		if err != nil {
			panic(err)
		}
		mk, _ := goja.AssertFunction(f)
		c, err := mk(goja.Undefined(), o.r.in.errorCtor)
		if err != nil {
			panic(err)
		}
		ctor := c.ToObject(o.r.vm)
		name := o.r.vm.ToValue(o.ns.ErrorClass)
		// As `class X extends Error {}`: X.name read-only, X.prototype.name writable.
		if err := ctor.DefineDataProperty("name", name, goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			panic(err)
		}
		if err := ctor.Get("prototype").ToObject(o.r.vm).DefineDataProperty("name", name, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			panic(err)
		}
		o.ctor = ctor
	}
	return o.ctor
}

// hostCall is one call of a namespace member from JavaScript: it snapshots the argument as
// lossless JSON, starts the call, and settles the returned promise through the loop.
func (r *VM) hostCall(o *nsObject, member string, call goja.FunctionCall) goja.Value {
	vm := r.vm
	p, resolve, reject := vm.NewPromise()
	arg := call.Argument(0)
	if strings.HasPrefix(member, "$") {
		// A host built-in (tools.$search): all arguments as an array, trailing undefineds cut.
		n := len(call.Arguments)
		for n > 0 && goja.IsUndefined(call.Arguments[n-1]) {
			n--
		}
		items := make([]any, n)
		for i, a := range call.Arguments[:n] {
			items[i] = a
		}
		arg = vm.NewArray(items...)
	} else if goja.IsUndefined(arg) {
		_ = reject(r.callError(o, member, o.ns.Noun+" arguments must be lossless JSON (call the "+o.ns.Noun+" with an arguments object, e.g. `{}`)", o.ns.SnapshotFields))
		return vm.ToValue(p)
	}
	limit := r.argBytes
	if limit <= 0 {
		limit = MaxArgBytes
	}
	args, res, detail := r.encode(arg, limit)
	switch res {
	case encodeLossy:
		_ = reject(r.callError(o, member, o.ns.Noun+" arguments must be lossless JSON: "+detail, o.ns.SnapshotFields))
		return vm.ToValue(p)
	case encodeTooLarge:
		_ = reject(r.callError(o, member, fmt.Sprintf("%s arguments are over the limit of %d bytes", o.ns.Noun, limit), o.ns.SnapshotFields))
		return vm.ToValue(p)
	case encodeStopped:
		return vm.ToValue(p)
	}
	r.started++
	// For a rejection's stack: it is built later, when no program frame is left.
	var at callSites
	if o.ns.ErrorClass != "" {
		at = r.callSites()
	}
	slot := len(r.unsettled)
	r.unsettled = append(r.unsettled, member)
	settle := r.loop.reserve()
	r.pending.Add(1)
	r.host.calls.Add(1)
	var once atomic.Bool
	done := func(out json.RawMessage, err error) {
		if !once.CompareAndSwap(false, true) {
			return
		}
		defer r.host.calls.Done()
		defer r.pending.Done()
		if err != nil && o.ns.Errors != nil {
			err = o.ns.Errors(err)
		}
		if hp, ok := err.(*PanicError); ok {
			r.fail(KindException, fmt.Sprintf("internal error: %s %q panicked: %v", o.ns.Noun, member, hp.Value))
		} else if f := failureOf(err); f != nil {
			r.fail(f.Kind, f.Message)
		}
		settle(func() error {
			r.unsettled[slot] = ""
			if err != nil {
				var ce *CallError
				if errors.As(err, &ce) {
					return reject(r.callErrorAt(o, member, ce.Message, ce.Fields, at))
				}
				return reject(r.callErrorAt(o, member, err.Error(), nil, at))
			}
			if len(out) == 0 {
				return resolve(goja.Undefined())
			}
			v, perr := r.decodeJSON(out)
			if perr != nil {
				return reject(r.callError(o, member, o.ns.Noun+" result must be lossless JSON", nil))
			}
			return resolve(v)
		})
	}
	func() {
		defer func() {
			if x := recover(); x != nil {
				done(nil, &PanicError{x})
			}
		}()
		ctx := WithLeft(r.ctx, r.left())
		if r.draws != nil {
			ctx = WithDraws(ctx, r.draws.snapshot())
		}
		if r.busy { // the host's part of a call (a durable ledger write) is not compute
			r.leave()
			defer r.enter()
		}
		o.ns.Start(ctx, member, args, done)
	}()
	return vm.ToValue(p)
}

// callSites are the positions of the two program frames that made a namespace call.
type callSites [2]struct {
	src, fn   string
	line, col int
}

// callSites captures the frames of the call being made. VM goroutine, inside the call.
func (r *VM) callSites() callSites {
	var buf [3]goja.StackFrame
	frames := r.vm.CaptureCallStack(len(buf), buf[:0])
	var at callSites
	for i := range at {
		if i+1 >= len(frames) {
			break
		}
		f := &frames[i+1] // frames[0] is the member's own (native) frame
		pos := f.Position()
		at[i].src, at[i].fn, at[i].line, at[i].col = f.SrcName(), f.FuncName(), pos.Line, pos.Column
	}
	return at
}

// callErrorAt is callError with a stack that shows where the program made the call: a
// frame naming the member (tools.read_file) at the calling line, then the calling
// function and its caller, so an uncaught rejection names the tool and the line.
func (r *VM) callErrorAt(o *nsObject, member, msg string, fields map[string]string, at callSites) goja.Value {
	e := r.callError(o, member, msg, fields)
	obj, ok := e.(*goja.Object)
	if !ok || at[0].line == 0 {
		return e
	}
	var b strings.Builder
	b.WriteString(o.ns.ErrorClass + ": " + msg)
	callee := o.ns.Global + "." + member
	if !identRe().MatchString(member) {
		q, _ := json.Marshal(member)
		callee = o.ns.Global + "[" + string(q) + "]"
	}
	fmt.Fprintf(&b, "\n\tat %s (%s:%d:%d)", callee, at[0].src, at[0].line, at[0].col)
	for i, f := range at {
		switch {
		case f.line == 0:
			continue
		case f.fn == "" || f.fn == "<anonymous>":
			if i == 0 {
				continue // the member's frame has this position
			}
			fmt.Fprintf(&b, "\n\tat %s:%d:%d", f.src, f.line, f.col)
		default:
			fmt.Fprintf(&b, "\n\tat %s (%s:%d:%d)", f.fn, f.src, f.line, f.col)
		}
	}
	_ = obj.DefineDataProperty("stack", r.vm.ToValue(b.String()), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return e
}

// reportUnawaited logs the namespace calls the program started and never waited for
// (most often a missing await). VM goroutine, once the main promise has settled.
func (r *VM) reportUnawaited() {
	var order []string
	count := map[string]int{}
	n := 0
	for _, m := range r.unsettled {
		if m == "" {
			continue
		}
		n++
		if count[m] == 0 {
			order = append(order, m)
		}
		count[m]++
	}
	if n == 0 {
		return
	}
	noun, global := "call", "tools"
	if len(r.namespaces) == 1 {
		noun, global = r.namespaces[0].Noun+" call", r.namespaces[0].Global
	}
	const maxNames = 10
	names := make([]string, 0, min(len(order), maxNames)+1)
	for i, m := range order {
		if i == maxNames {
			names = append(names, fmt.Sprintf("and %d more", len(order)-maxNames))
			break
		}
		if count[m] > 1 {
			m += fmt.Sprintf(" ×%d", count[m])
		}
		names = append(names, m)
	}
	plural, lost := "s were", "their results were"
	if n == 1 {
		plural, lost = " was", "its result was"
	}
	r.appendLog(fmt.Sprintf("Warning: %d %s%s started but not awaited before the program ended (%s); %s lost. Put await before each call (await %s.name(args)), or await Promise.all([...]) for calls meant to run together.",
		n, noun, plural, strings.Join(names, ", "), lost, global))
}

// MaxArgBytes is runtime.MaxArgBytes, the default of Job.ArgBytes.
const MaxArgBytes = 16 << 20

// failureOf returns the *Failure in err's chain, or nil, allocating only for an error.
func failureOf(err error) *Failure {
	if err == nil {
		return nil
	}
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// callError builds a rejection: an instance of the namespace's error class (or a plain
// Error) with the member property and extra fields as read-only enumerable properties.
func (r *VM) callError(o *nsObject, member, msg string, fields map[string]string) goja.Value {
	vm := r.vm
	ctor := r.in.errorCtor
	if o.ns.ErrorClass != "" {
		ctor = o.errorClass()
	}
	e, err := vm.New(ctor, vm.ToValue(msg))
	if err != nil {
		return vm.ToValue(msg)
	}
	if o.ns.MemberProperty != "" {
		_ = e.DefineDataProperty(o.ns.MemberProperty, vm.ToValue(member), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "name", "message", "stack", o.ns.MemberProperty:
			continue
		}
		_ = e.DefineDataProperty(k, vm.ToValue(fields[k]), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	return e
}
