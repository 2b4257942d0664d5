// Package bench is the harness of `runcode bench`: it reads codemode-bench-scenario/v1
// files (the S1-S7 set is in bench/scenarios/), runs each one warm (create, exec and
// dispose of a sandbox timed apart), cold (the command re-executed once per run) or as a
// memory scenario (idle sandboxes held and counted), and writes one JSON report line per
// scenario. Every run is one run_code call through the ptc executor and the pipeline, as
// runcode run makes it.
//
// What only a command may do is passed in through Options: starting worker processes,
// the command line that re-executes the program as a cold child, and the environment of
// what it starts. The package never reads the environment, exits or closes descriptors;
// the cold child's side (reading SpawnEnv, its flags, its exit status) is the command's.
//
// It imports ptc, pipeline, registry, runtime, internal/jsvm (a sandbox is one of its
// VMs, built, run and dropped apart; sandbox.go) and internal/procstat.
package bench
