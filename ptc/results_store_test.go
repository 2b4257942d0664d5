package ptc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/internal/testpg"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/postgres"
	"github.com/runcode-go/runcode/store/sqlite"
)

// The kept results' bounds, eviction and concurrency on each backend. open returns a
// new handle on one store each time it is called: for SQLite and PostgreSQL, a
// connection of its own, as a second process would have.
func TestKeptResultsStores(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		st := store.NewMemory()
		testKeptResults(t, func(*testing.T) store.Store { return st })
	})
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.db")
		testKeptResults(t, func(t *testing.T) store.Store {
			st, err := sqlite.Open(t.Context(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := testpg.FreshDatabase(t)
		testKeptResults(t, func(t *testing.T) store.Store {
			st, err := postgres.Open(t.Context(), dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func testKeptResults(t *testing.T, open func(t *testing.T) store.Store) {
	for _, tc := range []struct {
		name string
		f    func(t *testing.T, open func(t *testing.T) store.Store)
	}{
		{"count", testKeptCount},
		{"bytes", testKeptBytes},
		{"too large", testKeptTooLarge},
		{"expiry", testKeptExpiry},
		{"sessions", testKeptSessions},
		{"interleaved", testKeptInterleaved},
		{"concurrent", testKeptConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, open) })
	}
}

// session names a session of its own for each test, as the stores are shared.
func session(t *testing.T) string { return t.Name() }

func keeper(st store.Store, max int, bytes int64) keptResults {
	return keptResults{st: st, now: time.Now, max: max, bytes: bytes, ttl: time.Hour}
}

func mustKeep(t *testing.T, k keptResults, sess string, data string) string {
	t.Helper()
	id, err := k.keep(t.Context(), sess, []byte(data))
	if err != nil {
		t.Fatalf("keeping %q: %v", data, err)
	}
	return id
}

// readable returns what k reads of each id in session, "-" for one it does not keep.
func readable(t *testing.T, k keptResults, sess string, ids ...string) []string {
	t.Helper()
	var got []string
	for _, id := range ids {
		data, err := k.read(t.Context(), sess, id)
		switch {
		case errors.Is(err, errNoResult):
			got = append(got, "-")
		case err != nil:
			t.Fatalf("reading %s: %v", id, err)
		default:
			got = append(got, string(data))
		}
	}
	return got
}

// stored returns which of ids have a result record.
func stored(t *testing.T, st store.Store, ids ...string) []string {
	t.Helper()
	var got []string
	for _, id := range ids {
		if _, err := st.Get(t.Context(), kindResult, id); err == nil {
			got = append(got, id)
		} else if !errors.Is(err, store.ErrNotFound) {
			t.Fatal(err)
		}
	}
	return got
}

// Keeping a third of at most two evicts the oldest, and deletes its record.
func testKeptCount(t *testing.T, open func(t *testing.T) store.Store) {
	st := open(t)
	k := keeper(st, 2, 1<<20)
	a, b := mustKeep(t, k, session(t), `"a"`), mustKeep(t, k, session(t), `"b"`)
	c := mustKeep(t, k, session(t), `"c"`)
	if diff := cmp.Diff([]string{"-", `"b"`, `"c"`}, readable(t, k, session(t), a, b, c)); diff != "" {
		t.Errorf("after three (-want +got):\n%s", diff)
	}
	d := mustKeep(t, k, session(t), `"d"`)
	if diff := cmp.Diff([]string{"-", "-", `"c"`, `"d"`}, readable(t, k, session(t), a, b, c, d)); diff != "" {
		t.Errorf("after four (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{c, d}, stored(t, st, a, b, c, d)); diff != "" {
		t.Errorf("records left (-want +got):\n%s", diff)
	}
}

// The bytes bound evicts as many of the oldest as it takes; one at the bound is kept
// alone.
func testKeptBytes(t *testing.T, open func(t *testing.T) store.Store) {
	k := keeper(open(t), 10, 10)
	a, b, c := mustKeep(t, k, session(t), `"aa"`), mustKeep(t, k, session(t), `"b"`), mustKeep(t, k, session(t), `"c"`)
	if diff := cmp.Diff([]string{`"aa"`, `"b"`, `"c"`}, readable(t, k, session(t), a, b, c)); diff != "" {
		t.Errorf("10 bytes of 10 (-want +got):\n%s", diff)
	}
	d := mustKeep(t, k, session(t), `"dd"`) // 14 bytes: a goes
	if diff := cmp.Diff([]string{"-", `"b"`, `"c"`, `"dd"`}, readable(t, k, session(t), a, b, c, d)); diff != "" {
		t.Errorf("after 4 more (-want +got):\n%s", diff)
	}
	e := mustKeep(t, k, session(t), `"eeeeeeee"`) // exactly the bound: alone
	if diff := cmp.Diff([]string{"-", "-", "-", `"eeeeeeee"`}, readable(t, k, session(t), b, c, d, e)); diff != "" {
		t.Errorf("one of 10 bytes (-want +got):\n%s", diff)
	}
}

// A result over the bytes bound is not kept, and the session's others stay.
func testKeptTooLarge(t *testing.T, open func(t *testing.T) store.Store) {
	st := open(t)
	k := keeper(st, 10, 10)
	a := mustKeep(t, k, session(t), `"a"`)
	if id, err := k.keep(t.Context(), session(t), []byte(`"123456789"`)); !errors.Is(err, errResultTooLarge) || id != "" {
		t.Errorf("11 bytes of 10: %q, %v", id, err)
	}
	if got := readable(t, k, session(t), a); got[0] != `"a"` {
		t.Errorf("the one kept before: %v", got)
	}
	recs, err := st.List(t.Context(), kindResults, session(t), 0)
	if err != nil || len(recs) != 1 || string(recs[0].Data) != `{"results":[{"id":"`+a+`","bytes":3,"expires":"`+recs[0].Expires.Format(time.RFC3339Nano)+`"}]}` {
		t.Errorf("index: %v, %+v", err, recs)
	}
}

// A result expires with its TTL on the keeper's clock; the next keep drops it from the
// index and deletes its record.
func testKeptExpiry(t *testing.T, open func(t *testing.T) store.Store) {
	st := open(t)
	now := time.Now()
	k := keeper(st, 10, 1<<20)
	k.now = func() time.Time { return now }
	a := mustKeep(t, k, session(t), `"a"`)
	now = now.Add(30 * time.Minute)
	b := mustKeep(t, k, session(t), `"b"`)
	now = now.Add(30 * time.Minute)
	if diff := cmp.Diff([]string{"-", `"b"`}, readable(t, k, session(t), a, b)); diff != "" {
		t.Errorf("an hour after the first (-want +got):\n%s", diff)
	}
	c := mustKeep(t, k, session(t), `"c"`)
	if diff := cmp.Diff([]string{b, c}, stored(t, st, a, b, c)); diff != "" {
		t.Errorf("records left (-want +got):\n%s", diff)
	}
}

// Sessions are counted apart, and read only their own.
func testKeptSessions(t *testing.T, open func(t *testing.T) store.Store) {
	k := keeper(open(t), 1, 1<<20)
	x, y := session(t)+"/x", session(t)+"/y"
	a, b := mustKeep(t, k, x, `"a"`), mustKeep(t, k, y, `"b"`)
	if diff := cmp.Diff([]string{`"a"`, "-"}, readable(t, k, x, a, b)); diff != "" {
		t.Errorf("session x (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"-", `"b"`}, readable(t, k, y, a, b)); diff != "" {
		t.Errorf("session y (-want +got):\n%s", diff)
	}
}

// Two keepers on two handles of one store keep results in one session at once: the
// session ends up with exactly its bound, each of them readable, and the records of
// every result evicted are gone.
func testKeptConcurrent(t *testing.T, open func(t *testing.T) store.Store) {
	const max, each = 5, 12
	handles := []store.Store{open(t), open(t)}
	ids := make([][]string, len(handles))
	var wg sync.WaitGroup
	for i, st := range handles {
		wg.Go(func() {
			k := keeper(st, max, 1<<20)
			for j := range each {
				id, err := k.keep(context.Background(), session(t), fmt.Appendf(nil, `"%d.%d"`, i, j))
				if err != nil {
					t.Errorf("keeper %d, result %d: %v", i, j, err)
					return
				}
				ids[i] = append(ids[i], id)
			}
		})
	}
	wg.Wait()
	all := slices.Concat(ids...)
	k := keeper(handles[0], max, 1<<20)
	var kept int
	for _, got := range readable(t, k, session(t), all...) {
		if got != "-" {
			kept++
		}
	}
	if kept != max {
		t.Errorf("%d of %d results readable, want %d", kept, len(all), max)
	}
	if left := stored(t, handles[1], all...); len(left) != max {
		t.Errorf("%d result records left, want %d", len(left), max)
	}
	for i := range ids { // a keeper's own results go oldest first
		got := readable(t, k, session(t), ids[i]...)
		if first := slices.IndexFunc(got, func(s string) bool { return s != "-" }); first >= 0 && slices.Contains(got[first:], "-") {
			t.Errorf("keeper %d: %v", i, got)
		}
	}
}

// interleaving is a store whose next read of a session's index runs between first,
// once: another keeper's write between this one's read and write.
type interleaving struct {
	store.Store
	between func()
}

func (s *interleaving) Get(ctx context.Context, kind, key string) (store.Record, error) {
	rec, err := s.Store.Get(ctx, kind, key)
	if f := s.between; kind == kindResults && f != nil {
		s.between = nil
		f()
	}
	return rec, err
}

// A keep whose index another keep changed after it read it writes nothing on the
// stale version: it reads the index again, and the bound counts both.
func testKeptInterleaved(t *testing.T, open func(t *testing.T) store.Store) {
	st := open(t)
	other := keeper(st, 2, 1<<20)
	a := mustKeep(t, other, session(t), `"a"`)
	var b string
	slow := &interleaving{Store: st, between: func() { b = mustKeep(t, other, session(t), `"b"`) }}
	c := mustKeep(t, keeper(slow, 2, 1<<20), session(t), `"c"`)
	if diff := cmp.Diff([]string{"-", `"b"`, `"c"`}, readable(t, other, session(t), a, b, c)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{b, c}, stored(t, st, a, b, c)); diff != "" {
		t.Errorf("records left (-want +got):\n%s", diff)
	}
}
