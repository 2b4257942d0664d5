package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/runcode-go/runcode/manifest"
	"github.com/runcode-go/runcode/mcpbridge"
	"github.com/runcode-go/runcode/registry"
)

// connectServers starts the manifest's mcpServers and registers their tools in
// scope. Every server is started (at once); for the one-shot commands (sdk,
// describe, run, check) a server that does not start is a configuration error, so
// the returned error names each that failed, and nothing stays running. serve
// instead keeps going without them (see serveTools). The returned function stops
// the servers; the client is nil when the manifest declares none.
func connectServers(ctx context.Context, scope *registry.Scope, m *manifest.Manifest) (client *mcpbridge.Client, stop func(), err error) {
	if len(m.Servers) == 0 {
		return nil, func() {}, nil
	}
	client = mcpbridge.NewClient(scope, nil)
	if err := client.ConnectAll(ctx, upstreams(m)); err != nil {
		client.Close()
		return nil, nil, err
	}
	return client, func() { client.Close() }, nil
}

// upstreams converts a manifest's server declarations: each process gets the host's
// environment (without serve's bearer token, which no server needs and a program must
// not read through one) plus its own env, a relative cwd or "./program" is taken
// relative to the manifest's directory, and type "sse" selects the older HTTP+SSE
// transport.
func upstreams(m *manifest.Manifest) map[string]*mcpbridge.Upstream {
	dir := filepath.Dir(m.File)
	out := make(map[string]*mcpbridge.Upstream, len(m.Servers))
	for name, s := range m.Servers {
		u := &mcpbridge.Upstream{Command: s.Command, Args: s.Args, Dir: s.Cwd, URL: s.URL, Headers: maps.Clone(s.Headers), SSE: s.Type == "sse", StartTimeout: time.Duration(s.StartupTimeoutMs) * time.Millisecond, Approval: serverApprovals(s)}
		if s.Command != "" {
			u.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, httpTokenEnv+"=") })
			for k, v := range s.Env {
				u.Env = append(u.Env, k+"="+v)
			}
			if strings.HasPrefix(s.Command, "./") || strings.HasPrefix(s.Command, "../") {
				u.Command, _ = filepath.Abs(filepath.Join(dir, s.Command))
			}
			if u.Dir != "" && !filepath.IsAbs(u.Dir) {
				u.Dir, _ = filepath.Abs(filepath.Join(dir, u.Dir))
			}
		}
		out[name] = u
	}
	return out
}
