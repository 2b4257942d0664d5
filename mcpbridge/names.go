package mcpbridge

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLen is the longest tool name [ToolName] produces, the limit model
// providers put on tool names.
const MaxNameLen = 64

// ToolName returns the registry name of an upstream tool: mcp__<server>__<tool> with
// every character outside [A-Za-z0-9_-] replaced by '_'. When that changed the name
// or it is longer than [MaxNameLen], it is cut so that '_' and the first 12 hex
// digits of the SHA-256 of the unchanged name fit within MaxNameLen, so that two
// tools whose names differ only in replaced characters stay distinct.
func ToolName(server, tool string) string {
	orig := "mcp__" + server + "__" + tool
	var b strings.Builder
	b.Grow(len(orig))
	changed := false
	for _, r := range orig {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('_')
		changed = true
	}
	name := b.String()
	if !changed && len(name) <= MaxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(orig))
	suffix := "_" + hex.EncodeToString(sum[:])[:12]
	if len(name) > MaxNameLen-len(suffix) {
		name = name[:MaxNameLen-len(suffix)]
	}
	return name + suffix
}
