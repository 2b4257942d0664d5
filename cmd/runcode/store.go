package main

import (
	"context"
	"strings"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/postgres"
	"github.com/runcode-go/runcode/store/sqlite"
)

// storeFlagHelp documents --store for run, resume and serve.
const storeFlagHelp = "keep paused runs in `STORE`, a SQLite FILE (made if missing) or a postgres:// URL: a run that reaches a tool needing approval pauses there, and `runcode resume` goes on with it (docs/pausing.md)"

// openStore opens a --store value: a PostgreSQL URL or a SQLite file.
func openStore(ctx context.Context, dsn string) (store.Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return postgres.Open(ctx, dsn, nil)
	}
	return sqlite.Open(ctx, dsn, nil)
}
