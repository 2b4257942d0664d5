// Package testpg gives tests a PostgreSQL database of their own on the server that
// RUNCODE_TEST_POSTGRES names (scripts/postgres starts one; .ci/run does under CI). It
// is for _test.go files only.
//
// It may import the standard library and github.com/jackc/pgx/v5.
package testpg
