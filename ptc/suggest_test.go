package ptc

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/runcode-go/runcode/bindings"
	"github.com/runcode-go/runcode/internal/jsshape"
	"github.com/runcode-go/runcode/pipeline"
	"github.com/runcode-go/runcode/registry"
	"github.com/runcode-go/runcode/store"
)

// TestSuggestScript: the second ok run of a session's program with other literal
// values suggests a script whose input is the values that differed; a run that throws,
// another session, a run without a session and a run with the same values do not.
func TestSuggestScript(t *testing.T) {
	e := newEnv(t)
	e.ptc.Store = store.NewMemory()
	e.ptc.SuggestScripts = true
	e.register(&registry.Tool{Name: "weather", Description: "The weather in a city.",
		Execute: func(_ context.Context, c *registry.Call) (any, error) {
			if c.Args.Any().(map[string]any)["city"] == "Nowhere" {
				return nil, errors.New("no such city")
			}
			return map[string]any{"temp": 21}, nil
		}})
	e.ptc.SuggestScripts = false
	off, offSet := e.executor()
	e.ptc.SuggestScripts = true
	ex, set := e.executor()
	program := func(city string, days int) string {
		return "// the forecast\nconst city = \"" + city + "\";\nconst w = await tools.weather({city, days: " + strconv.Itoa(days) + "});\nreturn w.temp > 20 ? \"warm\" : \"cold\";"
	}
	runOn := func(ex *Executor, set *registry.ResolvedToolSet, session, code, description string) *ScriptSuggestion {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"code": code, "description": description})
		res, rep := ex.Run(pipeline.WithSession(context.Background(), session), set, pipeline.RawCall{ID: "call-1", Arguments: string(args)})
		if rep == nil {
			t.Fatalf("no report: %s", resultText(res))
		}
		return rep.SuggestScript
	}
	run := func(session, code, description string) *ScriptSuggestion {
		t.Helper()
		return runOn(ex, set, session, code, description)
	}
	// Without Options.SuggestScripts, no run suggests anything.
	for _, city := range []string{"Oslo", "Lima"} {
		if s := runOn(off, offSet, "off", program(city, 2), "Weather"); s != nil {
			t.Errorf("without SuggestScripts, a run suggested %+v", s)
		}
	}
	steps := []struct {
		name, session, code, description string
		want                             *ScriptSuggestion
	}{
		{"a first run", "a", program("Paris", 3), "Weather for Paris", nil},
		{"another session", "b", program("Rome", 3), "Weather for Rome", nil},
		{"the same values", "a", program("Paris", 3), "Weather for Paris", nil},
		{"without a session", "", program("Oslo", 3), "Weather for Oslo", nil},
		{"a run that throws", "a", program("Nowhere", 3), "Weather for Nowhere", nil},
		{"the second ok run with another city", "a", "const city = 'Rome'; /* shorter */ const w = await tools.weather({ city, days: 3 })\nreturn w.temp > 20 ? 'warm' : 'cold'", "Weather for Rome", &ScriptSuggestion{
			Name: "weather", Description: "Weather for Rome",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			Input:       json.RawMessage(`{"city":"Rome"}`),
			Code:        "const city = input.city; /* shorter */ const w = await tools.weather({ city, days: 3 })\nreturn w.temp > 20 ? 'warm' : 'cold'",
		}},
		{"a third with other days: both vary", "a", program("Rome", 5), "Weather in Rome for the next 5 days", &ScriptSuggestion{
			Name: "weather_next_days", Description: "Weather in Rome for the next 5 days",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"number"}},"required":["city","days"]}`),
			Input:       json.RawMessage(`{"city":"Rome","days":5}`),
			Code:        "// the forecast\nconst city = input.city;\nconst w = await tools.weather({city, days: input.days});\nreturn w.temp > 20 ? \"warm\" : \"cold\";",
		}},
	}
	for _, s := range steps {
		got := run(s.session, s.code, s.description)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: suggestion (-want +got):\n%s", s.name, diff)
		}
	}

	// The suggested code saves and runs as the script it suggests.
	sug := run("a", program("Lima", 5), "Weather in Lima for the next 5 days")
	if sug == nil {
		t.Fatal("no suggestion")
	}
	if err := SaveScript(context.Background(), e.ptc.Store, set, sug.Script()); err != nil {
		t.Fatal(err)
	}
	tools, err := ScriptTools(context.Background(), e.ptc.Store, func() *Executor { return ex })
	if err != nil {
		t.Fatal(err)
	}
	e.register(tools...)
	ex, set = e.executor()
	if got := run("a", `return await tools.script__weather_next_days({city: "Oslo", days: 2})`, "Call the script"); got != nil {
		t.Errorf("a first run suggests %+v", got)
	}
	res, _ := ex.Run(pipeline.WithSession(context.Background(), "a"), set, runCodeCall(`return await tools.script__weather_next_days({city: "Oslo", days: 2})`))
	if got := resultText(res); got != "warm" {
		t.Errorf("the saved script returned %q", got)
	}
}

// TestSuggestionNames: input names come from the literals' context, made unique and
// usable after input.; the script's name from the description less stop words and the
// values that vary, or from the tools called.
func TestSuggestionNames(t *testing.T) {
	shape, err := jsshape.Of(`await tools.find({city: "a", to: {city: "b"}, "max results": 2, "9": true});
return tools.fmt("x", 3)`, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := suggestion(shape, []int{0, 1, 2, 3, 4, 5}, "Find Paris flights to b, 2 stops", nil)
	want := &ScriptSuggestion{
		Name: "find_paris_flights_stops", Description: "Find Paris flights to b, 2 stops",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"city2":{"type":"string"},"max_results":{"type":"number"},"value1":{"type":"boolean"},"value2":{"type":"string"},"value3":{"type":"number"}},"required":["city","city2","max_results","value1","value2","value3"]}`),
		Input:       json.RawMessage(`{"city":"a","city2":"b","max_results":2,"value1":true,"value2":"x","value3":3}`),
		Code:        "await tools.find({city: input.city, to: {city: input.city2}, \"max results\": input.max_results, \"9\": input.value1});\nreturn tools.fmt(input.value2, input.value3)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suggestion (-want +got):\n%s", diff)
	}

	calls := []*bindings.SubCall{{Name: "list_orders"}, {Name: "send-mail"}, {Name: "list_orders"}}
	long := "Summarise every open order placed by customers in the northern region during the last quarter"
	tests := []struct {
		description string
		values      []string
		want        string
	}{
		{"Top 3 customers", []string{"3"}, "top_customers"},
		{"天気", nil, "list_orders_send_mail"},
		{"The weather for Paris", []string{"paris"}, "weather"},
		{long, nil, "summarise_every_open_order_placed_customers_northern_region"},
		{"", nil, "list_orders_send_mail"},
	}
	for _, tt := range tests {
		if got := suggestName(tt.description, tt.values, calls); got != tt.want || !validScriptName(got) {
			t.Errorf("suggestName(%q, %q) = %q, want %q", tt.description, tt.values, got, tt.want)
		}
	}
	if got := suggestName("", nil, nil); got != "script" {
		t.Errorf("no description nor calls: %q", got)
	}
}

// TestSuggestShapesBounded: a session keeps at most MaxSuggestShapes shapes, the one
// seen longest ago forgotten first, and the record expires SuggestTTL after the last
// ok run.
func TestSuggestShapesBounded(t *testing.T) {
	e := newEnv(t)
	st := store.NewMemory()
	e.ptc.Store = st
	e.ptc.SuggestScripts = true
	ex, _ := e.executor()
	now := time.Now().UTC().Truncate(time.Second)
	ex.clock = func() time.Time { return now }
	ctx := context.Background()
	for i := range MaxSuggestShapes + 1 {
		if _, err := ex.noteShape(ctx, "s", strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ex.noteShape(ctx, "s", "1", nil); err != nil { // seen again: now the newest
		t.Fatal(err)
	}
	rec, err := st.Get(ctx, kindShapes, "s")
	if err != nil {
		t.Fatal(err)
	}
	var got shapes
	if err := json.Unmarshal(rec.Data, &got); err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for _, s := range got.Shapes {
		hashes = append(hashes, s.Hash)
	}
	var want []string
	for i := 2; i <= MaxSuggestShapes; i++ {
		want = append(want, strconv.Itoa(i))
	}
	want = append(want, "1")
	if diff := cmp.Diff(want, hashes); diff != "" {
		t.Errorf("shapes kept (-want +got):\n%s", diff)
	}
	if !rec.Expires.Equal(now.Add(SuggestTTL)) {
		t.Errorf("expires %v, want %v", rec.Expires, now.Add(SuggestTTL))
	}
}
