// Package native is the native executor: it presents every visible tool to the model
// directly (name, description, parameters) and executes a model step's batch of raw
// calls through the shared pipeline and scheduler, returning results in call order.
//
// It does not present run_code or run programs (package ptc does), and it adds no
// policy of its own: everything a call goes through is the pipeline's.
//
// It may import: the standard library, registry and pipeline.
package native
