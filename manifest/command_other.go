//go:build !unix

package manifest

import "os/exec"

// killGroup keeps exec's default: cancellation kills the process itself.
func killGroup(*exec.Cmd) {}
