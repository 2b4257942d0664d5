package worker

import (
	"fmt"
	"io"
	"os"

	"github.com/runcode-go/runcode/internal/procfd"
	"github.com/runcode-go/runcode/runtime"
)

// RoleArg is the first argument that starts a process in the worker role (NewSelf, Main);
// runcode's own binary answers to it too: Options.Command can be {"/path/to/runcode", RoleArg}.
const RoleArg = "__worker"

// Main is the worker role for a program that embeds runcode, and the one line its main
// needs for NewSelf:
//
//	if code, ok := worker.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
//		os.Exit(code)
//	}
//
// When args start with RoleArg, Main closes the descriptors the process inherited beyond
// the standard three, serves the host on stdin and stdout (see Serve) and returns the
// process's exit status (0 when the host closed the channel, 3 when the channel broke
// or the host broke the protocol) and true. Otherwise it returns at once with false, and
// the program goes on as itself. Call it before anything else in main: a worker should
// not start what the program starts.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 || args[0] != RoleArg {
		return 0, false
	}
	procfd.CloseInherited()
	if err := Serve(stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", RoleArg, err)
		return 3, true
	}
	return 0, true
}

// NewSelf starts a pool whose workers are this program's own executable in the worker
// role, which its main hands to Main. opts is as for New, and its Command must be empty:
// NewSelf fills it in. A nil opts means the defaults.
func NewSelf(opts *Options) (*Pool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if len(o.Command) != 0 {
		return nil, &runtime.OptionError{Field: "Options.Command", Reason: "must be empty with NewSelf, which runs this executable"}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("worker: finding this executable: %w", err)
	}
	o.Command = []string{exe, RoleArg}
	return New(&o)
}
