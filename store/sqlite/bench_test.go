package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/sqlite"
)

// BenchmarkOpenGetClose is what a cold `runcode run --store FILE` pays for its store:
// open an existing file, read one record, close.
func BenchmarkOpenGetClose(b *testing.B) {
	path := filepath.Join(b.TempDir(), "runcode.db")
	s, err := sqlite.Open(b.Context(), path, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Put(b.Context(), store.Record{Kind: "state", Key: "s", Data: make([]byte, 1024)}, 0); err != nil {
		b.Fatal(err)
	}
	s.Close()
	for b.Loop() {
		s, err := sqlite.Open(b.Context(), path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Get(b.Context(), "state", "s"); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPut is one compare-and-swap write of 1 KiB, committed (WAL, synchronous
// FULL: one fsync of the log per write).
func BenchmarkPut(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "runcode.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	data := make([]byte, 1024)
	var v int64
	for b.Loop() {
		if v, err = s.Put(b.Context(), store.Record{Kind: "state", Key: "s", Data: data}, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "runcode.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(b.Context(), store.Record{Kind: "state", Key: "s", Data: make([]byte, 1024)}, 0); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Get(b.Context(), "state", "s"); err != nil {
			b.Fatal(err)
		}
	}
}
