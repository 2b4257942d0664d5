package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// textCase is one program and the text its run must return (Result.Text).
type textCase struct {
	name, code, want string
}

// runTextCases runs each case on p with opts, as a subtest named after the case, and
// compares the text the run returns with the case's.
func runTextCases(t *testing.T, p *Pool, tests []textCase, opts *RunOptions) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, runCode(t, p, tt.code, opts).Text()); diff != "" {
				t.Errorf("text mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// checkFailure reports a mismatch between res's failure and one of kind with message.
func checkFailure(t *testing.T, res *Result, kind Kind, message string) {
	t.Helper()
	if diff := cmp.Diff(&Failure{Kind: kind, Message: message}, res.Failure); diff != "" {
		t.Errorf("failure mismatch (-want +got):\n%s", diff)
	}
}
