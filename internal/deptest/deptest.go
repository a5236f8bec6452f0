// Package deptest checks a package's place in gsql's layering: tests call
// it to fail when a package, with everything it imports transitively,
// reaches a gsql package it must not (in the manner of CockroachDB's
// dependency tests). It asks `go list -deps` (the go command the tests
// run under; no network, no build), with and without the cuda build tag,
// so that code behind the tag is held to the same rule.
package deptest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Module is gsql's module path; names given to this package are relative
// to it ("coldata", "server/mysql/wire").
const Module = "github.com/gsqlengine/gsql"

// pkg is one dependency as go list reports it.
type pkg struct {
	path     string // relative to Module when inside it, else the import path
	inModule bool
	standard bool
	cgo      bool
	imports  []string
}

// tagSets are the build configurations checked: the default (pure Go,
// what CI builds) and the cuda tag (the GPU build).
var tagSets = []string{"", "cuda"}

// goCmd is the go command of the toolchain running the test.
func goCmd() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// deps lists name and its transitive dependencies under tags.
func deps(name, tags string) ([]pkg, error) {
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}\t{{.Standard}}\t{{len .CgoFiles}}\t{{join .Imports \" \"}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(args, Module+"/"+name)
	cmd := exec.Command(goCmd(), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// The cuda tag needs no C toolchain to be listed; keep go list from
	// dropping cgo files when CGO_ENABLED is off on the test machine.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w: %s", name, err, stderr.String())
	}
	var ps []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("go list %s: unexpected line %q", name, sc.Text())
		}
		p := pkg{path: f[0], standard: f[1] == "true", cgo: f[2] != "0", imports: strings.Fields(f[3])}
		if rel, ok := strings.CutPrefix(f[0], Module+"/"); ok {
			p.path, p.inModule = rel, true
		}
		ps = append(ps, p)
	}
	return ps, sc.Err()
}

// each calls check with name's dependencies under every tag set.
func each(t testing.TB, name string, check func(tags string, ps []pkg)) {
	t.Helper()
	if _, err := exec.LookPath(goCmd()); err != nil {
		// A test binary carried to a machine without Go (the GPU
		// machine) cannot list packages; CI and developers have Go.
		t.Skipf("dependency test of %s needs the go command: %v", name, err)
	}
	for _, tags := range tagSets {
		ps, err := deps(name, tags)
		if err != nil {
			t.Fatal(err)
		}
		check(tags, ps)
	}
}

func tagNote(tags string) string {
	if tags == "" {
		return ""
	}
	return " (-tags " + tags + ")"
}

// AllowOnly fails t when name depends on a gsql package other than the
// allowed ones, or on a gsql package with cgo files.
func AllowOnly(t testing.TB, name string, allowed ...string) {
	t.Helper()
	each(t, name, func(tags string, ps []pkg) {
		for _, p := range ps {
			if !p.inModule || p.path == name {
				continue
			}
			if !slices.Contains(allowed, p.path) {
				t.Errorf("%s imports %s%s; it may import only %s of gsql", name, p.path, tagNote(tags), strings.Join(allowed, ", "))
			}
			if p.cgo {
				t.Errorf("%s imports %s%s, which uses cgo", name, p.path, tagNote(tags))
			}
		}
	})
}

// Forbid fails t when name depends on any of the forbidden gsql packages
// or on a package below one of them ("gpuexec" covers "gpuexec/fuse").
func Forbid(t testing.TB, name string, forbidden ...string) {
	t.Helper()
	each(t, name, func(tags string, ps []pkg) {
		for _, p := range ps {
			if !p.inModule {
				continue
			}
			for _, f := range forbidden {
				if p.path == f || strings.HasPrefix(p.path, f+"/") {
					t.Errorf("%s imports %s%s, which it must not (%s)", name, p.path, tagNote(tags), f)
				}
			}
		}
	})
}

// ImportsOnly fails t when name itself imports a package outside the
// standard library that neither is an allowed gsql package nor has one
// of the allowed import path prefixes (third-party modules).
func ImportsOnly(t testing.TB, name string, gsql []string, prefixes ...string) {
	t.Helper()
	each(t, name, func(tags string, ps []pkg) {
		std := map[string]bool{}
		for _, p := range ps {
			std[p.path] = p.standard
		}
		for _, p := range ps {
			if p.path != name {
				continue
			}
			for _, imp := range p.imports {
				rel, inModule := strings.CutPrefix(imp, Module+"/")
				switch {
				case std[imp]:
				case inModule && slices.Contains(gsql, rel):
				case !inModule && slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(imp, pre) }):
				default:
					t.Errorf("%s imports %s%s; allowed: the standard library, gsql's %s and %s", name, imp, tagNote(tags),
						strings.Join(gsql, ", "), strings.Join(prefixes, ", "))
				}
			}
		}
	})
}
