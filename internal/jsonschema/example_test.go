package jsonschema_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/runcode-go/runcode/internal/jsonschema"
)

func decodeJSON(text string) any {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber() // exact numbers
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

func ExampleCompile() {
	_, err := jsonschema.Compile(decodeJSON(`{"properties":{"n":{"minimum":"1"}}}`), nil)
	fmt.Println(err)
	// Output: invalid schema at /properties/n: "minimum" must be a number
}

func ExampleSchema_Validate() {
	s, err := jsonschema.Compile(decodeJSON(`{
		"type": "object",
		"properties": {
			"path": {"type": "string"},
			"limit": {"type": "integer", "minimum": 1},
			"mode": {"enum": ["read", "write"]}
		},
		"required": ["path"],
		"additionalProperties": false
	}`), nil)
	if err != nil {
		panic(err)
	}
	for _, v := range s.Validate(decodeJSON(`{"limit": 0, "mode": "append", "x": true}`)) {
		switch v.Keyword {
		case "required", "additionalProperties":
			fmt.Printf("%q: %s %q\n", v.Path, v.Keyword, v.Property)
		case "minimum":
			fmt.Printf("%q: %s %s\n", v.Path, v.Keyword, v.Number)
		case "enum":
			fmt.Printf("%q: %s %v\n", v.Path, v.Keyword, v.Values)
		}
	}
	// Output:
	// []: additionalProperties "x"
	// []: required "path"
	// ["limit"]: minimum 1
	// ["mode"]: enum [read write]
}
