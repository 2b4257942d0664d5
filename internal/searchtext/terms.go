package searchtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Stemmer stems words, remembering each word it has seen: an index stems the same few
// thousand words over and over. The zero value is ready to use. A Stemmer is not safe
// for concurrent use; one index build uses one.
type Stemmer struct {
	cache map[string]string
}

// maxCached bounds what a Stemmer remembers, whatever the text it is given.
const maxCached = 1 << 16

// Stem returns the stem of word, which must be lower-case.
func (s *Stemmer) Stem(word string) string {
	if st, ok := s.cache[word]; ok {
		return st
	}
	st := Stem(word)
	if s.cache == nil {
		s.cache = make(map[string]string)
	}
	if len(s.cache) < maxCached {
		s.cache[word] = st
	}
	return st
}

// Stem returns the Snowball English stem of word, which must be lower-case: "issues" and
// "issue" both give "issu", "directories" and "directory" give "directori". Words of
// one or two letters, and words that are not plain letters (with digits, or in another
// script), are returned as they are.
func Stem(word string) string {
	if len(word) <= 2 || !isASCIILetters(word) {
		return word
	}
	return english.Stem(word, true)
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// Words appends the words of text to dst, lower-cased and in order: text splits on
// anything but letters and digits, and at camelCase boundaries ("getPullRequest" is
// get, pull, request; "HTTPServerLogs" is http, server, logs).
func Words(dst []string, text string) []string {
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 {
			dst = append(dst, lower(text[start:end]))
			start = -1
		}
	}
	for i, r := range text {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !alnum:
			flush(i)
		case start < 0:
			start = i
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-start > utf8.RuneLen(prev):
			// "HTTPServer": the word starts at the last capital.
			p := i - utf8.RuneLen(prev)
			flush(p)
			start = p
		}
		prev = r
	}
	flush(len(text))
	return dst
}

// lower lower-cases w without allocating when it already is (most words of a schema).
func lower(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(w)
		}
	}
	return w
}

// Terms appends the terms of text to dst: its words ([Words]), stemmed.
func (s *Stemmer) Terms(dst []string, text string) []string {
	n := len(dst)
	dst = Words(dst, text)
	for i := n; i < len(dst); i++ {
		dst[i] = s.Stem(dst[i])
	}
	return dst
}
