package worker_test

import (
	"context"
	"fmt"

	"github.com/runcode-go/runcode/runtime/worker"
)

// A program that embeds runcode gets worker processes with one line at the top of its
// main, which turns the process into a worker when NewSelf started it as one:
//
//	func main() {
//		if code, ok := worker.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
//			os.Exit(code)
//		}
//		// … the program as usual, with worker.NewSelf where it needs a pool.
//	}
//
// (This package's tests play that role in their TestMain.)
func ExampleNewSelf() {
	pool, err := worker.NewSelf(&worker.Options{Size: 1})
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	res, err := pool.Run(context.Background(), `return [1, 2, 3].map(x => x * 2)`, nil)
	if err != nil {
		panic(err) // only seam misuse: a closed pool, bad options
	}
	fmt.Println(res.Text())

	// A program written to exhaust its process fails its own run; the host goes on.
	res, err = pool.Run(context.Background(), `const b = []; for (;;) b.push(new ArrayBuffer(48 << 20))`, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Failure.Kind)
	// Output:
	// [
	//   2,
	//   4,
	//   6
	// ]
	// memory-limit
}
