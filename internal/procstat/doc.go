// Package procstat reads the figures of a process that Linux's /proc gives: a field of its
// status file (VmSize, VmHWM, VmRSS, in kB). Where /proc is missing, or the process is
// gone, the reader says so rather than guess (a process's children are
// internal/testproc's, for tests). It may import only the standard library.
package procstat
