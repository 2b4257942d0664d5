// Package procstat reads the figures of a process that Linux's /proc gives: a field of its
// status file (VmSize, VmHWM, VmRSS, in kB) and its child processes. Where /proc is
// missing, or the process is gone, the readers say so rather than guess. It may import
// only the standard library.
package procstat
