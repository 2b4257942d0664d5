package store_test

import (
	"testing"

	"github.com/runcode-go/runcode/internal/testleak"
	"github.com/runcode-go/runcode/store"
	"github.com/runcode-go/runcode/store/storetest"
)

func TestMain(m *testing.M) { testleak.VerifyTestMain(m) }

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return store.NewMemory() })
}
