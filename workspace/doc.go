// Package workspace provides the CLI's built-in tools: read-only, concurrency-safe
// tools over one directory tree, jailed to it with os.Root so that no path (through
// "..", an absolute name or a symbolic link) reaches outside:
//
//	read_file {path, offset?, limit?}   lines of a text file; image files as image content
//	list_dir  {path}                    the entries of a directory
//	glob      {pattern}                 paths matching a pattern ("**" spans directories)
//	grep      {pattern, path?, glob?}   lines matching a regular expression
//	stat      {path}                    a file's type, size, mode and modification time
//
// Only regular files are read: a named pipe, a socket or a device is refused with an
// error that names the path and what it is (`fifo: not a regular file (named pipe)`),
// since reading one could block forever. Every open is non-blocking and the check is made
// on the opened descriptor, so nothing swapped in between is read. list_dir and stat
// still show such paths, and grep skips them while walking a directory.
//
// The tools run in the host process on a program's behalf, so what one call may cost is
// bounded: files of at most MaxFileBytes, read a buffer at a time (never whole, nor as a
// list of lines); read_file returns at most MaxReadBytes, lines cut after
// MaxReadLineBytes, and refuses an offset or limit outside 1 to MaxFileBytes; grep refuses
// a pattern compiling to over MaxRegexpInsts instructions, matches every line so that the
// call's cancellation stops it, and returns at most MaxResults lines cut after
// MaxLineBytes; list_dir reads at most MaxResults+1 entries of a directory; glob and grep
// stop walking once their call is cancelled.
//
// It does not write, run commands or follow anything outside the root.
//
// It may import: the standard library and registry.
package workspace
