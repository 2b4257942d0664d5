package ptc

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/runtime"
	"github.com/runcode-go/runcode/store"
)

// DefaultPauseTTL is how long a paused run can be resumed unless Options.PauseTTL says
// otherwise.
const DefaultPauseTTL = time.Hour

// pruneGrace is how long a run's record outlives its continuation, so that a late
// resume is told the token expired rather than that the run is unknown.
const pruneGrace = time.Hour

// The store's kinds.
const (
	kindRun = "run" // a paused run (or one in flight, with a durable store); key: its id
	kindKey = "key" // the continuation key; key: keyName
	keyName = "continuation"
)

// ResumeError says why a continuation cannot resume its run. Its message is the text a
// model or a person reads.
type ResumeError struct{ Reason string }

func (e *ResumeError) Error() string { return "run_code could not resume: " + e.Reason }

// The reasons of a ResumeError.
var (
	ErrAlreadyResumed = &ResumeError{"this run was already resumed"}
	ErrToolsChanged   = &ResumeError{"the tools changed since the run paused"}
	ErrExpired        = &ResumeError{"the continuation expired"}
	ErrBadToken       = &ResumeError{"the continuation is not valid"}
)

// Is matches a ResumeError with the same reason.
func (e *ResumeError) Is(target error) bool {
	t, ok := target.(*ResumeError)
	return ok && t.Reason == e.Reason
}

// Decision is a person's answer to a pending call, by its id (pipeline.PendingCall.ID).
type Decision = pipeline.Verdict

// runRecord is what the store keeps of a paused run besides its ledger.
type runRecord struct {
	Code        string `json:"code"`
	Description string `json:"description"`
	// Call is the run_code call: the resumed run reuses its id, so sub-call ids (and
	// with them the pending ids) stay the same.
	CallID   string                 `json:"callId"`
	RootID   string                 `json:"rootId,omitempty"`
	Agent    string                 `json:"agent,omitempty"`
	Program  string                 `json:"program"` // hash of Code
	Tools    string                 `json:"tools"`   // hash of the tool set
	State    string                 `json:"state"`   // "running" or "paused"
	Pending  []pipeline.PendingCall `json:"pending,omitempty"`
	Decided  map[string]Decision    `json:"decided,omitempty"`
	Draws    *runtime.Draws         `json:"draws,omitempty"`
	Compute  time.Duration          `json:"compute"`
	Session  *sessionState          `json:"session,omitempty"` // the state the run began with
	Attempts int                    `json:"attempts"`
}

// token is a continuation's signed body: which run, at which version of its record
// (single use), until when.
type token struct {
	Run     string `json:"r"`
	Version int64  `json:"v"`
	Expires int64  `json:"x"` // Unix seconds
}

// continuationKey returns the key that signs continuations: Options.ContinuationKey, or
// one kept in the store, made on first use.
func (e *Executor) continuationKey(ctx context.Context) ([]byte, error) {
	if len(e.o.ContinuationKey) > 0 {
		return e.o.ContinuationKey, nil
	}
	for range 3 {
		rec, err := e.store.Get(ctx, kindKey, keyName)
		if err == nil {
			return rec.Data, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		key := make([]byte, 32)
		rand.Read(key)
		if _, err := e.store.Put(ctx, store.Record{Kind: kindKey, Key: keyName, Data: key}, 0); err == nil {
			return key, nil
		} else if !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		// Another process made it first: read theirs.
	}
	return nil, errors.New("the continuation key could not be read or made")
}

func (e *Executor) sign(ctx context.Context, t token) (string, error) {
	key, err := e.continuationKey(ctx)
	if err != nil {
		return "", err
	}
	body, _ := json.Marshal(t)
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

func (e *Executor) verify(ctx context.Context, s string) (token, error) {
	var t token
	b64body, b64mac, ok := strings.Cut(s, ".")
	body, err1 := base64.RawURLEncoding.DecodeString(b64body)
	sum, err2 := base64.RawURLEncoding.DecodeString(b64mac)
	if !ok || err1 != nil || err2 != nil {
		return t, ErrBadToken
	}
	key, err := e.continuationKey(ctx)
	if err != nil {
		return t, err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)) || json.Unmarshal(body, &t) != nil || t.Run == "" {
		return t, ErrBadToken
	}
	if e.now().Unix() > t.Expires {
		return t, ErrExpired
	}
	return t, nil
}

func (e *Executor) now() time.Time {
	if e.clock != nil {
		return e.clock()
	}
	return time.Now()
}

func (e *Executor) pauseTTL() time.Duration {
	if e.o.PauseTTL > 0 {
		return e.o.PauseTTL
	}
	return DefaultPauseTTL
}

// newRunID returns a fresh run id: 128 random bits, URL-safe.
func newRunID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashText is a short, stable digest of s.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// toolsHash digests what a program can see of and do with the set's tools: each visible
// tool's name, description, schemas and idempotence, in the set's order.
func toolsHash(set *registry.ResolvedToolSet) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(string(set.Mode()))
	for _, e := range set.Tools() {
		field(e.Name())
		field(e.Tool.Description)
		field(string(e.Parameters()))
		field(string(e.OutputSchema()))
		if e.Tool.Idempotent {
			field("idempotent")
		} else {
			field("")
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// pauseText is what the model reads for a paused run (docs/pausing.md).
func pauseText(pending []pipeline.PendingCall) string {
	return pipeline.Waiting(pending[0].Tool, len(pending)) + ". The run resumes when the user decides; do not call it again."
}

// errPaused is the cause that ends a run which paused.
var errPaused = errors.New("run_code paused: waiting for approval")

// resumed is a stored run that a step goes on with.
type resumed struct {
	id      string
	version int64
	rec     runRecord
	entries []bindings.Entry
}

// storedRun is one attempt's view of its run in the store.
type storedRun struct {
	id      string
	version int64 // of the record in the store; 0 while there is none
	rec     runRecord
	entries []bindings.Entry
}

// startRun makes the store's view of an attempt: the resumed run's, or a new run's
// (written at once with a durable store, so that a crash leaves it recoverable).
func (e *Executor) startRun(ctx context.Context, set *registry.ResolvedToolSet, call *registry.Call, code, description string, r *resumed) (*storedRun, error) {
	if r != nil {
		return &storedRun{id: r.id, version: r.version, rec: r.rec, entries: r.entries}, nil
	}
	sr := &storedRun{id: newRunID(), rec: runRecord{
		Code: code, Description: description, CallID: call.ID, RootID: call.RootID, Agent: call.Agent,
		Program: hashText(code), Tools: toolsHash(set), State: stateRunning,
	}}
	if e.durable {
		v, err := e.store.Put(ctx, e.runRecord(sr), 0)
		if err != nil {
			return nil, fmt.Errorf("run_code could not record the run: %w", err)
		}
		sr.version = v
	}
	return sr, nil
}

// The states of a stored run.
const (
	stateRunning = "running"
	statePaused  = "paused"
)

// runRecord is sr's record as the store keeps it.
func (e *Executor) runRecord(sr *storedRun) store.Record {
	data, _ := json.Marshal(sr.rec)
	return store.Record{Kind: kindRun, Key: sr.id, Data: data, Expires: e.now().Add(e.pauseTTL() + pruneGrace)}
}

func (sr *storedRun) putEntry(ctx context.Context, st store.Store, e bindings.Entry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return st.PutEntry(ctx, kindRun, sr.id, store.Entry{Seq: int64(e.Seq), Data: data})
}

// draws are the values the attempt replays: the longest record of them, the paused
// run's or, after a crash, the draws before its last recorded call (its entries', in
// order).
func (sr *storedRun) draws() *runtime.Draws {
	var calls runtime.Draws
	for i := range sr.entries {
		if d := sr.entries[i].Draws; d != nil {
			calls.Clock = append(calls.Clock, d.Clock...)
			calls.Random = append(calls.Random, d.Random...)
		}
	}
	if p := sr.rec.Draws; p != nil && len(p.Clock)+len(p.Random) >= len(calls.Clock)+len(calls.Random) {
		return p
	}
	return &calls
}

// finish forgets a run that ended (completed or failed): nothing can resume it.
func (sr *storedRun) finish(ctx context.Context, st store.Store) {
	if sr.version > 0 {
		_ = st.Delete(context.WithoutCancel(ctx), kindRun, sr.id) // what is left expires
	}
}

// attemptLimits are the budgets of an attempt of a run that has used compute already:
// compute adds up over attempts.
func (e *Executor) attemptLimits(used time.Duration) (*runtime.Limits, error) {
	if used <= 0 {
		return e.o.Limits, nil
	}
	var l runtime.Limits
	if e.o.Limits != nil {
		l = *e.o.Limits
	}
	total := l.Compute
	if total == 0 {
		total = e.o.Pool.Limits().Compute
	}
	l.Compute = max(total-used, time.Millisecond)
	return &l, nil
}

// pause keeps a run that paused and returns its continuation.
func (e *Executor) pause(ctx context.Context, sr *storedRun, run *bindings.Run, res *runtime.Result) (*pipeline.Pause, error) {
	ctx = context.WithoutCancel(ctx)
	pending := run.Pending()
	if len(pending) == 0 {
		return nil, errors.New("no call is pending")
	}
	sr.rec.State, sr.rec.Pending, sr.rec.Attempts = statePaused, pending, sr.rec.Attempts+1
	if res != nil {
		sr.rec.Draws = res.Draws
		sr.rec.Compute += res.Compute
	}
	v, err := e.store.Put(ctx, e.runRecord(sr), sr.version)
	if err != nil {
		return nil, err
	}
	sr.version = v
	if !e.durable { // the calls were not recorded as they went
		for _, entry := range run.Entries() {
			if err := sr.putEntry(ctx, e.store, entry); err != nil {
				return nil, err
			}
		}
	}
	_, _ = e.store.Prune(ctx, e.now()) // expired ledgers go; a failure only delays that
	tok, err := e.sign(ctx, token{Run: sr.id, Version: v, Expires: e.now().Add(e.pauseTTL()).Unix()})
	if err != nil {
		return nil, err
	}
	return &pipeline.Pause{Continuation: tok, Pending: pending}, nil
}

// Resume goes on with a paused run: its continuation (pipeline.Result.Pause) and the
// person's decisions on its pending calls, by id. The run's program runs again from its
// start in a fresh VM with the run's ledger: recorded calls give back their outcomes
// without reaching their tools, Date.now() and Math.random() give back the values of
// the first attempt, an approved call runs through the rest of the pipeline, and a
// rejected one fails in the program with DENIED and the reason. The result is the
// whole run's, as if it had never paused, or another pause; Options.OnReport gets its
// report. A continuation resumes once; an error (a *ResumeError, or the store's) means
// nothing ran.
func (e *Executor) Resume(ctx context.Context, set *registry.ResolvedToolSet, continuation string, decisions map[string]Decision) (*pipeline.Result, error) {
	t, err := e.verify(ctx, continuation)
	if err != nil {
		return nil, err
	}
	r, err := e.claim(ctx, set, t.Run, t.Version, decisions)
	if err != nil {
		return nil, err
	}
	return e.goOn(ctx, set, r), nil
}

// Recover goes on with a run whose host died while it ran (a process killed, a
// machine lost), from the ledger a durable Options.Store kept of it: calls that ended
// are replayed, and one that was in flight runs again only if its tool is idempotent
// (otherwise the run ends interrupted). Recover only a run no live host is running:
// the store cannot tell a dead host from a slow one.
func (e *Executor) Recover(ctx context.Context, set *registry.ResolvedToolSet, runID string) (*pipeline.Result, error) {
	if !e.durable {
		return nil, errors.New("run_code can recover runs only from a store given in Options.Store")
	}
	r, err := e.claim(ctx, set, runID, 0, nil)
	if err != nil {
		return nil, err
	}
	return e.goOn(ctx, set, r), nil
}

// claim takes a stored run for one attempt: the paused run at version (with decisions),
// or, when version is 0, a run left running. Two claims of one version cannot both win.
func (e *Executor) claim(ctx context.Context, set *registry.ResolvedToolSet, runID string, version int64, decisions map[string]Decision) (*resumed, error) {
	rec, err := e.store.Get(ctx, kindRun, runID)
	if errors.Is(err, store.ErrNotFound) {
		if version == 0 {
			return nil, fmt.Errorf("run_code could not resume: no run %q in the store", runID)
		}
		return nil, ErrAlreadyResumed // a run's record goes when it ends
	}
	if err != nil {
		return nil, fmt.Errorf("run_code could not resume: %w", err)
	}
	var rr runRecord
	if err := json.Unmarshal(rec.Data, &rr); err != nil {
		return nil, fmt.Errorf("run_code could not resume: the stored run is not readable: %v", err)
	}
	switch {
	case version != 0 && (rec.Version != version || rr.State != statePaused):
		return nil, ErrAlreadyResumed
	case version == 0 && rr.State == statePaused:
		return nil, fmt.Errorf("run_code could not resume: run %q is paused; resume it with its continuation", runID)
	case rr.Tools != toolsHash(set):
		return nil, ErrToolsChanged
	}
	for id := range decisions {
		if !slices.ContainsFunc(rr.Pending, func(p pipeline.PendingCall) bool { return p.ID == id }) {
			return nil, fmt.Errorf("run_code could not resume: no call %q is pending (pending: %s)", id, pendingIDs(rr.Pending))
		}
	}
	if len(decisions) > 0 && rr.Decided == nil {
		rr.Decided = map[string]Decision{}
	}
	maps.Copy(rr.Decided, decisions)
	rr.State = stateRunning
	sr := &storedRun{id: runID, rec: rr}
	v, err := e.store.Put(ctx, e.runRecord(sr), rec.Version)
	if errors.Is(err, store.ErrConflict) {
		return nil, ErrAlreadyResumed
	}
	if err != nil {
		return nil, fmt.Errorf("run_code could not resume: %w", err)
	}
	stored, err := e.store.Entries(ctx, kindRun, runID)
	if err != nil {
		return nil, fmt.Errorf("run_code could not resume: %w", err)
	}
	entries := make([]bindings.Entry, len(stored))
	for i, se := range stored {
		if err := json.Unmarshal(se.Data, &entries[i]); err != nil || se.Seq != int64(i+1) || entries[i].Seq != i+1 {
			return nil, fmt.Errorf("run_code could not resume: the ledger of run %q is damaged at entry %d", runID, i+1)
		}
	}
	return &resumed{id: runID, version: v, rec: rr, entries: entries}, nil
}

func pendingIDs(ps []pipeline.PendingCall) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return strings.Join(ids, ", ")
}

// goOn runs a claimed run's program again as its run_code call.
func (e *Executor) goOn(ctx context.Context, set *registry.ResolvedToolSet, r *resumed) *pipeline.Result {
	args, _ := json.Marshal(map[string]string{"code": r.rec.Code, "description": r.rec.Description})
	b := &step{e: e, set: set, reports: map[string]*Report{}, resume: r}
	results, _ := e.executeStep(ctx, b, []pipeline.RawCall{{ID: r.rec.CallID, Name: registry.RunCodeName, Arguments: string(args), Agent: r.rec.Agent}})
	return results[0]
}

var _ pipeline.Resumer = (*Executor)(nil)

// ContinuationRun returns the id of the run a continuation names (Report.RunID),
// without checking its signature or expiry (Resume does): for a host that keeps its own
// records about the runs it started.
func ContinuationRun(continuation string) (string, error) {
	b64body, _, ok := strings.Cut(continuation, ".")
	body, err := base64.RawURLEncoding.DecodeString(b64body)
	var t token
	if !ok || err != nil || json.Unmarshal(body, &t) != nil || t.Run == "" {
		return "", ErrBadToken
	}
	return t.Run, nil
}

// RunInfo describes a run kept in a store: one that paused, or, with a durable store,
// one in flight (or whose host died while it ran).
type RunInfo struct {
	ID          string
	Description string
	// Paused reports a run waiting for decisions on Pending; otherwise it is running,
	// or its host died (Executor.Recover).
	Paused  bool
	Pending []pipeline.PendingCall
	// Expires is when the store forgets it.
	Expires time.Time
}

// Runs lists the runs st keeps, by id.
func Runs(ctx context.Context, st store.Store) ([]RunInfo, error) {
	recs, err := st.List(ctx, kindRun, "", 0)
	if err != nil {
		return nil, err
	}
	out := make([]RunInfo, 0, len(recs))
	for _, rec := range recs {
		var rr runRecord
		if json.Unmarshal(rec.Data, &rr) != nil {
			continue // not one of ours
		}
		out = append(out, RunInfo{ID: rec.Key, Description: rr.Description, Paused: rr.State == statePaused, Pending: rr.Pending, Expires: rec.Expires})
	}
	return out, nil
}
