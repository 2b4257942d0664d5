package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/runcode-go/runcode/manifest"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/pipeline"
)

// httpTokenEnv names the environment variable serve reads --http-token from when the
// flag is not given: a token on the command line is visible in the process list.
const httpTokenEnv = "RUNCODE_HTTP_TOKEN"

// httpFlags are serve's access checks for --http.
type httpFlags struct {
	token   string
	origins originList
}

// originList is the repeatable --http-allow-origin.
type originList []string

func (o *originList) String() string { return strings.Join(*o, ", ") }

func (o *originList) Set(v string) error {
	if v != "*" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("want an origin, scheme://host[:port] (e.g. https://app.example.com), or *")
		}
	}
	*o = append(*o, v)
	return nil
}

func (h *httpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&h.token, "http-token", "", "with --http, require `TOKEN` on every request as \"Authorization: Bearer TOKEN\" (others get 401); default $"+httpTokenEnv+", which keeps the token out of the process list")
	fs.Var(&h.origins, "http-allow-origin", "with --http, also accept browser requests from `ORIGIN` (scheme://host[:port], or * for any; repeatable). A request whose Origin header names another host than the --http host or a loopback one is refused with 403, so that a web page cannot drive the server")
}

// check returns what is wrong with the flags, or "". It reads the token from getenv
// when --http-token was not given.
func (h *httpFlags) check(f *serveFlags, getenv func(string) string) string {
	switch {
	case f.set["http-token"] && h.token == "":
		return "--http-token must not be empty"
	case f.addr == "" && f.set["http-token"]:
		return "--http-token applies to --http only"
	case f.addr == "" && len(h.origins) > 0:
		return "--http-allow-origin applies to --http only"
	case !f.set["http-token"]:
		h.token = getenv(httpTokenEnv)
	}
	return ""
}

// guard wraps the MCP handler served on addr with the token and Origin checks.
func (h *httpFlags) guard(addr string, next http.Handler) http.Handler {
	host, _, _ := net.SplitHostPort(addr)
	return mcpbridge.HTTPGuard(next, &mcpbridge.HTTPGuardOptions{Token: h.token, BindHost: host, AllowedOrigins: h.origins})
}

// warn says on stderr when a server reachable from other machines has no token.
func (h *httpFlags) warn(ln net.Addr, stderr io.Writer) {
	if a, ok := ln.(*net.TCPAddr); ok && !a.IP.IsLoopback() && h.token == "" {
		fmt.Fprintf(stderr, "runcode serve: --http on a non-loopback address without --http-token (or $%s): anyone who can reach %s can run programs\n", httpTokenEnv, ln)
	}
}

// approvalActions converts a manifest's approval settings.
func approvalAction(setting string) pipeline.Action {
	switch setting {
	case manifest.ApprovalAsk:
		return pipeline.Ask
	case manifest.ApprovalDeny:
		return pipeline.Deny
	}
	return pipeline.Allow
}

// serverApprovals converts a server's approval settings for its Upstream.
func serverApprovals(s *manifest.Upstream) map[string]pipeline.Action {
	if len(s.Approval) == 0 {
		return nil
	}
	out := make(map[string]pipeline.Action, len(s.Approval))
	for tool, setting := range s.Approval {
		out[tool] = approvalAction(setting)
	}
	return out
}

// approvalPolicy is serve's approval of each tool: a manifest tool's setting, an
// upstream tool's (its server's setting, else ask when annotated destructiveHint),
// else allow.
func approvalPolicy(m *manifest.Manifest, client *mcpbridge.Client) func(tool string) pipeline.Action {
	own := map[string]pipeline.Action{}
	for _, t := range m.Tools {
		own[t.Name] = approvalAction(t.Approval)
	}
	return func(tool string) pipeline.Action {
		if a, ok := own[tool]; ok {
			return a
		}
		if client != nil {
			if a, ok := client.Approval(tool); ok {
				return a
			}
		}
		return pipeline.Allow
	}
}

// preExecute is serve's pre-execute hooks: the approval policy, when a manifest
// declares tools or servers.
func (s *servedScope) preExecute() []pipeline.PreExecuteFunc {
	if s.approval == nil {
		return nil
	}
	return []pipeline.PreExecuteFunc{mcpbridge.ApprovalPolicy(s.approval)}
}
