//go:build !unix

package workspace

// openFlags are added to every open; without Unix's O_NONBLOCK there are none (on
// Windows, named pipes and devices do not live in directories).
const openFlags = 0
