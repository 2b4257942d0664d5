// Package ptc is the run_code executor ("programmatic tool calling"). Describe sends
// the model run_code's schema, the ptc rule section and the SDK section; Execute runs a
// model step's batch, in which each run_code call goes through the pipeline like any
// tool (so policy can see and gate the program text) and runs its program on a pooled
// VM with the step's tools bound (package bindings). It renders the one text result of
// the contract and returns image-bearing sub-results as contexts attributed to the
// sub-calls that produced them. Under mode ptc a model-direct call to any other tool
// collapses to UNKNOWN_TOOL (the pipeline enforces it); under mode both, direct calls
// run natively beside run_code.
//
// It does not render SDK text (package sdkgen does), run JavaScript itself (package
// runtime does) or decide which tools are visible (package registry does).
//
// It may import: the standard library, bindings, runtime, pipeline, registry and sdkgen.
package ptc
