package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/internal/dbfmt"
)

// live is the condition that a row of runcode_records (as r) has not expired at the
// time bound as its one parameter.
const live = `(r.expires = 0 OR r.expires > ?)`

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
	err := s.db.QueryRowContext(ctx,
		`SELECT r.data, r.version, r.expires FROM runcode_records r WHERE r.kind = ? AND r.key = ? AND `+live,
		kind, key, time.Now().UnixNano()).Scan(&rec.Data, &rec.Version, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Record{}, store.ErrNotFound
	}
	if err != nil {
		return store.Record{}, s.fail(fmt.Sprintf("get %s %q", kind, key), err)
	}
	rec.Data = dbfmt.Data(rec.Data)
	rec.Expires = dbfmt.ExpiresTime(expires)
	return rec, nil
}

// Put implements store.Store: it reads the current version and writes under one
// write lock.
func (s *Store) Put(ctx context.Context, r store.Record, expect int64) (int64, error) {
	if err := store.CheckPut(r, expect); err != nil {
		return 0, err
	}
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	var version int64
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		var current, expires int64
		err := tx.QueryRowContext(ctx, `SELECT version, expires FROM runcode_records WHERE kind = ? AND key = ?`,
			r.Kind, r.Key).Scan(&current, &expires)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if exists && expires != 0 && expires <= time.Now().UnixNano() {
			// Expired: gone, with its log; the write makes a new record.
			if _, err := tx.ExecContext(ctx, `DELETE FROM runcode_records WHERE kind = ? AND key = ?`, r.Kind, r.Key); err != nil {
				return err
			}
			exists, current = false, 0
		}
		if expect != store.Any && expect != current {
			return &store.ConflictError{Kind: r.Kind, Key: r.Key, Expect: expect, Current: current}
		}
		version = current + 1
		data, exp := dbfmt.Data(r.Data), dbfmt.ExpiresNano(r.Expires)
		if exists {
			_, err = tx.ExecContext(ctx, `UPDATE runcode_records SET data = ?, version = ?, expires = ? WHERE kind = ? AND key = ?`,
				data, version, exp, r.Kind, r.Key)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO runcode_records (kind, key, data, version, expires) VALUES (?, ?, ?, ?, ?)`,
				r.Kind, r.Key, data, version, exp)
		}
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		return 0, err
	}
	if err != nil {
		return 0, s.fail(fmt.Sprintf("put %s %q", r.Kind, r.Key), err)
	}
	return version, nil
}

// Delete implements store.Store; the foreign key deletes the record's entries.
func (s *Store) Delete(ctx context.Context, kind, key string) error {
	if err := store.CheckKey(kind, key); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	if _, err := s.writeExec(ctx, `DELETE FROM runcode_records WHERE kind = ? AND key = ?`, kind, key); err != nil {
		return s.fail(fmt.Sprintf("delete %s %q", kind, key), err)
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
	q.WriteString(`SELECT r.key, r.data, r.version, r.expires FROM runcode_records r WHERE r.kind = ? AND r.key >= ? AND ` + live)
	args := []any{kind, prefix, time.Now().UnixNano()}
	if end, ok := dbfmt.PrefixEnd(prefix); ok {
		q.WriteString(` AND r.key < ?`)
		args = append(args, end)
	}
	q.WriteString(` ORDER BY r.key`)
	if limit > 0 {
		q.WriteString(` LIMIT ?`)
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, s.fail(fmt.Sprintf("list %s %q", kind, prefix), err)
	}
	defer rows.Close()
	var out []store.Record
	for rows.Next() {
		rec := store.Record{Kind: kind}
		var expires int64
		if err := rows.Scan(&rec.Key, &rec.Data, &rec.Version, &expires); err != nil {
			return nil, s.fail(fmt.Sprintf("list %s %q", kind, prefix), err)
		}
		rec.Data = dbfmt.Data(rec.Data)
		rec.Expires = dbfmt.ExpiresTime(expires)
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Sprintf("list %s %q", kind, prefix), err)
	}
	return out, nil
}

// PutEntry implements store.Store in one statement: the entry is written only if its
// record is live.
func (s *Store) PutEntry(ctx context.Context, kind, key string, e store.Entry) error {
	if err := store.CheckEntry(kind, key, e); err != nil {
		return err
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	n, err := s.writeExec(ctx, `INSERT INTO runcode_entries (kind, key, seq, data)
		SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runcode_records r WHERE r.kind = ? AND r.key = ? AND `+live+`)
		ON CONFLICT (kind, key, seq) DO UPDATE SET data = excluded.data`,
		kind, key, e.Seq, dbfmt.Data(e.Data), kind, key, time.Now().UnixNano())
	if err != nil {
		return s.fail(fmt.Sprintf("put entry %d of %s %q", e.Seq, kind, key), err)
	}
	if n == 0 {
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
	rows, err := s.db.QueryContext(ctx, `SELECT e.seq, e.data FROM runcode_records r
		LEFT JOIN runcode_entries e ON e.kind = r.kind AND e.key = r.key
		WHERE r.kind = ? AND r.key = ? AND `+live+` ORDER BY e.seq`,
		kind, key, time.Now().UnixNano())
	if err != nil {
		return nil, s.fail(fmt.Sprintf("entries of %s %q", kind, key), err)
	}
	defer rows.Close()
	found := false
	out := []store.Entry{}
	for rows.Next() {
		found = true
		var seq sql.NullInt64
		var data []byte
		if err := rows.Scan(&seq, &data); err != nil {
			return nil, s.fail(fmt.Sprintf("entries of %s %q", kind, key), err)
		}
		if seq.Valid {
			out = append(out, store.Entry{Seq: seq.Int64, Data: dbfmt.Data(data)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(fmt.Sprintf("entries of %s %q", kind, key), err)
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
	n, err := s.writeExec(ctx, `DELETE FROM runcode_records WHERE expires != 0 AND expires <= ?`, dbfmt.Nano(now))
	if err != nil {
		return 0, s.fail("prune", err)
	}
	return int(n), nil
}
