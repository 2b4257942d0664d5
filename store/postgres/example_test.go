package postgres_test

import (
	"context"
	"fmt"
	"log"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/postgres"
)

// Replicas open the same database; whichever one a request reaches sees the records
// the others wrote. (This example needs a server, so it is compiled, not run.)
func ExampleOpen() {
	ctx := context.Background()
	s, err := postgres.Open(ctx, "postgres://runcode@db.internal/runcode?sslmode=verify-full", &postgres.Options{MaxConns: 8})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	v, err := s.Put(ctx, store.Record{Kind: "state", Key: "session-1", Data: []byte(`{}`)}, store.Any)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("state at version", v)
}
