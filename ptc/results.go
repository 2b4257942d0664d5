package ptc

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/runcode-go/runcode/store"
)

// ResultTTL is how long a result kept over the output budget can be read back.
const ResultTTL = time.Hour

// kindResult keys, in a store, a result kept because it was over its run's output
// budget; the key is its id ("r_" and 128 random bits, so that an id is also the right
// to read it).
const kindResult = "result"

// keepResult keeps a completion truncation cut, whole, and returns the line the model
// reads after the cut value; "" when it could not be kept (too large for the store, a
// store that failed), and the cut value stands alone.
func (e *Executor) keepResult(ctx context.Context, full []byte) string {
	b := make([]byte, 16)
	rand.Read(b)
	id := "r_" + base64.RawURLEncoding.EncodeToString(b)
	rec := store.Record{Kind: kindResult, Key: id, Data: full, Expires: e.now().Add(ResultTTL)}
	if _, err := e.store.Put(context.WithoutCancel(ctx), rec, 0); err != nil {
		return ""
	}
	return fmt.Sprintf("The full result is kept as %q (%d bytes): read it in your next program with await tools.$result(%q).", id, len(full), id)
}

// readResult answers tools.$result(id).
func (e *Executor) readResult(ctx context.Context, id string) (json.RawMessage, error) {
	rec, err := e.store.Get(ctx, kindResult, id)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) || errors.Is(err, store.ErrTooLarge) {
		return nil, fmt.Errorf("no result %q is kept (results are kept for %v)", id, ResultTTL)
	}
	if err != nil {
		return nil, err
	}
	return rec.Data, nil
}
