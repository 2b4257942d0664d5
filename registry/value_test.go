package registry

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseValueCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"whitespace", " { \"a\" : [ 1 , 2 ] ,\n\"b\":null } ", `{"a":[1,2],"b":null}`},
		{"key order kept", `{"b":1,"a":2}`, `{"b":1,"a":2}`},
		{"integer", `42`, `42`},
		{"negative", `-7`, `-7`},
		{"trailing zero fraction", `1.0`, `1`},
		{"exponent", `1e3`, `1000`},
		{"big exponent", `1e21`, `1e+21`},
		{"below 1e21", `123456789012345678901`, `123456789012345680000`},
		{"16 digits", `1234567890123456789`, `1234567890123456800`},
		{"small", `0.000001`, `0.000001`},
		{"smaller", `1e-7`, `1e-7`},
		{"fraction", `3.14159`, `3.14159`},
		{"negative exponent form", `-1.5E-10`, `-1.5e-10`},
		{"zero", `0`, `0`},
		{"zero float", `0.0`, `0`},
		{"escaped solidus", `"a\/b"`, `"a/b"`},
		{"unicode escape", `"\u0041\u00e9"`, `"Aé"`},
		{"control escape kept", `"\u0001\n"`, `"\u0001\n"`},
		{"surrogate pair", `"\ud83d\ude00"`, `"😀"`},
		{"lone surrogate kept escaped", `"\ud800x"`, `"\ud800x"`},
		{"raw utf8", `"héllo"`, `"héllo"`},
		{"line separator unescaped", `"\u2028"`, "\"\u2028\""},
		{"empty containers", `[{},[]]`, `[{},[]]`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ParseValue([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseValue(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, v.String()); diff != "" {
				t.Errorf("canonical text mismatch (-want +got):\n%s", diff)
			}
			again, err := ParseValue(v.Bytes())
			if err != nil || again != v {
				t.Errorf("canonical text is not a fixed point: %q -> %q, %v", v, again, err)
			}
		})
	}
}

func TestParseValueRejects(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"empty", ``, "unexpected end of input"},
		{"minus zero", `-0`, "-0 is not representable"},
		{"minus zero float", `-0.0`, "-0 is not representable"},
		{"minus zero nested", `{"a":[-0]}`, "-0 is not representable"},
		{"NaN", `NaN`, "unexpected 'N'"},
		{"infinite", `1e400`, "out of range"},
		{"duplicate key", `{"a":1,"a":2}`, `duplicate key "a"`},
		{"duplicate key after escape", `{"a":1,"\u0061":2}`, `duplicate key "a"`},
		{"many keys duplicate", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":3}`, `duplicate key "k3"`},
		{"invalid utf8", "\"\xff\"", "invalid UTF-8"},
		{"control char", "\"a\x01\"", "control character"},
		{"trailing", `1 2`, "after the value"},
		{"leading zero", `01`, "after the value"},
		{"bare dot", `1.`, "invalid number"},
		{"single quote", `'a'`, "unexpected"},
		{"unterminated", `"abc`, "unterminated string"},
		{"bad escape", `"\x"`, "invalid escape"},
		{"trailing comma", `[1,]`, "unexpected ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseValue([]byte(tt.in))
			if err == nil {
				t.Fatalf("ParseValue(%q) succeeded, want error containing %q", tt.in, tt.wantErr)
			}
			if !errors.Is(err, ErrLossy) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseValue(%q) error = %v, want ErrLossy containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

func TestParseValueDepth(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	v, err := ParseValue([]byte(deep))
	if err != nil || v.String() != deep {
		t.Fatalf("5,000-deep array: err=%v, intact=%v", err, v.String() == deep)
	}
	tooDeep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	if _, err := ParseValue([]byte(tooDeep)); err == nil || !strings.Contains(err.Error(), "nesting deeper than") {
		t.Errorf("over-deep value: err = %v, want a nesting error", err)
	}
}

func TestAppendNumberMatchesJavaScript(t *testing.T) {
	// Expected strings are what JavaScript's String(n) prints.
	tests := []struct {
		f    float64
		want string
	}{
		{1, "1"}, {-1, "-1"}, {0.1, "0.1"}, {0.30000000000000004, "0.30000000000000004"},
		{1e21, "1e+21"}, {1e20, "100000000000000000000"}, {123e-20, "1.23e-18"},
		{1e-6, "0.000001"}, {1e-7, "1e-7"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {2 ^ 53, "55"}, {9007199254740993, "9007199254740992"},
		{-123.456, "-123.456"}, {1.5e300, "1.5e+300"}, {100, "100"}, {1e15, "1000000000000000"},
	}
	for _, tt := range tests {
		if got := string(appendNumber(nil, tt.f)); got != tt.want {
			t.Errorf("appendNumber(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestValueOf(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "null", ""},
		{"string", "a\"b\n", `"a\"b\n"`, ""},
		{"bool", true, "true", ""},
		{"int", 7, "7", ""},
		{"float", 2.5, "2.5", ""},
		{"struct", point{1, 2}, `{"x":1,"y":2}`, ""},
		{"map sorted by encoding/json", map[string]int{"b": 1, "a": 2}, `{"a":2,"b":1}`, ""},
		{"raw message", json.RawMessage(` [ 1 ] `), `[1]`, ""},
		{"value", MustParseValue(`{"k":true}`), `{"k":true}`, ""},
		{"NaN", math.NaN(), "", "not a finite number"},
		{"minus zero", math.Copysign(0, -1), "", "-0"},
		{"channel", make(chan int), "", "unsupported type"},
		{"zero value", Value{}, "", "holds nothing"},
		{"invalid utf8 string", "\xff", "", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := ValueOf(tt.in)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrLossy) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ValueOf error = %v, want ErrLossy containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || v.String() != tt.want {
				t.Fatalf("ValueOf = %q, %v; want %q", v, err, tt.want)
			}
		})
	}
}

func TestValueAnyAndDecode(t *testing.T) {
	v := MustParseValue(`{"s":"a\tb","n":1.5,"l":[true,null,{"x":"y"}],"e":{}}`)
	want := map[string]any{"s": "a\tb", "n": json.Number("1.5"), "l": []any{true, nil, map[string]any{"x": "y"}}, "e": map[string]any{}}
	if diff := cmp.Diff(want, v.Any()); diff != "" {
		t.Errorf("Any mismatch (-want +got):\n%s", diff)
	}
	// The tree is a fresh copy: changing it does not change the Value.
	v.Any().(map[string]any)["s"] = "changed"
	if !strings.Contains(v.String(), `"a\tb"`) {
		t.Errorf("Value changed through Any: %s", v)
	}
	var dst struct{ N float64 }
	if err := v.Decode(&dst); err != nil || dst.N != 1.5 {
		t.Errorf("Decode = %+v, %v", dst, err)
	}
	if got := []string{v.Kind(), NullValue.Kind(), StringValue("x").Kind(), MustParseValue("1").Kind(), MustParseValue("[]").Kind(), MustParseValue("false").Kind(), (Value{}).Kind()}; !cmp.Equal(got, []string{"object", "null", "string", "number", "array", "boolean", ""}) {
		t.Errorf("Kind = %v", got)
	}
}

// FuzzParseValue checks the snapshot boundary: any input either fails cleanly or
// yields canonical text that is valid JSON, is a fixed point, and means the same as
// the input to encoding/json.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"]}`, `"\ud83d\ude00"`, `-0`, `1e400`, `{"a":1,"a":2}`, `[[[[]]]]`, `"\u0000"`, `12345678901234567890`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseValue(data)
		if err != nil {
			if !errors.Is(err, ErrLossy) {
				t.Fatalf("error does not wrap ErrLossy: %v", err)
			}
			return
		}
		if !json.Valid(v.Bytes()) {
			t.Fatalf("canonical text is not JSON: %q", v)
		}
		again, err := ParseValue(v.Bytes())
		if err != nil || again != v {
			t.Fatalf("not a fixed point: %q -> %q (%v)", v, again, err)
		}
		var a, b any
		if json.Unmarshal(data, &a) == nil && json.Unmarshal(v.Bytes(), &b) == nil && !strings.Contains(string(data), `\u`) {
			if !cmp.Equal(a, b) {
				t.Fatalf("meaning changed: %s -> %s", data, v)
			}
		}
		_ = v.Any()
	})
}
