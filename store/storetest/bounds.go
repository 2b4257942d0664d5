package storetest

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/runcode-go/runcode/store"
)

// call is one method of a Store called with a record's kind and key.
type call struct {
	name string
	do   func(ctx context.Context, s store.Store, kind, key string) error
}

// everyCall calls each method but Close once; Prune ignores kind and key.
var everyCall = []call{
	{"Get", func(ctx context.Context, s store.Store, kind, key string) error {
		_, err := s.Get(ctx, kind, key)
		return err
	}},
	{"Put", func(ctx context.Context, s store.Store, kind, key string) error {
		_, err := s.Put(ctx, store.Record{Kind: kind, Key: key, Data: []byte("x")}, store.Any)
		return err
	}},
	{"Delete", func(ctx context.Context, s store.Store, kind, key string) error {
		return s.Delete(ctx, kind, key)
	}},
	{"List", func(ctx context.Context, s store.Store, kind, key string) error {
		_, err := s.List(ctx, kind, key, 0)
		return err
	}},
	{"PutEntry", func(ctx context.Context, s store.Store, kind, key string) error {
		return s.PutEntry(ctx, kind, key, store.Entry{Seq: 1, Data: []byte("x")})
	}},
	{"Entries", func(ctx context.Context, s store.Store, kind, key string) error {
		_, err := s.Entries(ctx, kind, key)
		return err
	}},
	{"Prune", func(ctx context.Context, s store.Store, kind, key string) error {
		_, err := s.Prune(ctx, time.Now().Add(time.Hour))
		return err
	}},
}

// payload returns n bytes that are not valid UTF-8 and hold NUL bytes: a random block
// of a prime length, repeated (so that a reordered or shifted chunk shows), built with
// copy, which stays fast under the race detector.
func payload(n int) []byte {
	b := make([]byte, n)
	block := b[:min(n, 65521)]
	r := rand.NewChaCha8([32]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
	_, _ = r.Read(block)
	if len(block) > 3 {
		copy(block, "\x00\xff\xc3\x28")
	}
	for done := len(block); done < n; done *= 2 {
		copy(b[done:], b[:done])
	}
	return b
}

func testPayloads(t *testing.T, s store.Store) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"NUL", []byte{0}},
		{"invalid UTF-8", []byte("\xff\xfe\xc3\x28 \x00 end")},
		{"small binary", payload(1000)},
		{"at the limit", payload(store.MaxDataBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustPut(t, s, store.Record{Kind: "blob", Key: tc.name, Data: tc.data}, 0)
			got := mustGet(t, s, "blob", tc.name)
			if !bytes.Equal(got.Data, tc.data) || got.Data == nil {
				t.Errorf("record payload of %d bytes came back as %d bytes (nil: %t), or changed", len(tc.data), len(got.Data), got.Data == nil)
			}
			mustPutEntry(t, s, "blob", tc.name, store.Entry{Seq: 7, Data: tc.data})
			es := mustEntries(t, s, "blob", tc.name)
			if len(es) != 1 || es[0].Seq != 7 || !bytes.Equal(es[0].Data, tc.data) || es[0].Data == nil {
				t.Errorf("entry payload of %d bytes did not come back whole", len(tc.data))
			}
			if err := s.Delete(t.Context(), "blob", tc.name); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func testTooLarge(t *testing.T, s store.Store) {
	big := make([]byte, store.MaxDataBytes+1)
	if _, err := s.Put(t.Context(), store.Record{Kind: "blob", Key: "new", Data: big}, store.Any); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("Put of %d bytes: %v, want ErrTooLarge", len(big), err)
	}
	wantNotFound(t, s, "blob", "new")
	mustPut(t, s, store.Record{Kind: "blob", Key: "old", Data: []byte("small")}, 0)
	if _, err := s.Put(t.Context(), store.Record{Kind: "blob", Key: "old", Data: big}, 1); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("Put of %d bytes over a record: %v, want ErrTooLarge", len(big), err)
	}
	if got := mustGet(t, s, "blob", "old"); got.Version != 1 || string(got.Data) != "small" {
		t.Errorf("a refused Put changed the record: version %d, %d bytes", got.Version, len(got.Data))
	}
	if err := s.PutEntry(t.Context(), "blob", "old", store.Entry{Seq: 1, Data: big}); !errors.Is(err, store.ErrTooLarge) {
		t.Errorf("PutEntry of %d bytes: %v, want ErrTooLarge", len(big), err)
	}
	if es := mustEntries(t, s, "blob", "old"); len(es) != 0 {
		t.Errorf("a refused PutEntry wrote %d entries", len(es))
	}
}

func testKeys(t *testing.T, s store.Store) {
	longest := strings.Repeat("é", store.MaxKeyBytes/2) // two bytes each
	for _, tc := range []struct{ name, kind, key string }{
		{"empty key", "k", ""},
		{"longest key", "k", longest},
		{"longest kind", strings.Repeat("k", store.MaxKeyBytes), "key"},
		{"spaces and slashes", "run/state", " a b/c "},
		{"emoji", "k", "🙂 \U0010FFFF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustPut(t, s, store.Record{Kind: tc.kind, Key: tc.key, Data: []byte(tc.name)}, 0)
			if got := mustGet(t, s, tc.kind, tc.key); string(got.Data) != tc.name {
				t.Errorf("Get = %q, want %q", got.Data, tc.name)
			}
			mustPutEntry(t, s, tc.kind, tc.key, entry(1, "e"))
			if es := mustEntries(t, s, tc.kind, tc.key); len(es) != 1 {
				t.Errorf("Entries = %v, want one", es)
			}
			got, err := s.List(t.Context(), tc.kind, tc.key, 0)
			if err != nil || len(got) != 1 || got[0].Key != tc.key {
				t.Errorf("List(prefix: the key) = %v, %v; want the record", keysOf(got), err)
			}
			if err := s.Delete(t.Context(), tc.kind, tc.key); err != nil {
				t.Fatal(err)
			}
			wantNotFound(t, s, tc.kind, tc.key)
		})
	}
	tooLong := strings.Repeat("x", store.MaxKeyBytes+1)
	for _, c := range everyCall {
		if c.name == "Prune" {
			continue
		}
		if err := c.do(t.Context(), s, "k", tooLong); !errors.Is(err, store.ErrTooLarge) {
			t.Errorf("%s with a key of %d bytes: %v, want ErrTooLarge", c.name, len(tooLong), err)
		}
		if err := c.do(t.Context(), s, tooLong, "key"); !errors.Is(err, store.ErrTooLarge) {
			t.Errorf("%s with a kind of %d bytes: %v, want ErrTooLarge", c.name, len(tooLong), err)
		}
	}
}

func testInvalidArguments(t *testing.T, s store.Store) {
	for _, tc := range []struct{ name, kind, key string }{
		{"empty kind", "", "key"},
		{"key not UTF-8", "k", "a\xffb"},
		{"kind not UTF-8", "\xc3\x28", "key"},
		{"NUL in key", "k", "a\x00b"},
		{"NUL in kind", "k\x00", "key"},
	} {
		for _, c := range everyCall {
			if c.name == "Prune" {
				continue
			}
			if err := c.do(t.Context(), s, tc.kind, tc.key); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("%s: %s: %v, want ErrInvalid", tc.name, c.name, err)
			}
		}
	}
	mustPut(t, s, store.Record{Kind: "k", Key: "r"}, 0)
	for _, tc := range []struct {
		name   string
		r      store.Record
		expect int64
	}{
		{"expect below Any", store.Record{Kind: "k", Key: "r"}, -2},
		{"expiry before 1970", store.Record{Kind: "k", Key: "r", Expires: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}, 1},
		{"expiry at the epoch", store.Record{Kind: "k", Key: "r", Expires: time.Unix(0, 0)}, 1},
		{"expiry past 2261", store.Record{Kind: "k", Key: "r", Expires: time.Date(2262, 6, 1, 0, 0, 0, 0, time.UTC)}, 1},
	} {
		if v, err := s.Put(t.Context(), tc.r, tc.expect); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: Put = %d, %v; want ErrInvalid", tc.name, v, err)
		}
	}
	if err := s.PutEntry(t.Context(), "k", "r", store.Entry{Seq: -1}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("PutEntry with a negative seq: %v, want ErrInvalid", err)
	}
	if got := mustGet(t, s, "k", "r"); got.Version != 1 || !got.Expires.IsZero() {
		t.Errorf("refused writes changed the record: %+v", got)
	}
	if es := mustEntries(t, s, "k", "r"); len(es) != 0 {
		t.Errorf("a refused PutEntry wrote %v", es)
	}
}

func testAliasing(t *testing.T, s store.Store) {
	in := []byte("original")
	mustPut(t, s, store.Record{Kind: "k", Key: "r", Data: in}, 0)
	copy(in, "CHANGED!")
	got := mustGet(t, s, "k", "r")
	if string(got.Data) != "original" {
		t.Fatalf("changing Put's slice changed the record: %q", got.Data)
	}
	copy(got.Data, "CHANGED!")
	if got := mustGet(t, s, "k", "r"); string(got.Data) != "original" {
		t.Errorf("changing Get's slice changed the record: %q", got.Data)
	}
	list, err := s.List(t.Context(), "k", "", 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	copy(list[0].Data, "CHANGED!")
	if got := mustGet(t, s, "k", "r"); string(got.Data) != "original" {
		t.Errorf("changing List's slice changed the record: %q", got.Data)
	}

	e := []byte("entry")
	mustPutEntry(t, s, "k", "r", store.Entry{Seq: 1, Data: e})
	copy(e, "XXXXX")
	es := mustEntries(t, s, "k", "r")
	if string(es[0].Data) != "entry" {
		t.Fatalf("changing PutEntry's slice changed the entry: %q", es[0].Data)
	}
	copy(es[0].Data, "XXXXX")
	if es := mustEntries(t, s, "k", "r"); string(es[0].Data) != "entry" {
		t.Errorf("changing Entries' slice changed the entry: %q", es[0].Data)
	}
}

func testClosed(t *testing.T, s store.Store) {
	mustPut(t, s, store.Record{Kind: "k", Key: "r"}, 0)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, c := range everyCall {
		if err := c.do(t.Context(), s, "k", "r"); !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", c.name, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v, want nil", err)
	}
}

func testCancelled(t *testing.T, s store.Store) {
	mustPut(t, s, store.Record{Kind: "k", Key: "r", Data: []byte("before"), Expires: time.Now().Add(time.Minute)}, 0)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range everyCall {
		if err := c.do(ctx, s, "k", "r"); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", c.name, err)
		}
	}
	// Nothing was written, deleted or pruned.
	if got := mustGet(t, s, "k", "r"); got.Version != 1 || string(got.Data) != "before" {
		t.Errorf("cancelled calls changed the record: %+v", got)
	}
	if es := mustEntries(t, s, "k", "r"); len(es) != 0 {
		t.Errorf("a cancelled PutEntry wrote %v", es)
	}
	ctx, cancel = context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := s.Get(ctx, "k", "r"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Get past its deadline: %v, want context.DeadlineExceeded", err)
	}
}
