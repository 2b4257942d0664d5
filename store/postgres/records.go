package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/internal/dbfmt"
)

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, kind, key string) (store.Record, error) {
	if err := store.CheckKey(kind, key); err != nil {
		return store.Record{}, err
	}
	if err := s.begin(ctx); err != nil {
		return store.Record{}, err
	}
	rec := store.Record{Kind: kind, Key: key}
	var expires int64
	err := s.pool.QueryRow(ctx,
		`SELECT data, version, expires FROM runcode_records WHERE kind = $1 AND key = $2 AND (expires = 0 OR expires > $3)`,
		kind, key, time.Now().UnixNano()).Scan(&rec.Data, &rec.Version, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Record{}, store.ErrNotFound
	}
	if err != nil {
		return store.Record{}, s.fail(ctx, fmt.Sprintf("get %s %q", kind, key), err)
	}
	rec.Data = dbfmt.Data(rec.Data)
	rec.Expires = dbfmt.ExpiresTime(expires)
	return rec, nil
}

// The writes of Put, each one statement whose condition is the compare-and-swap.
const (
	// putUpdate: the record is live and at version $5.
	putUpdate = `UPDATE runcode_records SET data = $3, expires = $4, version = version + 1
		WHERE kind = $1 AND key = $2 AND version = $5 AND (expires = 0 OR expires > $6)
		RETURNING version`
	// dropExpired: an expired record is gone, with its log, before a create.
	dropExpired = `DELETE FROM runcode_records WHERE kind = $1 AND key = $2 AND expires <> 0 AND expires <= $3`
	// putCreate: the record does not exist.
	putCreate = `INSERT INTO runcode_records (kind, key, data, version, expires) VALUES ($1, $2, $3, 1, $4)
		ON CONFLICT (kind, key) DO NOTHING
		RETURNING version`
	// putAny: create, or update whatever the version (a record that expired in
	// between starts again at 1).
	putAny = `INSERT INTO runcode_records AS r (kind, key, data, version, expires) VALUES ($1, $2, $3, 1, $4)
		ON CONFLICT (kind, key) DO UPDATE SET data = excluded.data, expires = excluded.expires,
			version = CASE WHEN r.expires <> 0 AND r.expires <= $5 THEN 1 ELSE r.version + 1 END
		RETURNING version`
)

// Put implements store.Store. An update is one UPDATE; a create, or an unconditional
// write, drops an expired record and then inserts, in one batch that PostgreSQL runs
// as one transaction.
func (s *Store) Put(ctx context.Context, r store.Record, expect int64) (int64, error) {
	if err := store.CheckPut(r, expect); err != nil {
		return 0, err
	}
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	now := time.Now().UnixNano()
	data, exp := dbfmt.Data(r.Data), dbfmt.ExpiresNano(r.Expires)
	var version int64
	var err error
	if expect > 0 {
		err = s.pool.QueryRow(ctx, putUpdate, r.Kind, r.Key, data, exp, expect, now).Scan(&version)
	} else {
		b := &pgx.Batch{}
		b.Queue(dropExpired, r.Kind, r.Key, now)
		if expect == 0 {
			b.Queue(putCreate, r.Kind, r.Key, data, exp).QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
		} else {
			b.Queue(putAny, r.Kind, r.Key, data, exp, now).QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
		}
		err = s.pool.SendBatch(ctx, b).Close()
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, s.conflict(ctx, r, expect, now)
	}
	if err != nil {
		return 0, s.fail(ctx, fmt.Sprintf("put %s %q", r.Kind, r.Key), err)
	}
	return version, nil
}

// conflict is Put's error when its condition failed: a *store.ConflictError with the
// version found by a second look (which may have changed since).
func (s *Store) conflict(ctx context.Context, r store.Record, expect, now int64) error {
	var current int64
	err := s.pool.QueryRow(ctx, `SELECT version FROM runcode_records WHERE kind = $1 AND key = $2 AND (expires = 0 OR expires > $3)`,
		r.Kind, r.Key, now).Scan(&current)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return s.fail(ctx, fmt.Sprintf("put %s %q", r.Kind, r.Key), err)
	}
	return &store.ConflictError{Kind: r.Kind, Key: r.Key, Expect: expect, Current: current}
}

// Delete implements store.Store; the foreign key deletes the record's entries.
func (s *Store) Delete(ctx context.Context, kind, key string) error {
	if err := store.CheckKey(kind, key); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM runcode_records WHERE kind = $1 AND key = $2`, kind, key); err != nil {
		return s.fail(ctx, fmt.Sprintf("delete %s %q", kind, key), err)
	}
	return nil
}

// List implements store.Store with a key range, not LIKE: no character of the prefix
// is a wildcard, and the primary key's index answers it.
func (s *Store) List(ctx context.Context, kind, prefix string, limit int) ([]store.Record, error) {
	if err := store.CheckPrefix(kind, prefix); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	var q strings.Builder
	q.WriteString(`SELECT key, data, version, expires FROM runcode_records WHERE kind = $1 AND key >= $2 AND (expires = 0 OR expires > $3)`)
	args := []any{kind, prefix, time.Now().UnixNano()}
	if end, ok := dbfmt.PrefixEnd(prefix); ok {
		args = append(args, end)
		fmt.Fprintf(&q, ` AND key < $%d`, len(args))
	}
	q.WriteString(` ORDER BY key`)
	if limit > 0 {
		args = append(args, limit)
		fmt.Fprintf(&q, ` LIMIT $%d`, len(args))
	}
	rows, err := s.pool.Query(ctx, q.String(), args...)
	if err != nil {
		return nil, s.fail(ctx, fmt.Sprintf("list %s %q", kind, prefix), err)
	}
	var out []store.Record
	var rec store.Record
	var expires int64
	_, err = pgx.ForEachRow(rows, []any{&rec.Key, &rec.Data, &rec.Version, &expires}, func() error {
		out = append(out, store.Record{Kind: kind, Key: rec.Key, Data: dbfmt.Data(rec.Data), Version: rec.Version, Expires: dbfmt.ExpiresTime(expires)})
		rec.Data = nil // the next row scans into a new slice
		return nil
	})
	if err != nil {
		return nil, s.fail(ctx, fmt.Sprintf("list %s %q", kind, prefix), err)
	}
	return out, nil
}

// PutEntry implements store.Store in one statement: the entry is written only if its
// record is live. A record deleted between the check and the insert fails the foreign
// key, which is ErrNotFound too.
func (s *Store) PutEntry(ctx context.Context, kind, key string, e store.Entry) error {
	if err := store.CheckEntry(kind, key, e); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO runcode_entries (kind, key, seq, data)
		SELECT $1::text, $2::text, $3::bigint, $4::bytea
		WHERE EXISTS (SELECT 1 FROM runcode_records WHERE kind = $1 AND key = $2 AND (expires = 0 OR expires > $5))
		ON CONFLICT (kind, key, seq) DO UPDATE SET data = excluded.data`,
		kind, key, e.Seq, dbfmt.Data(e.Data), time.Now().UnixNano())
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation
		return store.ErrNotFound
	}
	if err != nil {
		return s.fail(ctx, fmt.Sprintf("put entry %d of %s %q", e.Seq, kind, key), err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Entries implements store.Store in one statement, so the record's existence and its
// log are read together: no row means no record, one row without a seq an empty log.
func (s *Store) Entries(ctx context.Context, kind, key string) ([]store.Entry, error) {
	if err := store.CheckKey(kind, key); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT e.seq, e.data FROM runcode_records r
		LEFT JOIN runcode_entries e ON e.kind = r.kind AND e.key = r.key
		WHERE r.kind = $1 AND r.key = $2 AND (r.expires = 0 OR r.expires > $3) ORDER BY e.seq`,
		kind, key, time.Now().UnixNano())
	if err != nil {
		return nil, s.fail(ctx, fmt.Sprintf("entries of %s %q", kind, key), err)
	}
	found := false
	out := []store.Entry{}
	var seq *int64
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&seq, &data}, func() error {
		found = true
		if seq != nil {
			out = append(out, store.Entry{Seq: *seq, Data: dbfmt.Data(data)})
		}
		data = nil
		return nil
	})
	if err != nil {
		return nil, s.fail(ctx, fmt.Sprintf("entries of %s %q", kind, key), err)
	}
	if !found {
		return nil, store.ErrNotFound
	}
	return out, nil
}

// Prune implements store.Store; the foreign key deletes the records' entries.
func (s *Store) Prune(ctx context.Context, now time.Time) (int, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM runcode_records WHERE expires <> 0 AND expires <= $1`, dbfmt.Nano(now))
	if err != nil {
		return 0, s.fail(ctx, "prune", err)
	}
	return int(tag.RowsAffected()), nil
}
