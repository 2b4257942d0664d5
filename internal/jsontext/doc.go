// Package jsontext is the JSON string lexer and escaper the project's hand-written codecs
// share (the runtime's JSON.stringify and result decoder, the registry's canonical form,
// sdkgen's schema reader), for the parts that must agree byte for byte: which bytes a
// string holds as they are ([SkipPlain], [SkipASCII]), what an escape stands for
// ([Escape]), and how a code point or string is written back ([AppendRune],
// [AppendString]), as JavaScript's JSON.stringify writes it.
//
// It may import: the standard library.
package jsontext
