// Package dbfmt is how the SQL stores (store/sqlite, store/postgres) lay a record out
// in rows, so that the two agree: an expiry as Unix nanoseconds (0 for never), and a
// key prefix as a half-open range of keys, which an index answers and in which no
// character is a wildcard.
//
// It may import: the standard library only.
package dbfmt
