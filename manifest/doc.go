// Package manifest loads tool manifests (the JSON files behind the CLI's --tools
// flag, see docs/manifest.md) and turns their tools into registry tools: mock tools that
// answer from the manifest, and command tools backed by a real process per call.
//
// It owns the manifest format and its validation: every problem is an [*Error] that
// names the file, the tool (or MCP server) and what is wrong, found before anything
// runs.
//
// It does not connect to the MCP servers a manifest declares (mcpServers is parsed
// and validated only; the MCP bridge starts them), run calls through the pipeline,
// read files other than through the [io/fs.FS] it is given, or read the process
// environment (command tools get the environment in [Options]).
//
// It may import: the standard library and package registry.
//
// # Loading
//
//	m, err := manifest.Load(os.DirFS("."), "tools.json", &manifest.Options{Dir: ".", Env: os.Environ()})
//	if err != nil {
//		// err's message names the file, the tool and the problem.
//	}
//	dispose, err := m.Register(scope)
//
// # Mocks
//
// {"result": V}, {"echo": true} or {"error": "msg"}, with "content" blocks beside a
// result or echo and "delayMs" beside any of them; or {"cases": [{"args": {…}, …}],
// "default": {…}}, where the first case whose args are a subset of the call's
// arguments answers. Results are checked against the tool's outputSchema at load.
//
// # Commands
//
// ["program", "arg", …]: each call starts the program with the arguments as JSON on
// stdin. A program written as a path ("./x.sh", "bin/x") is resolved against
// [Options.Dir]; a bare name is looked up in PATH. Its environment is explicit: the
// variables [InheritedEnv] names, taken from [Options.Env], then the tool's "env",
// then RUNCODE_TOOL=<name>; nothing else of the host's environment (a bearer token,
// credentials) reaches a program through it. Exit 0 with JSON on stdout is the
// value (other text is a string value); a non-zero exit fails the call with its
// stderr. On Unix the process gets its own process group, and cancellation (the
// caller's, or the pipeline's timeout for timeoutMs) kills the whole group.
package manifest
