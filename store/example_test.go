package store_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/runcode-go/runcode/store"
)

// Two writers read the same session state; the second one's compare-and-swap fails
// because the first one changed it in between.
func ExampleNewMemory() {
	ctx := context.Background()
	s := store.NewMemory()
	defer s.Close()

	v, err := s.Put(ctx, store.Record{Kind: "state", Key: "session-1", Data: []byte(`{"n":1}`)}, 0)
	fmt.Println("created at version", v, err)

	a, _ := s.Get(ctx, "state", "session-1")
	b, _ := s.Get(ctx, "state", "session-1")

	v, err = s.Put(ctx, store.Record{Kind: "state", Key: "session-1", Data: []byte(`{"n":2}`)}, a.Version)
	fmt.Println("first writer:", v, err)

	_, err = s.Put(ctx, store.Record{Kind: "state", Key: "session-1", Data: []byte(`{"n":3}`)}, b.Version)
	fmt.Println("second writer:", errors.Is(err, store.ErrConflict))
	fmt.Println(err)

	// A record's log: entries by sequence number.
	_ = s.PutEntry(ctx, "state", "session-1", store.Entry{Seq: 2, Data: []byte("second")})
	_ = s.PutEntry(ctx, "state", "session-1", store.Entry{Seq: 1, Data: []byte("first")})
	entries, _ := s.Entries(ctx, "state", "session-1")
	for _, e := range entries {
		fmt.Println(e.Seq, string(e.Data))
	}
	// Output:
	// created at version 1 <nil>
	// first writer: 2 <nil>
	// second writer: true
	// store: version conflict on state "session-1": expected version 1, found version 2
	// 1 first
	// 2 second
}
