package searchtext

import (
	"strings"
	"sync"
)

// SynonymWeight is the weight of a term a query implies through the synonym table,
// against 1 for a word the query says: evidence that a tool does what was asked, but
// weaker than the query's own word.
const SynonymWeight = 0.5

// synonymTable groups the words that tasks and tool descriptions use for the same
// action or thing, one group per line ("#" starts a comment). It is deliberately small
// and general: everyday verbs and nouns of software work, the questions people ask, and
// the commonest abbreviations; never a tool's or a product's private vocabulary.
//
// A query word in a group also searches the group's other words, at SynonymWeight. A
// member with a space is a phrase ("throw away"): matched in queries, as consecutive
// words, and never searched for in tools. A member that is a stop word ("who",
// "where") is likewise only matched in queries: it says which group is meant but is not
// itself a term. Members are written as plain lower-case words; they are stemmed like
// all text, so one form stands for all ("delete" for "deleted", "deleting").
//
// A word may be in more than one group ("open" creates a ticket, visits a page and reads
// a file); it then implies the members of each.
//
// An action group tagged "read:" or "change:" says whether its actions read or change
// things; see [Action].
const synonymTable = `
# Actions
change: create, make, new, add, generate, start, open, set up, spin up
change: delete, remove, drop, destroy, erase, purge, discard, forget, uninstall, revoke, throw away, get rid of
read: list, enumerate, show, which
read: get, fetch, retrieve, show, view, see, display, describe, pull up, look at, inspect
read: read, open, view, load
read: find, search, lookup, query, locate, seek, hunt, where, look up, look for
change: update, edit, modify, change, alter, set, adjust, patch, rename, mark, tweak, replace, fix
change: write, save, store, persist, keep, note down, write down
change: insert, append, add, upsert, load, import, ingest, tack on
change: send, post, notify, tell, dm, let know
reply, respond, answer, comment
run, execute, exec, invoke, launch, trigger, perform, start, kick off
stop, end, cancel, kill, terminate, abort, halt, interrupt, hang up, shut down, turn off
close, shut, exit, quit, dismiss, shut down
pause, suspend, freeze, hold
resume, restore, unpause, reactivate, recover, bring back
restart, reboot, bounce, relaunch
undo, rollback, revert, roll back
change: move, transfer, relocate
change: copy, duplicate, clone, fork, replicate
change: merge, combine, squash
change: upload, attach
read: download, export, dump
wait, await, until, hold on
navigate, visit, browse, open, load, go to
click, press, tap, hit
type, fill, enter, input, fill in, fill out
hover, mouseover, mouse over
screenshot, capture, snapshot, screengrab, screen grab
extract, scrape, parse, grab, pull out
crawl, spider
monitor, watch, track, keep an eye on, keep track of
validate, verify, check, confirm, lint, assert, expect
change: buy, purchase, acquire, provision, procure
change: assign, delegate, reassign, hand over, hand off
change: resolve, fix, solve
analyze, analysis, diagnose, investigate, debug, root cause
remember, memory, recall, memorize, keep in mind
change: deploy, ship, publish, release, rollout, go live, push live
associate, association, relate, relation, link, connect
react, reaction, emoji, thumbs up

# Things
directory, folder, dir
repository, repo, codebase
pr, mr, pull, pull request, merge request
issue, bug, ticket, problem, defect
error, exception, crash, failure, fault, stacktrace, stack trace
message, msg, sms, mms, text, chat, dm
image, picture, photo, pic, graphic, illustration, media, draw
user, member, people, person, profile, teammate, colleague, employee, who
organization, org
column, field, property, attribute
row, record, entry, item
table, collection, sheet, data source
database, db, datastore
key, token, credential, secret, password, apikey, api key
url, link, uri, href, web address
site, website, webpage, web page
web, internet, online
doc, documentation, manual, guide
config, configuration, preference, option
permission, access, scope, role, privilege, allowed
label, tag
schema, structure, layout, shape
time, date, timestamp, when, how long
call, phone, dial, ring, voice
transcript, transcription, transcribe, caption, subtitle
location, coordinate, coordinates, latitude, longitude, lat, lng, gps, geocode
place, business, restaurant, cafe, shop, venue
workflow, automation
dialog, popup, modal, prompt, alert, pop up
element, button, control, widget
html, markup, dom
text, content, word, words, body
contact, customer, client, lead, prospect
identity, whoami, authenticated, who am i, logged in, signed in, current user
statistic, statistics, stats, metric, metrics
history, recent, latest, last, previous, past
paper, publication, preprint, article
info, information, details, metadata
app, application
env, environment
auth, authentication, login, log in, sign in

# Questions: what a question word asks for
count, total, tally, quantity, how many
size, big, large, space, disk, bytes, storage, footprint, how big
cost, price, pricing, charge, spend, bill, billing, fee, expense, usage, how much
elevation, altitude, height, sea level, how high
distance, far, mileage, how far
direction, directions, route, itinerary

# Common abbreviations of products
kubernetes, k8s, kube
mongodb, mongo
postgres, postgresql, psql
javascript, js
typescript, ts
github, gh
`

// group is one line of the table, parsed: its single-word members' stems (the terms a
// query implies) and its phrases' stems.
type group struct {
	terms   []string
	phrases [][]string
	action  Action // of an action group tagged read: or change:
}

// synonyms is the table, parsed on first use (not at package init, which every start of
// the binary pays, a worker's included): groups, the groups of each single-word stem,
// and the phrases by their first stem.
var synonyms = sync.OnceValue(func() *table { return parseTable(synonymTable) })

type table struct {
	groups   []group
	byStem   map[string][]int
	byPhrase map[string][]phrase
}

type phrase struct {
	stems []string
	group int
}

func parseTable(src string) *table {
	t := &table{byStem: map[string][]int{}, byPhrase: map[string][]phrase{}}
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		gi := len(t.groups)
		var g group
		if tag, rest, ok := strings.Cut(line, ":"); ok {
			switch tag {
			case "read":
				g.action = Reads
			case "change":
				g.action = Changes
			default:
				panic("searchtext: unknown tag " + tag + " in the synonym table")
			}
			line = rest
		}
		for m := range strings.SplitSeq(line, ",") {
			words := Words(nil, m)
			stems := make([]string, len(words))
			for i, w := range words {
				stems[i] = Stem(w)
			}
			switch {
			case len(stems) == 0:
				continue
			case len(stems) > 1:
				g.phrases = append(g.phrases, stems)
				t.byPhrase[stems[0]] = append(t.byPhrase[stems[0]], phrase{stems, gi})
			case IsStopWord(words[0]):
				// A trigger only, like a phrase.
				g.phrases = append(g.phrases, stems)
				t.byPhrase[stems[0]] = append(t.byPhrase[stems[0]], phrase{stems, gi})
			default:
				if !contains(g.terms, stems[0]) {
					g.terms = append(g.terms, stems[0])
					t.byStem[stems[0]] = append(t.byStem[stems[0]], gi)
				}
			}
		}
		t.groups = append(t.groups, g)
	}
	return t
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// Action is what a task or a tool does to things, as far as its words tell: read them,
// change them (create, update, delete, send…), or either (0: the words do not say, or
// say both). A task that reads ranks tools that change below those that read, and the
// other way round ([Query.Action], [NameAction]).
type Action uint8

// The actions.
const (
	Reads Action = 1 << iota
	Changes
)

// wordAction returns the action of a stem: that of its groups when they are all tagged
// alike; 0 when it is in no tagged group, or in an untagged group too ("open" also
// visits a page, "comment" is also a thing), or in groups tagged both ways.
func wordAction(groups []int) Action {
	var a Action
	for _, g := range groups {
		ga := synonyms().groups[g].action
		if ga == 0 {
			return 0
		}
		a |= ga
	}
	if a == Reads|Changes {
		return 0
	}
	return a
}

// NameAction returns the action of a tool from its name's words, lower-case
// (create_issue changes, list_issues reads): that of its first word with one. It stems
// with st, which may be nil.
func NameAction(words []string, st *Stemmer) Action {
	if st == nil {
		st = new(Stemmer)
	}
	for _, w := range words {
		if a := actionOf(w, st.Stem(w)); a != 0 {
			return a
		}
	}
	return 0
}

// actionOf returns the action of a word (with its stem): its groups' ([wordAction]),
// unless it is a noun made from one of the table's verbs ("deployment", "deletion",
// "updater", "editor", "removal"), which names a thing rather than doing something.
func actionOf(word, stem string) Action {
	for _, suf := range nounSuffixes {
		base, ok := strings.CutSuffix(word, suf)
		if ok && len(base) >= 3 && (wordAction(synonyms().byStem[Stem(base)]) != 0 || wordAction(synonyms().byStem[Stem(base+"e")]) != 0) {
			return 0
		}
	}
	return wordAction(synonyms().byStem[stem])
}

var nounSuffixes = []string{"ment", "ments", "ion", "ions", "er", "ers", "or", "ors", "al", "als"}
