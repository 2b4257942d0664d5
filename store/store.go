package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Record is one stored value: a kind ("run", "state", "script", ...), a key unique
// within its kind, an opaque payload, a version that counts writes (1 after the first
// Put), and an optional expiry. A Record is a plain value; the store never keeps or
// changes the caller's Data.
type Record struct {
	// Kind names the record's namespace; it must not be empty.
	Kind string
	// Key is unique within Kind; it may be empty.
	Key string
	// Data is the payload, at most MaxDataBytes. An empty payload reads back as an
	// empty, non-nil slice.
	Data []byte
	// Version counts the writes since the record was created: 1 after the first Put.
	// Put ignores it (its expect argument says which version it overwrites).
	Version int64
	// Expires is when the record stops being visible; zero: never. A record whose
	// expiry is at or before the current time is gone for every method but Prune,
	// which removes it. Stores read it back in UTC to the nanosecond.
	Expires time.Time
}

// Entry is one item of a record's log (a paused run's ledger): a sequence number and a
// payload. Entries live and die with their record: Delete, expiry and Prune take them
// too; a Put that updates the record keeps them.
type Entry struct {
	// Seq orders the log and names the entry within it; it must not be negative.
	Seq int64
	// Data is the payload, at most MaxDataBytes. Empty reads back as empty, non-nil.
	Data []byte
}

// Any is Put's expect for "write whatever the current version is, or create".
const Any int64 = -1

// Bounds that every Store enforces.
const (
	// MaxDataBytes bounds one payload, a record's or an entry's.
	MaxDataBytes = 64 << 20
	// MaxKeyBytes bounds a kind and a key, each.
	MaxKeyBytes = 1024
)

var (
	// ErrNotFound: no such record (or it has expired).
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: the record's version was not the one Put expected. Put returns it
	// as a *ConflictError, which errors.Is matches with ErrConflict.
	ErrConflict = errors.New("store: version conflict")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
	// ErrTooLarge: a payload over MaxDataBytes, or a kind or key over MaxKeyBytes.
	ErrTooLarge = errors.New("store: too large")
	// ErrInvalid: an argument no store accepts: an empty kind, a kind or key that is
	// not valid UTF-8 or holds a NUL byte, an expect below Any, a negative sequence
	// number, an expiry outside the years 1970 to 2261.
	ErrInvalid = errors.New("store: invalid argument")
)

// ConflictError is Put's error when the record's version was not the expected one.
// It matches ErrConflict with errors.Is.
type ConflictError struct {
	Kind, Key string
	// Expect is the version Put was given.
	Expect int64
	// Current is the version the store found: 0 when the record did not exist. It may
	// have changed again by the time the caller reads it.
	Current int64
}

func (e *ConflictError) Error() string {
	found := "no record"
	if e.Current > 0 {
		found = fmt.Sprintf("version %d", e.Current)
	}
	want := "no record"
	if e.Expect > 0 {
		want = fmt.Sprintf("version %d", e.Expect)
	}
	return fmt.Sprintf("store: version conflict on %s %q: expected %s, found %s", e.Kind, e.Key, want, found)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Store keeps records and their logs. Every implementation is safe for concurrent use
// by many goroutines; the SQLite and PostgreSQL ones also by many processes on the same
// file or database (several `runcode serve` replicas share one PostgreSQL). Every
// method but Close returns ErrClosed after Close, and the context's error when it is
// done before the store answers.
type Store interface {
	// Get returns the record, or ErrNotFound.
	Get(ctx context.Context, kind, key string) (Record, error)
	// Put writes r.Data and r.Expires if the record's current version is expect (0:
	// it must not exist, Any: whatever it is) and returns the new version: 1 for a
	// new record, one more than the old one otherwise. A *ConflictError (ErrConflict)
	// otherwise, and nothing is written. Atomic across processes. A record that has
	// expired counts as not existing: writing it starts again at version 1 with an
	// empty log. Any other error leaves the outcome unknown in general (the server of
	// a networked store may commit a write whose answer never arrived): read to find
	// out.
	Put(ctx context.Context, r Record, expect int64) (int64, error)
	// Delete removes the record and its entries. A missing record is not an error.
	Delete(ctx context.Context, kind, key string) error
	// List returns the kind's records whose key starts with prefix (literally: no
	// character is a wildcard), by key ascending in byte order, at most limit of them
	// (limit <= 0: all).
	List(ctx context.Context, kind, prefix string, limit int) ([]Record, error)
	// PutEntry writes entry e.Seq of the record's log, replacing one with the same
	// Seq. ErrNotFound if the record does not exist.
	PutEntry(ctx context.Context, kind, key string, e Entry) error
	// Entries returns the record's log by Seq ascending (empty when it has none), or
	// ErrNotFound if the record does not exist.
	Entries(ctx context.Context, kind, key string) ([]Entry, error)
	// Prune removes the records whose expiry is at or before now, with their entries,
	// and says how many records went.
	Prune(ctx context.Context, now time.Time) (int, error)
	// Close releases the store. Calling it again returns nil.
	Close() error
}

// CheckKey reports whether kind and key are ones every store accepts: ErrInvalid or
// ErrTooLarge (wrapped, naming the problem) if not. Implementations of Store call it
// first; callers may call it to learn early.
func CheckKey(kind, key string) error {
	if kind == "" {
		return fmt.Errorf("%w: empty kind", ErrInvalid)
	}
	if err := checkName("kind", kind); err != nil {
		return err
	}
	return checkName("key", key)
}

// CheckPrefix is CheckKey for List's kind and prefix.
func CheckPrefix(kind, prefix string) error {
	if kind == "" {
		return fmt.Errorf("%w: empty kind", ErrInvalid)
	}
	if err := checkName("kind", kind); err != nil {
		return err
	}
	return checkName("prefix", prefix)
}

func checkName(what, s string) error {
	if len(s) > MaxKeyBytes {
		return fmt.Errorf("%w: a %s of %d bytes is over the limit of %d", ErrTooLarge, what, len(s), MaxKeyBytes)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: the %s %q is not valid UTF-8", ErrInvalid, what, s)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: the %s %q holds a NUL byte", ErrInvalid, what, s)
	}
	return nil
}

// CheckPut reports whether Put may store r with expect, as CheckKey does, and checks
// the payload's size, the expect and the expiry.
func CheckPut(r Record, expect int64) error {
	if err := CheckKey(r.Kind, r.Key); err != nil {
		return err
	}
	if err := checkData(r.Data); err != nil {
		return err
	}
	if expect < Any {
		return fmt.Errorf("%w: expect %d (want a version, 0 or Any)", ErrInvalid, expect)
	}
	if !r.Expires.IsZero() {
		if y := r.Expires.Year(); y < 1970 || y > 2261 || r.Expires.UnixNano() <= 0 {
			return fmt.Errorf("%w: expiry %s is outside the years 1970 to 2261", ErrInvalid, r.Expires.Format(time.RFC3339))
		}
	}
	return nil
}

// CheckEntry reports whether PutEntry may store e under kind and key.
func CheckEntry(kind, key string, e Entry) error {
	if err := CheckKey(kind, key); err != nil {
		return err
	}
	if e.Seq < 0 {
		return fmt.Errorf("%w: negative sequence number %d", ErrInvalid, e.Seq)
	}
	return checkData(e.Data)
}

func checkData(b []byte) error {
	if len(b) > MaxDataBytes {
		return fmt.Errorf("%w: a payload of %d bytes is over the limit of %d", ErrTooLarge, len(b), MaxDataBytes)
	}
	return nil
}
