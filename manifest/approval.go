package manifest

import (
	"fmt"
	"maps"
	"slices"
)

// The approval settings of a tool ([Tool.Approval], [Server.Approval]).
const (
	// ApprovalAsk has a person approve each call before it runs.
	ApprovalAsk = "ask"
	// ApprovalDeny fails every call without running it.
	ApprovalDeny = "deny"
	// ApprovalAllow runs calls without asking.
	ApprovalAllow = "allow"
)

// checkApproval validates a tool's approval setting; empty is the host's default.
func checkApproval(v string) error {
	switch v {
	case "", ApprovalAsk, ApprovalDeny, ApprovalAllow:
		return nil
	}
	return fmt.Errorf(`approval must be "ask", "deny" or "allow", got %q`, v)
}

// checkApprovals validates a server's approval settings, naming the first bad entry
// in name order.
func (s *Upstream) checkApprovals() error {
	for _, tool := range slices.Sorted(maps.Keys(s.Approval)) {
		v := s.Approval[tool]
		if tool == "" {
			return fmt.Errorf("approval names a tool with an empty name")
		}
		if v == "" || checkApproval(v) != nil {
			return fmt.Errorf(`approval of tool %q must be "ask", "deny" or "allow", got %q`, tool, v)
		}
	}
	return nil
}
