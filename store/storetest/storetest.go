package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/runcode-go/runcode/store"
)

// Run runs the suite, each case in a subtest of its own with a store from open. open
// must return a new, empty store and arrange with t.Cleanup whatever it holds beyond
// the store (a temporary database, say); Run closes every store it opens, and one case
// closes its store itself before that (Close must then return nil again).
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	cases := []struct {
		name string
		run  func(t *testing.T, s store.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"Versions", testVersions},
		{"ConcurrentCreate", testConcurrentCreate},
		{"ConcurrentUpdate", testConcurrentUpdate},
		{"ConcurrentAny", testConcurrentAny},
		{"Kinds", testKinds},
		{"List", testList},
		{"ListLimit", testListLimit},
		{"Entries", testEntries},
		{"EntriesNeedRecord", testEntriesNeedRecord},
		{"Delete", testDelete},
		{"Expiry", testExpiry},
		{"ExpiredIsGone", testExpiredIsGone},
		{"Prune", testPrune},
		{"Payloads", testPayloads},
		{"TooLarge", testTooLarge},
		{"Keys", testKeys},
		{"InvalidArguments", testInvalidArguments},
		{"Aliasing", testAliasing},
		{"Closed", testClosed},
		{"Cancelled", testCancelled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			c.run(t, s)
		})
	}
}

// recordOpts compares records as the contract promises them: an expiry to the
// nanosecond whatever its location (time.Time's Equal), payloads by content.
var recordOpts = cmp.Options{cmpopts.EquateEmpty()}

func mustPut(t *testing.T, s store.Store, r store.Record, expect int64) int64 {
	t.Helper()
	v, err := s.Put(t.Context(), r, expect)
	if err != nil {
		t.Fatalf("Put(%s/%q, expect %d): %v", r.Kind, r.Key, expect, err)
	}
	return v
}

func mustGet(t *testing.T, s store.Store, kind, key string) store.Record {
	t.Helper()
	r, err := s.Get(t.Context(), kind, key)
	if err != nil {
		t.Fatalf("Get(%s/%q): %v", kind, key, err)
	}
	return r
}

func mustPutEntry(t *testing.T, s store.Store, kind, key string, e store.Entry) {
	t.Helper()
	if err := s.PutEntry(t.Context(), kind, key, e); err != nil {
		t.Fatalf("PutEntry(%s/%q, %d): %v", kind, key, e.Seq, err)
	}
}

func mustEntries(t *testing.T, s store.Store, kind, key string) []store.Entry {
	t.Helper()
	es, err := s.Entries(t.Context(), kind, key)
	if err != nil {
		t.Fatalf("Entries(%s/%q): %v", kind, key, err)
	}
	return es
}

func wantNotFound(t *testing.T, s store.Store, kind, key string) {
	t.Helper()
	if r, err := s.Get(t.Context(), kind, key); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(%s/%q) = %+v, %v; want ErrNotFound", kind, key, r, err)
	}
}

func testRoundTrip(t *testing.T, s store.Store) {
	expires := time.Date(2200, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	in := store.Record{Kind: "run", Key: "r1", Data: []byte(`{"a":1}`), Version: 99, Expires: expires}
	if v := mustPut(t, s, in, 0); v != 1 {
		t.Errorf("first Put returned version %d, want 1", v)
	}
	got := mustGet(t, s, "run", "r1")
	want := store.Record{Kind: "run", Key: "r1", Data: []byte(`{"a":1}`), Version: 1, Expires: expires}
	if diff := cmp.Diff(want, got, recordOpts); diff != "" {
		t.Errorf("Get after Put (-want +got):\n%s", diff)
	}
	if got.Data == nil {
		t.Error("Get returned nil Data")
	}
	if got.Expires.Location() != time.UTC {
		t.Errorf("Expires came back in %v, want UTC", got.Expires.Location())
	}
	if !got.Expires.Equal(expires) {
		t.Errorf("Expires = %v, want %v", got.Expires, expires)
	}

	// No expiry stays no expiry.
	mustPut(t, s, store.Record{Kind: "run", Key: "r2", Data: []byte("x")}, store.Any)
	if got := mustGet(t, s, "run", "r2"); !got.Expires.IsZero() {
		t.Errorf("a record put without expiry came back with Expires %v", got.Expires)
	}
	wantNotFound(t, s, "run", "r3")
	wantNotFound(t, s, "other", "r1")
}

func testVersions(t *testing.T, s store.Store) {
	steps := []struct {
		name    string
		key     string
		expect  int64
		want    int64 // the version Put returns; 0 when it must conflict
		current int64 // ConflictError.Current when it conflicts
	}{
		{"create", "a", 0, 1, 0},
		{"update at 1", "a", 1, 2, 0},
		{"any", "a", store.Any, 3, 0},
		{"create over existing", "a", 0, 0, 3},
		{"stale version", "a", 2, 0, 3},
		{"future version", "a", 7, 0, 3},
		{"update at 3", "a", 3, 4, 0},
		{"update missing", "b", 1, 0, 0},
		{"any creates", "b", store.Any, 1, 0},
		{"any again", "b", store.Any, 2, 0},
	}
	for i, st := range steps {
		data := fmt.Appendf(nil, "step %d", i)
		v, err := s.Put(t.Context(), store.Record{Kind: "k", Key: st.key, Data: data}, st.expect)
		if st.want == 0 {
			var ce *store.ConflictError
			if !errors.As(err, &ce) || !errors.Is(err, store.ErrConflict) {
				t.Fatalf("%s: Put = %d, %v; want a *ConflictError matching ErrConflict", st.name, v, err)
			}
			want := &store.ConflictError{Kind: "k", Key: st.key, Expect: st.expect, Current: st.current}
			if diff := cmp.Diff(want, ce); diff != "" {
				t.Errorf("%s: conflict (-want +got):\n%s", st.name, diff)
			}
			continue
		}
		if err != nil || v != st.want {
			t.Fatalf("%s: Put = %d, %v; want %d", st.name, v, err, st.want)
		}
		if got := mustGet(t, s, "k", st.key); got.Version != st.want || string(got.Data) != string(data) {
			t.Fatalf("%s: Get = version %d data %q; want %d %q", st.name, got.Version, got.Data, st.want, data)
		}
	}
	// A conflict wrote nothing.
	if got := mustGet(t, s, "k", "a"); string(got.Data) != "step 6" {
		t.Errorf("after conflicts the data is %q, want the last successful write's", got.Data)
	}
}

// race runs f from n goroutines released at once and returns their results in order.
func race[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}

type putResult struct {
	version int64
	err     error
}

// winners checks that exactly one of results succeeded with version want and that
// every other one conflicted; it returns the winner's index.
func winners(t *testing.T, results []putResult, want int64) int {
	t.Helper()
	won := -1
	for i, r := range results {
		switch {
		case r.err == nil:
			if won >= 0 {
				t.Errorf("goroutines %d and %d both won", won, i)
			}
			won = i
			if r.version != want {
				t.Errorf("the winner got version %d, want %d", r.version, want)
			}
		case !errors.Is(r.err, store.ErrConflict):
			t.Errorf("goroutine %d: %v, want a win or ErrConflict", i, r.err)
		}
	}
	if won < 0 {
		t.Fatal("no goroutine won")
	}
	return won
}

func testConcurrentCreate(t *testing.T, s store.Store) {
	results := race(20, func(i int) putResult {
		v, err := s.Put(t.Context(), store.Record{Kind: "k", Key: "x", Data: fmt.Appendf(nil, "%d", i)}, 0)
		return putResult{v, err}
	})
	won := winners(t, results, 1)
	if got := mustGet(t, s, "k", "x"); string(got.Data) != fmt.Sprint(won) || got.Version != 1 {
		t.Errorf("Get = version %d data %q; want the winner's (%d) at version 1", got.Version, got.Data, won)
	}
}

func testConcurrentUpdate(t *testing.T, s store.Store) {
	mustPut(t, s, store.Record{Kind: "k", Key: "x", Data: []byte("start")}, 0)
	mustPut(t, s, store.Record{Kind: "k", Key: "x", Data: []byte("start")}, 1)
	results := race(20, func(i int) putResult {
		v, err := s.Put(t.Context(), store.Record{Kind: "k", Key: "x", Data: fmt.Appendf(nil, "%d", i)}, 2)
		return putResult{v, err}
	})
	won := winners(t, results, 3)
	if got := mustGet(t, s, "k", "x"); string(got.Data) != fmt.Sprint(won) || got.Version != 3 {
		t.Errorf("Get = version %d data %q; want the winner's (%d) at version 3", got.Version, got.Data, won)
	}
}

func testConcurrentAny(t *testing.T, s store.Store) {
	const n = 20
	results := race(n, func(i int) putResult {
		v, err := s.Put(t.Context(), store.Record{Kind: "k", Key: "x", Data: []byte("any")}, store.Any)
		return putResult{v, err}
	})
	var versions []int64
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("goroutine %d: %v", i, r.err)
		}
		versions = append(versions, r.version)
	}
	slices.Sort(versions)
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Errorf("unconditional writes' versions are not 1..%d, each once (-want +got):\n%s", n, diff)
	}
	if got := mustGet(t, s, "k", "x"); got.Version != n {
		t.Errorf("final version %d, want %d", got.Version, n)
	}
}

func testKinds(t *testing.T, s store.Store) {
	mustPut(t, s, store.Record{Kind: "a", Key: "x", Data: []byte("in a")}, 0)
	mustPut(t, s, store.Record{Kind: "b", Key: "x", Data: []byte("in b")}, 0)
	mustPutEntry(t, s, "a", "x", store.Entry{Seq: 1, Data: []byte("a1")})
	if es := mustEntries(t, s, "b", "x"); len(es) != 0 {
		t.Errorf("kind b's record has kind a's entries: %v", es)
	}
	if err := s.Delete(t.Context(), "b", "x"); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "a", "x"); string(got.Data) != "in a" {
		t.Errorf("deleting b/x changed a/x: %q", got.Data)
	}
	if es := mustEntries(t, s, "a", "x"); len(es) != 1 {
		t.Errorf("deleting b/x changed a/x's entries: %v", es)
	}
	got, err := s.List(t.Context(), "a", "", 0)
	if err != nil || len(got) != 1 || got[0].Kind != "a" {
		t.Errorf("List(a) = %+v, %v; want only a/x", got, err)
	}
}
