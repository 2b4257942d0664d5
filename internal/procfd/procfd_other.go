//go:build !linux

package procfd

// CloseInherited does nothing outside Linux.
func CloseInherited() {}
