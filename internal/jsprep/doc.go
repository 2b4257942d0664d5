// Package jsprep prepares a model's program for a VM: pure functions from program text
// to a compiled program, with no VM and no pool.
//
// It owns intake (a markdown fence or a leading `export default` blanked in place, a
// program that only defines a function called), the size bound, the same-line async
// wrapper that makes top-level await and return work while keeping the model's line
// numbers (a program cannot close it), a plain-JavaScript parse first and TypeScript
// stripping with esbuild only when that fails, source maps that map stripped positions
// back to the model's text (never loaded from the host), syntax errors positioned in that
// text, the static checks runcode check makes (References, Warnings, Suggest), and
// the parse and tree walk those checks share with internal/jsshape (Parse, Walk).
//
// It may import only the standard library, github.com/dop251/goja (its parser and
// compiler) and github.com/evanw/esbuild.
package jsprep
