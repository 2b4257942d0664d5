// Package testreg builds the scopes and resolved tool sets that tests run against: the
// few lines of registering tools and resolving a step that nearly every package's tests
// begin with. It is for _test.go files only.
//
// It may import: registry.
package testreg
