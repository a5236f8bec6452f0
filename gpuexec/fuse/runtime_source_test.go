package fuse

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestRuntimePartsListed fails when a file under rt/ is missing from
// runtimeParts (it would silently not be compiled) or listed twice, and
// checks that every part ends with a newline, so that joining keeps
// lines whole.
func TestRuntimePartsListed(t *testing.T) {
	files, err := fs.Glob(runtimeFiles, "rt/*.cuh")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimPrefix(f, "rt/"))
	}
	listed := slices.Clone(runtimeParts)
	slices.Sort(listed)
	slices.Sort(names)
	if !slices.Equal(listed, names) {
		t.Fatalf("rt/ holds %v, runtimeParts lists %v", names, listed)
	}
	for _, name := range runtimeParts {
		src, _ := runtimeFiles.ReadFile("rt/" + name)
		if len(src) == 0 || src[len(src)-1] != '\n' {
			t.Errorf("rt/%s is empty or does not end with a newline", name)
		}
	}
	if !strings.HasPrefix(runtimeSource, "// ") || !strings.Contains(runtimeSource, "GSQL_RE_") {
		t.Error("the joined runtime lacks its first or a later part")
	}
}
