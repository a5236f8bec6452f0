//go:build !unix

package storage

import (
	"errors"
	"os"
)

var errNoUnix = errors.New("on-disk databases need a Unix system (mmap and flock)")

func mapFile(string) ([]byte, error)    { return nil, errNoUnix }
func unmap([]byte) error                { return nil }
func lockFile(string) (*os.File, error) { return nil, errNoUnix }
func unlockFile(f *os.File) error       { return f.Close() }
func syncDir(string) error              { return errNoUnix }
