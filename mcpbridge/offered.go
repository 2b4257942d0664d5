package mcpbridge

import (
	"slices"
	"strings"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
)

// Offered returns the tools of desc as a [Server] lists them: MCP has no system
// prompt, so run_code's description carries the prompt sections, in their order,
// after its own text (which then points at them as "below").
func Offered(desc *pipeline.Description) []registry.ToolSchema {
	sections := slices.Clone(desc.Sections)
	slices.SortStableFunc(sections, func(a, b pipeline.Section) int { return a.Order - b.Order })
	tools := slices.Clone(desc.Tools)
	for i, t := range tools {
		if t.Name == registry.RunCodeName {
			tools[i].Description = runCodeDescription(t.Description, sections)
		}
	}
	return tools
}

// runCodeDescription is run_code's description followed by the prompt sections,
// which point at themselves as "below" rather than "in the system prompt".
func runCodeDescription(desc string, sections []pipeline.Section) string {
	var b strings.Builder
	b.WriteString(strings.Replace(desc, "in the system prompt", "below", 1))
	for _, sec := range sections {
		if sec.Text == "" {
			continue
		}
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(sec.Text, "\n"))
	}
	return b.String()
}
