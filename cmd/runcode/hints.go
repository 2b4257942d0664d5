package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/runcode-go/runcode/ptc"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
)

// noMember is goja's TypeError for a call of a member an object does not have.
var noMember = regexp.MustCompile(`TypeError: Object has no member '([^']*)'`)

// noToolsHint is what runcode run adds on stderr (outside the model-facing text) when
// a run without --tools failed calling a tool it does not have: the program was most
// likely written for a manifest that was not given. It is "" for any other failure,
// including a missing member of an object other than tools.
func noToolsHint(code string, rep *ptc.Report, set *registry.ResolvedToolSet) string {
	if rep == nil || rep.Failure == nil || rep.Failure.Kind != runtime.KindException {
		return ""
	}
	m := noMember.FindStringSubmatch(rep.Failure.Message)
	if m == nil {
		return ""
	}
	member := m[1]
	var names []string
	for _, e := range set.Tools() {
		names = append(names, e.Name())
	}
	if slices.Contains(names, member) {
		return ""
	}
	refs, err := runtime.References(code, "tools", nil)
	if err != nil || !slices.ContainsFunc(refs, func(r runtime.Reference) bool { return !r.Dynamic && r.Member == member }) {
		return ""
	}
	slices.Sort(names)
	return fmt.Sprintf("the program called tools.%s, but no --tools manifest was given: only the workspace tools over --root are loaded (%s); pass --tools MANIFEST", member, strings.Join(names, ", "))
}

// suggestHint is what runcode run adds on stderr when the run suggests saving its
// program as a script (ptc.Report.SuggestScript): the script's name and inputs, and
// where the rest is.
func suggestHint(s *ptc.ScriptSuggestion) string {
	var schema struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(s.InputSchema, &schema)
	return fmt.Sprintf("suggested script %s(%s): this program ran ok before in this session with other values for them; "+
		"--json gives the script as suggestScript (inputSchema, input, code) for runcode scripts save", s.Name, strings.Join(schema.Required, ", "))
}
