// Package worker runs programs in supervised worker processes: the hard boundary for
// untrusted programs that the in-process runtime cannot give (goja has no heap limit, and one
// native call can allocate gigabytes or spin without reaching an interrupt check).
//
// It owns the worker role (Serve: a warm internal/jsvm VM in a process of its own, with a
// hard address-space limit, a GC memory limit from the heap budget and the host's GC
// percent, one program per request); the host's Pool, which implements runtime.Pool's Run
// (the ptc.Runner seam), spawns workers with no environment but GOMAXPROCS=1, "/" as their
// directory, a process group of their own and no descriptors beyond the channel, forwards namespace
// calls to the host's real namespaces, enforces the wall clock and cancellation from
// outside with SIGKILL as the last resort, maps a dead worker to worker-exit (or to what
// killed it) and replaces it; ShareCPUs; and the protocol between them (protocol.go).
//
// It does not know about tools. It may import only the standard library, runtime,
// internal/jsvm and internal/jsprep (the worker side runs programs with them directly),
// internal/procfd and internal/procstat.
package worker
