package bench_test

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/runcode-go/runcode/internal/bench"
)

// Run writes one report line per scenario file; a file it cannot read gets a failure line
// that names it.
func ExampleRun() {
	var o bench.Options
	o.Define(flag.NewFlagSet("bench", flag.ContinueOnError)) // the flags' defaults
	if msg := o.Check(); msg != "" {
		fmt.Println(msg)
		return
	}
	ok, err := bench.Run(context.Background(), []string{"testdata/no-such-scenario.json"}, &o, os.Stdout)
	fmt.Println(ok, err)
	// Output:
	// {"peer":"runcode","ok":false,"error":"testdata/no-such-scenario.json: cannot read the scenario: no such file or directory"}
	// false <nil>
}
