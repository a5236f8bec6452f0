// Package files keeps server clients' statements away from the server's
// files: gsql's table functions (read_csv('f.csv'), read_parquet, ...)
// read any path the process can, which an embedding program may want but
// a network server must not allow by default. A Policy says whether
// statements may read files, and from which directory.
package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/sql"
)

// ErrDenied is a statement that reads a file the policy does not allow.
var ErrDenied = errkind.New(errkind.AccessDenied, "file access denied")

// Policy is a server's file access rule. The zero Policy denies every
// file read.
type Policy struct {
	// Dir, when set, allows reading files inside it (after resolving
	// symbolic links; relative paths are relative to the server's working
	// directory, as gsql resolves them).
	Dir string
}

// Check returns an error wrapping ErrDenied when stmt reads a file the
// policy does not allow; statements that do not parse pass (running
// them reports the syntax error).
func (p Policy) Check(stmt string) error {
	st, err := sql.ParseOne(stmt)
	if err != nil {
		return nil
	}
	var paths []string
	if err := collect(reflect.ValueOf(st), &paths, 0); err != nil {
		return err
	}
	for _, path := range paths {
		if err := p.allow(path); err != nil {
			return err
		}
	}
	return nil
}

func (p Policy) allow(path string) error {
	if p.Dir == "" {
		return fmt.Errorf("%w: reading files (%q) is off in server mode (gsql serve --files DIR allows a directory)", ErrDenied, path)
	}
	dir, err := resolve(p.Dir)
	if err != nil {
		return fmt.Errorf("%w: --files directory: %v", ErrDenied, err)
	}
	abs, err := resolve(path)
	if err != nil {
		return fmt.Errorf("%w: %q: %v", ErrDenied, path, err)
	}
	if rel, err := filepath.Rel(dir, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%w: %q is outside the directory the server may read", ErrDenied, path)
	}
	return nil
}

// resolve makes path absolute and resolves its symbolic links (those of
// its directory when the file itself does not exist).
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	d, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs, nil // nothing there: the read fails anyway
	}
	return filepath.Join(d, filepath.Base(abs)), nil
}

// collect walks a parsed statement (any of package sql's statement types,
// generically, so that new ones are covered) and gathers the paths of
// the files it reads: table names with sql.FilePrefix, whether written
// as read_csv('...') or quoted by hand, and those of a view's query.
func collect(v reflect.Value, out *[]string, depth int) error {
	if depth > 64 || !v.IsValid() {
		return nil
	}
	if v.CanInterface() {
		switch x := v.Interface().(type) {
		case sqlparser.SQLNode:
			if isNil(v) {
				return nil
			}
			return sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
				if tn, ok := n.(sqlparser.TableName); ok {
					if path, ok := strings.CutPrefix(tn.Name.String(), sql.FilePrefix); ok {
						*out = append(*out, path)
					}
				}
				return true, nil
			}, x)
		case *sql.CreateView:
			if x == nil {
				return nil
			}
			st, err := sql.ParseOne(x.Query)
			if err != nil {
				return nil
			}
			return collect(reflect.ValueOf(st), out, depth+1)
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return collect(v.Elem(), out, depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if err := collect(v.Field(i), out, depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if err := collect(v.Index(i), out, depth+1); err != nil {
				return err
			}
		}
	case reflect.String:
		if path, ok := strings.CutPrefix(v.String(), sql.FilePrefix); ok {
			*out = append(*out, path)
		}
	}
	return nil
}

func isNil(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return v.IsNil()
	}
	return false
}
