// Package jsontext is the JSON string lexer and escaper the project's hand-written
// codecs share: the runtime's JSON.stringify and tool-result decoder, the registry's
// canonical form, and sdkgen's schema reader each keep their own loops (they earn
// their speed), and call this package for the parts that must agree byte for byte:
// which bytes a string holds as they are ([SkipPlain], [SkipASCII]), what an escape
// sequence stands for ([Escape]), and how a code point or a Go string is written
// back ([AppendRune], [AppendString]), always as JavaScript's JSON.stringify writes it.
//
// It may import: the standard library.
package jsontext
