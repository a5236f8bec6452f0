//go:build unix

package storage

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// mapFile maps the whole file read-only. The mapping stays valid after the
// file is closed and even after it is unlinked.
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() == 0 {
		return nil, fmt.Errorf("empty file")
	}
	if int64(int(st.Size())) != st.Size() {
		return nil, fmt.Errorf("file of %d bytes is too large to map", st.Size())
	}
	return syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmap(b []byte) error { return syscall.Munmap(b) }

// lockFile takes an exclusive, non-blocking flock on path and writes the
// process id into it. The lock goes with the process: a killed writer
// leaves the file behind but not the lock.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := "another process"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
				holder = fmt.Sprintf("process %d", pid)
				if pid == os.Getpid() {
					holder += " (this process: close the other handle first)"
				}
			}
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: path, Holder: holder}
		}
		return nil, err
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

func unlockFile(f *os.File) error {
	// Empty the pid first so that a later reader of the file does not name
	// a process that no longer holds the lock.
	f.Truncate(0)
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return f.Close()
}

// syncDir makes the directory's entries (created, renamed and removed
// files) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
