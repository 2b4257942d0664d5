package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/store"
)

func entry(seq int64, data string) store.Entry { return store.Entry{Seq: seq, Data: []byte(data)} }

func testEntries(t *testing.T, s store.Store) {
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("run")}, 0)
	if es := mustEntries(t, s, "run", "r"); len(es) != 0 {
		t.Errorf("a new record has entries: %v", es)
	}
	for _, e := range []store.Entry{entry(3, "three"), entry(1, "one"), entry(10, "ten"), entry(0, "zero"), entry(2, "two")} {
		mustPutEntry(t, s, "run", "r", e)
	}
	want := []store.Entry{entry(0, "zero"), entry(1, "one"), entry(2, "two"), entry(3, "three"), entry(10, "ten")}
	if diff := cmp.Diff(want, mustEntries(t, s, "run", "r"), recordOpts); diff != "" {
		t.Errorf("entries by seq (-want +got):\n%s", diff)
	}

	// Replacing an entry, and an empty one.
	mustPutEntry(t, s, "run", "r", entry(2, "TWO"))
	mustPutEntry(t, s, "run", "r", entry(3, ""))
	want = []store.Entry{entry(0, "zero"), entry(1, "one"), entry(2, "TWO"), entry(3, ""), entry(10, "ten")}
	if diff := cmp.Diff(want, mustEntries(t, s, "run", "r"), recordOpts); diff != "" {
		t.Errorf("entries after replacing 2 and 3 (-want +got):\n%s", diff)
	}

	// Updating the record keeps its log, and the log does not change its version.
	if got := mustGet(t, s, "run", "r"); got.Version != 1 {
		t.Errorf("entries changed the record's version to %d", got.Version)
	}
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("run v2")}, 1)
	if diff := cmp.Diff(want, mustEntries(t, s, "run", "r"), recordOpts); diff != "" {
		t.Errorf("entries after updating the record (-want +got):\n%s", diff)
	}

	// Another record's log is its own.
	mustPut(t, s, store.Record{Kind: "run", Key: "r2"}, 0)
	mustPutEntry(t, s, "run", "r2", entry(2, "other"))
	if diff := cmp.Diff([]store.Entry{entry(2, "other")}, mustEntries(t, s, "run", "r2"), recordOpts); diff != "" {
		t.Errorf("r2's entries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, mustEntries(t, s, "run", "r"), recordOpts); diff != "" {
		t.Errorf("r's entries after writing r2's (-want +got):\n%s", diff)
	}
}

func testEntriesNeedRecord(t *testing.T, s store.Store) {
	if err := s.PutEntry(t.Context(), "run", "missing", entry(1, "x")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutEntry on a missing record: %v, want ErrNotFound", err)
	}
	if es, err := s.Entries(t.Context(), "run", "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Entries of a missing record = %v, %v; want ErrNotFound", es, err)
	}
	// Creating the record later does not bring back what was refused.
	mustPut(t, s, store.Record{Kind: "run", Key: "missing"}, 0)
	if es := mustEntries(t, s, "run", "missing"); len(es) != 0 {
		t.Errorf("entries of a new record: %v", es)
	}
}

func testDelete(t *testing.T, s store.Store) {
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("x")}, 0)
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("x")}, 1)
	mustPutEntry(t, s, "run", "r", entry(1, "one"))
	if err := s.Delete(t.Context(), "run", "r"); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, "run", "r")
	if es, err := s.Entries(t.Context(), "run", "r"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Entries after Delete = %v, %v; want ErrNotFound", es, err)
	}
	if err := s.Delete(t.Context(), "run", "r"); err != nil {
		t.Errorf("deleting a missing record: %v", err)
	}
	if err := s.Delete(t.Context(), "never", "was"); err != nil {
		t.Errorf("deleting a never-stored record: %v", err)
	}
	// A record made again starts over: version 1, no entries.
	if v := mustPut(t, s, store.Record{Kind: "run", Key: "r"}, 0); v != 1 {
		t.Errorf("recreated record's version %d, want 1", v)
	}
	if es := mustEntries(t, s, "run", "r"); len(es) != 0 {
		t.Errorf("Delete left entries behind: %v", es)
	}
}

func testExpiry(t *testing.T, s store.Store) {
	now := time.Now()
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	mustPut(t, s, store.Record{Kind: "k", Key: "gone", Data: []byte("old"), Expires: past}, 0)
	mustPut(t, s, store.Record{Kind: "k", Key: "live", Data: []byte("new"), Expires: future}, 0)
	mustPut(t, s, store.Record{Kind: "k", Key: "forever", Data: []byte("forever")}, 0)

	wantNotFound(t, s, "k", "gone")
	if got := mustGet(t, s, "k", "live"); !got.Expires.Equal(future) {
		t.Errorf("live record's Expires = %v, want %v", got.Expires, future)
	}
	got, err := s.List(t.Context(), "k", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"forever", "live"}, keysOf(got)); diff != "" {
		t.Errorf("List shows expired records (-want +got):\n%s", diff)
	}

	// An expiry can be moved, and removed.
	mustPut(t, s, store.Record{Kind: "k", Key: "live", Data: []byte("new"), Expires: past}, 1)
	wantNotFound(t, s, "k", "live")
	mustPut(t, s, store.Record{Kind: "k", Key: "forever", Data: []byte("x"), Expires: future}, 1)
	mustPut(t, s, store.Record{Kind: "k", Key: "forever", Data: []byte("x")}, 2)
	if got := mustGet(t, s, "k", "forever"); !got.Expires.IsZero() {
		t.Errorf("an expiry put back to zero reads %v", got.Expires)
	}
}

func testExpiredIsGone(t *testing.T, s store.Store) {
	past := time.Now().Add(-time.Minute)
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("v1")}, 0)
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("v2")}, 1)
	mustPutEntry(t, s, "run", "r", entry(1, "ledger"))
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("v3"), Expires: past}, 2)

	if err := s.PutEntry(t.Context(), "run", "r", entry(2, "late")); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutEntry on an expired record: %v, want ErrNotFound", err)
	}
	if es, err := s.Entries(t.Context(), "run", "r"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Entries of an expired record = %v, %v; want ErrNotFound", es, err)
	}
	// Its version is no longer the one to expect: it does not exist.
	_, err := s.Put(t.Context(), store.Record{Kind: "run", Key: "r"}, 3)
	var ce *store.ConflictError
	if !errors.As(err, &ce) || ce.Current != 0 {
		t.Errorf("Put expecting an expired record's version: %v, want a conflict with Current 0", err)
	}
	// Writing it again starts a new record: version 1, an empty log.
	if v := mustPut(t, s, store.Record{Kind: "run", Key: "r", Data: []byte("again")}, 0); v != 1 {
		t.Errorf("Put over an expired record returned version %d, want 1", v)
	}
	if es := mustEntries(t, s, "run", "r"); len(es) != 0 {
		t.Errorf("a record put over an expired one has its entries: %v", es)
	}
	// The same with Any.
	mustPutEntry(t, s, "run", "r", entry(5, "x"))
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Expires: past}, 1)
	if v := mustPut(t, s, store.Record{Kind: "run", Key: "r"}, store.Any); v != 1 {
		t.Errorf("Put(Any) over an expired record returned version %d, want 1", v)
	}
	if es := mustEntries(t, s, "run", "r"); len(es) != 0 {
		t.Errorf("a record put with Any over an expired one has its entries: %v", es)
	}
	// Delete removes an expired record without complaint.
	mustPut(t, s, store.Record{Kind: "run", Key: "r", Expires: past}, 1)
	if err := s.Delete(t.Context(), "run", "r"); err != nil {
		t.Errorf("Delete of an expired record: %v", err)
	}
}

func testPrune(t *testing.T, s store.Store) {
	now := time.Now()
	put := func(key string, expires time.Time, entries int) {
		mustPut(t, s, store.Record{Kind: "k", Key: key, Data: []byte(key), Expires: expires}, 0)
		for i := range entries {
			mustPutEntry(t, s, "k", key, entry(int64(i), key))
		}
	}
	put("forever", time.Time{}, 2)
	put("hour", now.Add(time.Hour), 2)
	put("day", now.Add(24*time.Hour), 1)
	put("other-kind", time.Time{}, 0)
	mustPut(t, s, store.Record{Kind: "k2", Key: "hour", Expires: now.Add(time.Hour)}, 0)

	n, err := s.Prune(t.Context(), now)
	if err != nil || n != 0 {
		t.Errorf("Prune with nothing expired = %d, %v; want 0", n, err)
	}
	n, err = s.Prune(t.Context(), now.Add(time.Hour)) // at the expiry: expired
	if err != nil || n != 2 {
		t.Errorf("Prune an hour on = %d, %v; want 2 (k/hour and k2/hour)", n, err)
	}
	wantNotFound(t, s, "k2", "hour")
	if got := mustGet(t, s, "k", "day"); got.Version != 1 {
		t.Errorf("Prune touched a live record: %+v", got)
	}
	// The pruned record's log went with it: a record made again has none.
	mustPut(t, s, store.Record{Kind: "k", Key: "hour"}, 0)
	if es := mustEntries(t, s, "k", "hour"); len(es) != 0 {
		t.Errorf("Prune left a log behind: %v", es)
	}
	n, err = s.Prune(t.Context(), now.Add(1000*time.Hour))
	if err != nil || n != 1 {
		t.Errorf("Prune far on = %d, %v; want 1 (k/day)", n, err)
	}
	got, err := s.List(t.Context(), "k", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"forever", "hour", "other-kind"}, keysOf(got)); diff != "" {
		t.Errorf("records left after Prune (-want +got):\n%s", diff)
	}
	if es := mustEntries(t, s, "k", "forever"); len(es) != 2 {
		t.Errorf("Prune took entries of a record without expiry: %v", es)
	}
}
