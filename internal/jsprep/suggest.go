package jsprep

import "strings"

// Suggest returns the name in names nearest to s, when it is near enough to be a
// plausible typo: at most a third of the longer name's length in edits (at least one),
// counting insertions, deletions, substitutions and swaps of neighbours, case ignored
// ("gerp" is one edit from "grep"). It returns "" when nothing is that near.
func Suggest(s string, names []string) string {
	best, bestD := "", 0
	ls := strings.ToLower(s)
	for _, n := range names {
		d := editDistance(ls, strings.ToLower(n))
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(1, max(len(s), len(best))/3) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
