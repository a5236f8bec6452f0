//go:build cuda

package gpuexec

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// TestCompileOptionsReport measures NVRTC on the sources a cold query
// meets — a fused kernel set (redact), the interpreter, the runtime module
// — with option variants, all in parallel (as the background compile pool
// runs them). GSQL_COMPILE_REPORT=1 runs it; NVRTC's own phase times
// (--time) land in GSQL_COMPILE_TIME_DIR when set.
func TestCompileOptionsReport(t *testing.T) {
	if os.Getenv("GSQL_COMPILE_REPORT") == "" {
		t.Skip("set GSQL_COMPILE_REPORT=1")
	}
	d, err := NewDevice(Options{NoDiskCache: true})
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer d.Close()
	var bld fusetest.Builder
	red := bld.Redact(fusetest.Col(fusetest.Name), fusetest.Col(fusetest.Vis))
	k, err := fuse.Generate(fusetest.Types, nil, []expr.Expr{red})
	if err != nil || bld.Err != nil {
		t.Fatal(err, bld.Err)
	}
	upper, err := fuse.Generate(fusetest.Types, nil, []expr.Expr{bld.Call("upper", fusetest.Col(fusetest.Name))})
	if err != nil {
		t.Fatal(err)
	}
	timeDir := os.Getenv("GSQL_COMPILE_TIME_DIR")
	type job struct {
		label, name, code string
		opts              []string
	}
	var jobs []job
	variants := [][]string{nil, {"--ptxas-options=-O1"}, {"--ptxas-options=-O0"}, {"-default-device"}}
	for i, v := range variants {
		opts := v
		if timeDir != "" && i == 0 {
			opts = []string{"--time=" + filepath.Join(timeDir, "redact.csv")}
		}
		jobs = append(jobs, job{"redact fused", "r.cu", k.Source, opts}, job{"upper fused", "u.cu", upper.Source, v})
	}
	for i, v := range variants[:2] {
		opts := v
		if timeDir != "" && i == 0 {
			opts = []string{"--time=" + filepath.Join(timeDir, "interp.csv")}
		}
		jobs = append(jobs, job{"interpreter", "i.cu", fuse.Interpreter().Source, opts})
	}
	// The interpreter with the runtime's helpers inlined everywhere, as in
	// generated kernels (GSQL_INTERP off), for comparison.
	jobs = append(jobs, job{"interpreter inlined", "i.cu", strings.Replace(fuse.Interpreter().Source, "#define GSQL_INTERP 1\n", "", 1), nil})
	jobs = append(jobs, job{"runtime module", "rt.cu", runtimeSource, nil})
	var wg sync.WaitGroup
	res := make([]string, len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			_, err := d.Compile(Source{Name: j.name, Code: j.code, Options: j.opts})
			res[i] = time.Since(start).Round(time.Millisecond).String()
			if err != nil {
				res[i] += " error: " + err.Error()
			}
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		t.Logf("%-15s %-28v %s (%d source bytes)", j.label, j.opts, res[i], len(j.code))
	}
}

// TestInterpLinkedReport measures the interpreter's one-time compile split
// into parts compiled in parallel and linked (CompileLinked), for each
// part count in GSQL_LINK_PARTS (default 4,8,12,16), without the disk
// cache. GSQL_COMPILE_REPORT=1 runs it.
func TestInterpLinkedReport(t *testing.T) {
	if os.Getenv("GSQL_COMPILE_REPORT") == "" {
		t.Skip("set GSQL_COMPILE_REPORT=1")
	}
	counts := []int{4, 8, 12, 16}
	if s := os.Getenv("GSQL_LINK_PARTS"); s != "" {
		counts = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			counts = append(counts, n)
		}
	}
	for _, n := range counts {
		d, err := NewDevice(Options{NoDiskCache: true})
		if err != nil {
			t.Skipf("no GPU: %v", err)
		}
		it := fuse.InterpreterSplit(n)
		opts := []string{fmt.Sprintf("--maxrregcount=%d", fuse.InterpRegisterCap()), "--ptxas-options=-O1", "--fmad=false"}
		parts := make([]Source, len(it.Parts))
		size := 0
		for i, code := range it.Parts {
			parts[i] = Source{Name: fmt.Sprintf("p%d.cu", i), Code: code, Options: opts}
			size += len(code)
		}
		start := time.Now()
		m, err := d.CompileLinked("interp", parts)
		took := time.Since(start)
		if err != nil {
			d.Close()
			t.Fatalf("%d parts: %v", n, err)
		}
		if _, err := m.Kernel("gsql_fill"); err != nil {
			t.Fatal(err)
		}
		t.Logf("interpreter in %2d parts (%d ops, %d source bytes in all): %v", len(it.Parts)-1, it.Ops, size, took.Round(time.Millisecond))
		d.Close()
	}
}
