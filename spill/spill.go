// Package spill keeps operator state that does not fit in memory on disk:
// rows split by a hash of their keys into partitions, each written as an
// Arrow IPC stream in a query's own temporary directory and read back one
// partition at a time. An operator whose state passes its memory limit
// partitions its input here and then runs over one partition at a time,
// each a fraction of the whole (DuckDB's out-of-core hash aggregate and
// join work the same way).
//
// A Dir belongs to one query and is removed when the query ends; a Dir
// left behind by a process that died is removed by the next CleanStale
// over the same parent directory.
package spill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/gsqlengine/gsql/errkind"
)

// dirPrefix starts the name of every spill directory: dirPrefix, the
// owning process id, a dash and a sequence number.
const dirPrefix = "gsql-spill-"

var dirSeq atomic.Int64

// Dir is one query's spill directory.
type Dir struct {
	path string
	// written counts the bytes written to files in the directory.
	written atomic.Int64
	files   atomic.Int64
}

// NewDir creates a spill directory under parent (os.TempDir() when
// empty), creating parent if needed.
func NewDir(parent string) (*Dir, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("spill: create %s: %w", parent, err)
	}
	name := fmt.Sprintf("%s%d-%d", dirPrefix, os.Getpid(), dirSeq.Add(1))
	path := filepath.Join(parent, name)
	if err := os.Mkdir(path, 0o700); err != nil {
		return nil, fmt.Errorf("spill: create %s: %w", path, err)
	}
	return &Dir{path: path}, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// BytesWritten is the bytes written to the directory's files so far.
func (d *Dir) BytesWritten() int64 { return d.written.Load() }

// Files is the number of files created in the directory so far.
func (d *Dir) Files() int64 { return d.files.Load() }

// DiskFullError is a spill write that found no space left on the
// device: the query fails (its spill directory is removed when it ends),
// and nothing else is touched.
type DiskFullError struct {
	Dir string
	Err error
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("spill: no space left for the query's spill files in %s: %v", filepath.Dir(e.Dir), e.Err)
}
func (e *DiskFullError) Unwrap() error { return e.Err }

// ErrorKind implements errkind.Kinded.
func (e *DiskFullError) ErrorKind() errkind.Kind { return errkind.DiskFull }

// full wraps a write's ENOSPC (or EDQUOT) in a DiskFullError.
func (d *Dir) full(err error) error {
	var already *DiskFullError
	if !errors.As(err, &already) && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)) {
		return &DiskFullError{Dir: d.path, Err: err}
	}
	return err
}

// failWrites, when set, is the error every spill write returns instead of
// writing (FailWrites).
var failWrites atomic.Pointer[error]

// FailWrites makes every later spill write fail with err, as a full disk
// would (syscall.ENOSPC), until the returned function is called: for
// tests of what a failed spill leaves behind.
func FailWrites(err error) (restore func()) {
	failWrites.Store(&err)
	return func() { failWrites.Store(nil) }
}

// Remove deletes the directory and everything in it.
func (d *Dir) Remove() error {
	if err := os.RemoveAll(d.path); err != nil {
		return fmt.Errorf("spill: remove %s: %w", d.path, err)
	}
	return nil
}

// CleanStale removes the spill directories under parent whose process no
// longer runs (a crash, a kill): what a query removes itself when it ends
// normally. It returns how many it removed.
func CleanStale(parent string) (int, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("spill: read %s: %w", parent, err)
	}
	removed := 0
	for _, e := range entries {
		pid, ok := ownerPid(e.Name())
		if !ok || !e.IsDir() || processAlive(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(parent, e.Name())); err != nil {
			return removed, fmt.Errorf("spill: remove stale %s: %w", e.Name(), err)
		}
		removed++
	}
	return removed, nil
}

// ownerPid is the process id in a spill directory's name.
func ownerPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, dirPrefix)
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

// processAlive reports whether a process with this id exists (signal 0
// checks without sending anything; EPERM means it exists under another
// user).
func processAlive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
