package ptc

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/store"
)

// The bounds of the results a session keeps over its runs' output budget
// (docs/run_code.md, "A result over the budget, kept"), when Options leave them zero.
const (
	DefaultMaxResults     = 16
	DefaultMaxResultBytes = 64 << 20
	DefaultResultTTL      = time.Hour
)

// kindResult keys, in a store, a result kept because it was over its run's output
// budget; the key is its id ("r_" and 128 random bits, so that an id cannot be
// guessed). kindResults keys a session's index of the results it keeps, oldest first;
// the key is the session's name, "" for the runs that name none. The index decides:
// a result is readable only while its session's index lists it, so a record that an
// eviction failed to delete, or that a keep wrote before failing, is never read, and
// goes at its expiry.
const (
	kindResult  = "result"
	kindResults = "results"
)

// maxIndexAttempts bounds how often one keep reads a session's index again after
// another run changed it first. Each conflict means some keep succeeded, so all of
// them end; this only keeps one unlucky keep from trying forever.
const maxIndexAttempts = 64

// resultIndex is the record of kind kindResults: a session's kept results, oldest
// first.
type resultIndex struct {
	Results []indexedResult `json:"results"`
}

// indexedResult is one result a session keeps.
type indexedResult struct {
	ID      string    `json:"id"`
	Bytes   int64     `json:"bytes"`
	Expires time.Time `json:"expires"`
}

// keptResults keeps, per session, the results of runs over their output budget, in a
// store: at most max of them and bytes together, each for ttl; keeping one past a
// bound evicts the session's oldest first. Several keepers (runs of one session in
// this process or in others sharing the store) may keep at once: a session's index is
// written with the store's version check, and read again on conflict. A keptResults
// is a plain value, safe for concurrent use.
type keptResults struct {
	st    store.Store
	now   func() time.Time
	max   int
	bytes int64
	ttl   time.Duration
}

// results returns the executor's keeper, with its bounds.
func (e *Executor) results() keptResults {
	return keptResults{st: e.store, now: e.now,
		max:   cmp.Or(e.o.MaxResults, DefaultMaxResults),
		bytes: cmp.Or(e.o.MaxResultBytes, DefaultMaxResultBytes),
		ttl:   cmp.Or(e.o.ResultTTL, DefaultResultTTL)}
}

// errResultTooLarge: a result over the byte bound of one session, or a store's
// record, is not kept.
var errResultTooLarge = errors.New("too large to keep")

// limit is the largest result kept: the session's byte bound, or the store's bound on
// a record when that is lower.
func (k keptResults) limit() int64 { return min(k.bytes, store.MaxDataBytes) }

// keep keeps full for session and returns its id. It fails with errResultTooLarge
// when full is over limit, or with the store's error; nothing is kept then.
func (k keptResults) keep(ctx context.Context, session string, full []byte) (string, error) {
	if int64(len(full)) > k.limit() {
		return "", errResultTooLarge
	}
	b := make([]byte, 16)
	rand.Read(b)
	id := "r_" + base64.RawURLEncoding.EncodeToString(b)
	it := indexedResult{ID: id, Bytes: int64(len(full)), Expires: k.now().Add(k.ttl)}
	if _, err := k.st.Put(ctx, store.Record{Kind: kindResult, Key: id, Data: full, Expires: it.Expires}, 0); err != nil {
		return "", err
	}
	gone, err := k.index(ctx, session, it)
	if err != nil {
		gone = []string{id} // never listed (or, if the store's answer was lost, unreadable until evicted)
	}
	for _, old := range gone {
		// Best effort: an evicted result is unreadable once the index no longer lists
		// it, and its record goes at its expiry anyway.
		_ = k.st.Delete(ctx, kindResult, old)
	}
	if err != nil {
		return "", err
	}
	return id, nil
}

// index adds it to session's index, taking out the results that expired and then the
// oldest while the session is over a bound, and returns the ids it took out.
func (k keptResults) index(ctx context.Context, session string, it indexedResult) ([]string, error) {
	for range maxIndexAttempts {
		idx, version, err := k.readIndex(ctx, session)
		if err != nil {
			return nil, err
		}
		now := k.now()
		var kept, gone []indexedResult
		for _, r := range idx.Results {
			if r.Expires.After(now) {
				kept = append(kept, r)
			} else {
				gone = append(gone, r)
			}
		}
		kept = append(kept, it)
		var total int64
		for _, r := range kept {
			total += r.Bytes
		}
		for len(kept) > k.max || total > k.bytes { // it fits alone: keep checked its size
			gone = append(gone, kept[0])
			total -= kept[0].Bytes
			kept = kept[1:]
		}
		expires := it.Expires
		for _, r := range kept {
			expires = later(expires, r.Expires)
		}
		data, err := json.Marshal(resultIndex{Results: kept})
		if err != nil {
			return nil, err
		}
		_, err = k.st.Put(ctx, store.Record{Kind: kindResults, Key: session, Data: data, Expires: expires}, version)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(gone))
		for i, r := range gone {
			ids[i] = r.ID
		}
		return ids, nil
	}
	return nil, fmt.Errorf("the index of session %q kept changing", session)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// readIndex returns session's index and its version (0 when it has none). An index
// that is not readable counts as empty, and is overwritten.
func (k keptResults) readIndex(ctx context.Context, session string) (resultIndex, int64, error) {
	rec, err := k.st.Get(ctx, kindResults, session)
	if errors.Is(err, store.ErrNotFound) {
		return resultIndex{}, 0, nil
	}
	if err != nil {
		return resultIndex{}, 0, err
	}
	var idx resultIndex
	if json.Unmarshal(rec.Data, &idx) != nil {
		idx = resultIndex{}
	}
	return idx, rec.Version, nil
}

// errNoResult: the session keeps no result by that id (it never had one, it was
// evicted or expired, or another session keeps it).
var errNoResult = errors.New("no such kept result")

// read returns the result id that session keeps, or errNoResult.
func (k keptResults) read(ctx context.Context, session, id string) ([]byte, error) {
	idx, _, err := k.readIndex(ctx, session)
	if err != nil {
		return nil, err
	}
	now := k.now()
	for _, r := range idx.Results {
		if r.ID != id || !r.Expires.After(now) {
			continue
		}
		rec, err := k.st.Get(ctx, kindResult, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, errNoResult
		}
		if err != nil {
			return nil, err
		}
		return rec.Data, nil
	}
	return nil, errNoResult
}

// keepResult keeps a completion truncation cut, whole, for the session of the run
// (pipeline.Session; the runs that name none share one group of their own), and
// returns the line the model reads after the cut value: the handle, or why there is
// none.
func (e *Executor) keepResult(ctx context.Context, full []byte) string {
	k := e.results()
	id, err := k.keep(context.WithoutCancel(ctx), pipeline.Session(ctx), full)
	switch {
	case errors.Is(err, errResultTooLarge):
		return fmt.Sprintf("The full result (%d bytes) is too large to keep (at most %s); return less of it.", len(full), byteCount(k.limit()))
	case err != nil:
		return fmt.Sprintf("The full result (%d bytes) could not be kept.", len(full))
	}
	return fmt.Sprintf("The full result is kept as %q (%d bytes): read it in your next program with await tools.$result(%q).", id, len(full), id)
}

// readResult answers tools.$result(id) in a run of the session ctx names. An id that
// session does not keep (unknown, evicted, expired, or another session's) fails the
// same way, whichever it is.
func (e *Executor) readResult(ctx context.Context, id string) (json.RawMessage, error) {
	k := e.results()
	data, err := k.read(ctx, pipeline.Session(ctx), id)
	if errors.Is(err, errNoResult) || errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrTooLarge) {
		return nil, fmt.Errorf("no result %q is kept (a session keeps its %d latest results, %s at most, each for %s)", id, k.max, byteCount(k.bytes), shortDuration(k.ttl))
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// shortDuration spells d as time.Duration does, without its zero minutes and seconds:
// "1h", "30m", "1h30m", "90s" stays "1m30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
