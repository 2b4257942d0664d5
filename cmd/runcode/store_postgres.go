package main

import (
	"context"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/postgres"
)

func openPostgres(ctx context.Context, url string) (store.Store, error) {
	return postgres.Open(ctx, url, nil)
}
