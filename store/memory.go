package store

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// NewMemory returns a Store that keeps everything in this process's memory: the
// library's default, for runs that need not outlive the process. Nothing survives
// Close or the process. It is safe for concurrent use by many goroutines.
func NewMemory() Store {
	return &memory{kinds: map[string]map[string]*memRecord{}}
}

type memory struct {
	mu     sync.RWMutex
	closed bool
	kinds  map[string]map[string]*memRecord // kind -> key -> record
}

// memRecord is one record with its log. Its fields change only under memory.mu, and
// the slices it holds are never handed out: readers get copies.
type memRecord struct {
	data    []byte
	version int64
	expires time.Time // UTC, zero: never
	entries map[int64][]byte
}

func (r *memRecord) expired(now time.Time) bool {
	return !r.expires.IsZero() && !r.expires.After(now)
}

// begin checks the context and the store's state; the caller holds mu.
func (m *memory) begin(ctx context.Context) error {
	if m.closed {
		return ErrClosed
	}
	return ctx.Err()
}

// live returns the record if it exists and has not expired; the caller holds mu.
func (m *memory) live(kind, key string, now time.Time) *memRecord {
	r := m.kinds[kind][key]
	if r == nil || r.expired(now) {
		return nil
	}
	return r
}

func (m *memory) Get(ctx context.Context, kind, key string) (Record, error) {
	if err := CheckKey(kind, key); err != nil {
		return Record{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.begin(ctx); err != nil {
		return Record{}, err
	}
	r := m.live(kind, key, time.Now())
	if r == nil {
		return Record{}, ErrNotFound
	}
	return r.record(kind, key), nil
}

func (r *memRecord) record(kind, key string) Record {
	return Record{Kind: kind, Key: key, Data: clone(r.data), Version: r.version, Expires: r.expires}
}

func (m *memory) Put(ctx context.Context, rec Record, expect int64) (int64, error) {
	if err := CheckPut(rec, expect); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return 0, err
	}
	r := m.live(rec.Kind, rec.Key, time.Now())
	var current int64
	if r != nil {
		current = r.version
	}
	if expect != Any && expect != current {
		return 0, &ConflictError{Kind: rec.Kind, Key: rec.Key, Expect: expect, Current: current}
	}
	if r == nil { // new, or replacing an expired one with its log
		r = &memRecord{}
		keys := m.kinds[rec.Kind]
		if keys == nil {
			keys = map[string]*memRecord{}
			m.kinds[rec.Kind] = keys
		}
		keys[rec.Key] = r
	}
	r.data = clone(rec.Data)
	r.version = current + 1
	r.expires = time.Time{}
	if !rec.Expires.IsZero() {
		r.expires = rec.Expires.UTC()
	}
	return r.version, nil
}

func (m *memory) Delete(ctx context.Context, kind, key string) error {
	if err := CheckKey(kind, key); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return err
	}
	m.remove(kind, key)
	return nil
}

// remove deletes a record; the caller holds mu for writing.
func (m *memory) remove(kind, key string) {
	keys := m.kinds[kind]
	delete(keys, key)
	if len(keys) == 0 {
		delete(m.kinds, kind)
	}
}

func (m *memory) List(ctx context.Context, kind, prefix string, limit int) ([]Record, error) {
	if err := CheckPrefix(kind, prefix); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.begin(ctx); err != nil {
		return nil, err
	}
	now := time.Now()
	var keys []string
	for k, r := range m.kinds[kind] {
		if strings.HasPrefix(k, prefix) && !r.expired(now) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if limit > 0 && len(keys) > limit {
		keys = keys[:limit]
	}
	out := make([]Record, 0, len(keys))
	for _, k := range keys {
		out = append(out, m.kinds[kind][k].record(kind, k))
	}
	return out, nil
}

func (m *memory) PutEntry(ctx context.Context, kind, key string, e Entry) error {
	if err := CheckEntry(kind, key, e); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return err
	}
	r := m.live(kind, key, time.Now())
	if r == nil {
		return ErrNotFound
	}
	if r.entries == nil {
		r.entries = map[int64][]byte{}
	}
	r.entries[e.Seq] = clone(e.Data)
	return nil
}

func (m *memory) Entries(ctx context.Context, kind, key string) ([]Entry, error) {
	if err := CheckKey(kind, key); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if err := m.begin(ctx); err != nil {
		return nil, err
	}
	r := m.live(kind, key, time.Now())
	if r == nil {
		return nil, ErrNotFound
	}
	out := make([]Entry, 0, len(r.entries))
	for seq, d := range r.entries {
		out = append(out, Entry{Seq: seq, Data: clone(d)})
	}
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

func (m *memory) Prune(ctx context.Context, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.begin(ctx); err != nil {
		return 0, err
	}
	n := 0
	for kind, keys := range m.kinds {
		for key, r := range keys {
			if r.expired(now) {
				m.remove(kind, key)
				n++
			}
		}
	}
	return n, nil
}

func (m *memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.kinds = nil
	return nil
}

func clone(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return slices.Clone(b)
}
