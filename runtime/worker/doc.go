// Package worker runs programs in supervised worker processes: the hard boundary for
// untrusted programs that the in-process runtime cannot give (goja has no heap limit, and one
// native call can allocate gigabytes or spin without reaching an interrupt check).
//
// It owns:
//   - the worker role (Serve): a warm VM (internal/jsvm, as under runtime.Pool) in a
//     process of its own, with a hard address-space limit (RLIMIT_AS), the garbage
//     collector's memory limit set from the heap budget and its GC percent from the host
//     (Options.GCPercent), running one program per request;
//   - the host's Pool, which implements the same Run as runtime.Pool (the ptc.Runner seam):
//     it spawns workers with no environment but GOMAXPROCS=1, "/" as their directory, a process group
//     of their own and no descriptors beyond the channel; forwards each namespace call back
//     to the host's real namespace (so sub-call ids, events and scheduling are those of an
//     in-process run); enforces the wall clock and cancellation from outside with SIGKILL as
//     the last resort; maps a dead worker to worker-exit (or to timeout, abort or
//     memory-limit when that is what killed it); and replaces dead workers;
//   - ShareCPUs, which a host calls to leave a CPU to each worker (the CLI does, in process
//     isolation): a worker runs its program on one P, and a host with a P for every CPU
//     takes the worker's CPU for threads it wakes on each sub-call;
//   - the protocol between them: length-prefixed JSON frames, bounded in size and validated
//     strictly on both sides (see protocol.go). A worker that breaks it is killed.
//
// It does not know about tools: namespaces are the runtime's. It may import only the
// standard library, runtime (the host side speaks its public API), internal/jsvm and
// internal/jsprep (the worker side runs programs with them directly), internal/procfd and
// internal/procstat (its VmSize, which sizes the memory limits).
package worker
