// Package ptc is the run_code executor ("programmatic tool calling"). Describe sends
// the model run_code's schema, the ptc rule section and the SDK section; Execute runs a
// model step's batch, in which each run_code call goes through the pipeline like any
// tool (so policy can see and gate the program text) and runs its program on a pooled
// VM with the step's tools bound (package bindings). It renders the one text result of
// the contract and returns image-bearing sub-results as contexts attributed to the
// sub-calls that produced them. Those images have a budget of their own per run
// (Options.MaxImageBytes, default 16 MiB of base64, and Options.MaxImages, default 20),
// for a run that ended well or failed alike: images are attached in call order up to
// the first that does not fit; it and every later one are left out, the sub-calls'
// records in the Report keep a short text in their place rather than their data, and
// the result's text ends with one line saying how many were left out, from which
// sub-call on and why:
//
//	[25 of 30 images left out, from sub-call call-1:code:6 (read_file) on: a run's images may take at most 16 MiB of base64 data; read fewer or smaller images per run]
//	[10 of 30 images left out, from sub-call call-1:code:21 (read_file) on: a run attaches at most 20 images; read fewer images per run]
//
// Under mode ptc a model-direct call to any other tool
// collapses to UNKNOWN_TOOL (the pipeline enforces it); under mode both, direct calls
// run natively beside run_code.
//
// It does not render SDK text (package sdkgen does), run JavaScript itself (package
// runtime does; a program's shape for suggested scripts is internal/jsshape's) or decide
// which tools are visible (package registry does).
//
// It may import: the standard library, bindings, runtime, pipeline, registry, sdkgen,
// store, and of ours internal/jsontext and internal/jsshape.
package ptc
