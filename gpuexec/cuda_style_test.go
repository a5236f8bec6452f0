package gpuexec

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// cudaSources are the CUDA files kept in .clang-format's style.
func cudaSources(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, glob := range []string{"kernels/*.cu", "kernels/*.h", "fuse/rt/*.cuh"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d CUDA files, expected the kernels and the runtime parts", len(files))
	}
	return files
}

// TestCUDAStyle holds all CUDA source to one style: 2-space indents, no
// tabs or trailing blanks, lines of at most 100 columns (what `make
// cuda-fmt` produces). Where clang-format 14, the version the tree is
// formatted with, is installed, the files must also be exactly its output.
func TestCUDAStyle(t *testing.T) {
	files := cudaSources(t)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for i, line := range lines {
			where := func(msg string) { t.Errorf("%s:%d: %s (run make cuda-fmt)", f, i+1, msg) }
			switch {
			case strings.Contains(line, "\t"):
				where("tab")
			case strings.TrimRight(line, " ") != line:
				where("trailing blank")
			case len([]rune(line)) > 100:
				where("line over 100 columns")
			case opensBlock(line) && i+1 < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "#") &&
				!strings.HasPrefix(strings.TrimSpace(lines[i+1]), "}") && strings.TrimSpace(lines[i+1]) != "" &&
				indentOf(lines[i+1]) != statementIndent(lines, i)+2:
				where("a block's first line is not indented 2 more than the line that opens it")
			}
		}
	}
	out, err := exec.Command("clang-format", "--version").Output()
	if err != nil || !regexp.MustCompile(`version 14\.`).Match(out) {
		t.Logf("clang-format 14 not installed: checked the invariants only")
		return
	}
	for _, f := range files {
		cmd := exec.Command("clang-format", "--style=file", f)
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("clang-format %s: %v", f, err)
		}
		got, _ := os.ReadFile(f)
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not formatted: run make cuda-fmt", f)
		}
	}
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// opensBlock reports a code line that ends by opening a brace block (not
// an initializer, whose items clang-format indents as a continuation).
func opensBlock(line string) bool {
	s := strings.TrimSpace(line)
	return strings.HasSuffix(s, "{") && !strings.HasSuffix(s, "= {") &&
		!strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "#")
}

// statementIndent is the indent of the first line of the statement that
// line i ends: a signature or condition may span lines, so it walks back
// to the line holding the parenthesis that line i's last one closes.
func statementIndent(lines []string, i int) int {
	depth := strings.Count(lines[i], ")") - strings.Count(lines[i], "(")
	for depth > 0 && i > 0 {
		i--
		depth += strings.Count(lines[i], ")") - strings.Count(lines[i], "(")
	}
	// A declaration may also break before the name (after
	// __launch_bounds__, say).
	for i > 0 && !endsStatement(lines[i-1]) {
		i--
	}
	return indentOf(lines[i])
}

// endsStatement reports a line after which a new statement or declaration
// starts.
func endsStatement(line string) bool {
	s := strings.TrimSpace(line)
	return s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "#") ||
		strings.HasSuffix(s, "*/") || strings.ContainsAny(s[len(s)-1:], ";{}:")
}
