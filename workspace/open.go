package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// notRegularError is why a path that is neither a regular file nor a directory (a named
// pipe, a socket, a device) is refused: reading one can block forever or never end.
type notRegularError struct{ mode fs.FileMode }

func (e *notRegularError) Error() string {
	return "not a regular file (" + describeMode(e.mode) + ")"
}

// describeMode names what a non-regular, non-directory file is.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "irregular file"
}

// errIsDir is why read_file refuses a directory.
var errIsDir = errors.New("is a directory; use list_dir")

// open opens p inside the root for reading without ever blocking, and returns it only if
// it is a regular file (or, with dirOK, a directory). The check is made on the opened
// descriptor, so nothing can be swapped in between. A socket cannot be opened at all; its
// error then says what it is. Errors are *fs.PathError, worded by fsError.
func (w *Workspace) open(p string, dirOK bool) (*os.File, fs.FileInfo, error) {
	f, err := w.root.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if info, serr := w.root.Stat(p); serr == nil && !info.Mode().IsRegular() && !info.IsDir() {
			err = &notRegularError{info.Mode()}
		}
		return nil, nil, &fs.PathError{Op: "open", Path: p, Err: unwrapPath(err)}
	}
	info, err := f.Stat()
	switch {
	case err != nil:
	case info.IsDir() && !dirOK:
		err = errIsDir
	case !info.IsDir() && !info.Mode().IsRegular():
		err = &notRegularError{info.Mode()}
	default:
		return f, info, nil
	}
	f.Close()
	return nil, nil, &fs.PathError{Op: "open", Path: p, Err: unwrapPath(err)}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openSmall opens the regular file at p for reading, refusing one over MaxFileBytes.
func (w *Workspace) openSmall(p string) (*os.File, fs.FileInfo, error) {
	f, info, err := w.open(p, false)
	if err != nil {
		return nil, nil, fsError(p, err)
	}
	if info.Size() > MaxFileBytes {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %d bytes is over the %d-byte limit", p, info.Size(), MaxFileBytes)
	}
	return f, info, nil
}

// readSmall reads the regular file at p, up to MaxFileBytes.
func (w *Workspace) readSmall(p string) ([]byte, error) {
	f, _, err := w.openSmall(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fsError(p, err)
	}
	if len(data) > MaxFileBytes { // it grew since it was opened
		return nil, fmt.Errorf("%s: over the %d-byte limit", p, MaxFileBytes)
	}
	return data, nil
}

// rootFS is the root as an fs.FS for walking and listing: like os.Root.FS, except that
// Open never blocks and refuses what is neither a directory nor a regular file, so that a
// directory swapped for a FIFO between listing and opening cannot hang a walk.
type rootFS struct{ w *Workspace }

func (r rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, _, err := r.w.open(name, true)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (r rootFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return r.w.root.Stat(name)
}
