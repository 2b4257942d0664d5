package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/sqlite"
)

// A store in a file outlives the process that wrote it: a second Open, here or in
// another process, sees the record and its log.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "runcode-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "runcode.db")

	s, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := s.Put(ctx, store.Record{Kind: "script", Key: "weekly-report", Data: []byte("await tools.report()")}, 0); err != nil {
		log.Fatal(err)
	}
	if err := s.PutEntry(ctx, "script", "weekly-report", store.Entry{Seq: 1, Data: []byte(`{"tool":"report"}`)}); err != nil {
		log.Fatal(err)
	}
	s.Close()

	s, err = sqlite.Open(ctx, path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	r, err := s.Get(ctx, "script", "weekly-report")
	if err != nil {
		log.Fatal(err)
	}
	entries, _ := s.Entries(ctx, "script", "weekly-report")
	fmt.Printf("%s at version %d, %d entry\n", r.Data, r.Version, len(entries))
	// Output:
	// await tools.report() at version 1, 1 entry
}
