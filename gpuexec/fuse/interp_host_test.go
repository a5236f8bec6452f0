package fuse_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// The interpreter's host tests compile its source once with the host C++
// compiler (the per-row code in a plain loop, as the fused kernels' host
// tests do) and run lowered programs over the test batches.

var (
	interpBinOnce sync.Once
	interpBin     string
	interpBinErr  error
)

const interpMain = `
#include <stdio.h>
#include <stdlib.h>
// usage: k data.bin n prog_off up_from up_to up_n lo_from lo_to lo_n (valid data off chars)*ninputs
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long sz = ftell(f); fseek(f, 0, SEEK_SET);
  char* blob = (char*)malloc(sz + 64); if (fread(blob, 1, sz, f) != (size_t)sz) return 2; fclose(f);
  int64_t n = atoll(argv[2]);
  IArgs a; memset(&a, 0, sizeof a);
  a.n = n; a.blocks = 1;
  a.prog = (const int32_t*)(blob + atoll(argv[3]));
  a.up_from = (const int32_t*)(blob + atoll(argv[4])); a.up_to = (const int32_t*)(blob + atoll(argv[5])); a.up_n = atoll(argv[6]);
  a.lo_from = (const int32_t*)(blob + atoll(argv[7])); a.lo_to = (const int32_t*)(blob + atoll(argv[8])); a.lo_n = atoll(argv[9]);
  static int64_t cols[4 * (GSQL_IMAXIN + GSQL_IMAXOUT)];
  int nin = (argc - 10) / 4;
  for (int c = 0; c < nin; c++)
    for (int k = 0; k < 4; k++) {
      long long o = atoll(argv[10 + 4 * c + k]);
      cols[4 * c + k] = o < 0 ? 0 : (int64_t)(blob + o);
    }
  const int32_t* P = a.prog;
  int nout = P[3];
  for (int j = 0; j < nout; j++) {
    int64_t* T = cols + 4 * (GSQL_IMAXIN + j);
    T[0] = (int64_t)malloc(((n + 31) / 32 + 1) * 4); memset((void*)T[0], 0xff, ((n + 31) / 32 + 1) * 4);
    T[1] = (int64_t)calloc(n + 1, 16);
    T[2] = (int64_t)calloc(n + 1, 4);
    T[3] = (int64_t)malloc(64 << 20);
  }
  a.cols = cols;
  int64_t totals[GSQL_NC]; int32_t err = 0;
  a.totals = totals; a.err = &err;
  host_run(a);
  int64_t rows = totals[0];
  fwrite(&err, 4, 1, stdout); fwrite(&rows, 8, 1, stdout);
  for (int j = 0; j < nout; j++) {
    int64_t* T = cols + 4 * (GSQL_IMAXIN + j);
    int t = P[4 + GSQL_IMAXOUT + j];
    fwrite((void*)T[0], 4, (rows + 31) / 32, stdout);
    if (t == 3) { int32_t* o = (int32_t*)T[2]; fwrite(o, 4, rows + 1, stdout); fwrite((void*)T[3], 1, rows ? o[rows] : 0, stdout); }
    else fwrite((void*)T[1], t == 2 ? 1 : (t == 4 ? 16 : 8), rows, stdout);
  }
  return 0;
}
`

func interpBinary(t *testing.T) string {
	t.Helper()
	c := cxx(t)
	interpBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gsql-interp")
		if err != nil {
			interpBinErr = err
			return
		}
		// The parts are compiled and linked separately, as on the device,
		// so that the split itself (exports, static helpers) is tested.
		parts := fuse.Interpreter().Parts
		objs := make([]string, len(parts))
		errs := make([]error, len(parts))
		var wg sync.WaitGroup
		for k, code := range parts {
			if k == 0 {
				code += interpMain
			}
			src := filepath.Join(dir, fmt.Sprintf("interp%d.cpp", k))
			objs[k] = filepath.Join(dir, fmt.Sprintf("interp%d.o", k))
			if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
				interpBinErr = err
				return
			}
			wg.Add(1)
			go func(k int, src string) {
				defer wg.Done()
				out, err := exec.Command(c, "-std=c++17", "-O1", "-DGSQL_HOST", "-w", "-c", "-o", objs[k], src).CombinedOutput()
				if err != nil {
					errs[k] = fmt.Errorf("compiling interpreter part %d: %v\n%s", k, err, out)
				}
			}(k, src)
		}
		wg.Wait()
		if interpBinErr = errors.Join(errs...); interpBinErr != nil {
			return
		}
		interpBin = filepath.Join(dir, "interp")
		out, err := exec.Command(c, append([]string{"-o", interpBin}, append(objs, "-lm")...)...).CombinedOutput()
		if err != nil {
			interpBinErr = fmt.Errorf("linking the interpreter: %v\n%s", err, out)
		}
	})
	if interpBinErr != nil {
		t.Fatal(interpBinErr)
	}
	return interpBin
}

// runInterpHost runs program p over batch b on the host.
func runInterpHost(t *testing.T, p *fuse.Program, b *coldata.Batch) ([]*coldata.Vec, int32) {
	t.Helper()
	bin := interpBinary(t)
	var bl blob
	args := []string{"", fmt.Sprint(b.Len), fmt.Sprint(bl.add(p.Blob))}
	upF, upT, loF, loT := fuse.CaseTables()
	i32 := func(xs []int32) []byte {
		out := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		}
		return out
	}
	args = append(args, fmt.Sprint(bl.add(i32(upF))), fmt.Sprint(bl.add(i32(upT))), fmt.Sprint(len(upF)),
		fmt.Sprint(bl.add(i32(loF))), fmt.Sprint(bl.add(i32(loT))), fmt.Sprint(len(loF)))
	for c, v := range b.Cols {
		valid, data, offs, chars := vecBytes(v)
		for _, part := range [][]byte{valid, data, offs, chars} {
			if part == nil || !p.Used[c] {
				args = append(args, "-1")
				continue
			}
			args = append(args, fmt.Sprint(bl.add(part)))
		}
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(data, bl.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args[0] = data
	if os.Getenv("GSQL_KEEP") != "" {
		exec.Command("cp", data, "/tmp/keep.bin").Run()
		t.Log(bin, args)
	}
	res, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("running the interpreter: %v", err)
	}
	return decodeHostOutputs(res, p.Outputs)
}

func decodeHostOutputs(res []byte, types []coldata.Type) ([]*coldata.Vec, int32) {
	rd := bytes.NewReader(res)
	var errCode int32
	var rows int64
	binary.Read(rd, binary.LittleEndian, &errCode)
	binary.Read(rd, binary.LittleEndian, &rows)
	outs := make([]*coldata.Vec, len(types))
	for j, ot := range types {
		words := make([]uint32, (rows+31)/32)
		binary.Read(rd, binary.LittleEndian, words)
		v := &coldata.Vec{Type: ot, Len: int(rows), Nulls: make([]byte, coldata.BitmapLen(int(rows)))}
		for i := 0; i < int(rows); i++ {
			if words[i/32]&(1<<(i%32)) != 0 {
				coldata.SetBit(v.Nulls, i)
			}
		}
		switch ot.Physical() {
		case coldata.String:
			v.Offsets = make([]int32, rows+1)
			binary.Read(rd, binary.LittleEndian, v.Offsets)
			v.Bytes = make([]byte, v.Offsets[rows])
			rd.Read(v.Bytes)
		case coldata.Int64:
			v.Ints = make([]int64, rows)
			binary.Read(rd, binary.LittleEndian, v.Ints)
		case coldata.Float64:
			v.Floats = make([]float64, rows)
			binary.Read(rd, binary.LittleEndian, v.Floats)
		case coldata.Bool:
			v.Bools = make([]byte, rows)
			rd.Read(v.Bools)
		case coldata.Decimal:
			words := make([]uint64, 2*rows)
			binary.Read(rd, binary.LittleEndian, words)
			v.Decs = make([]decimal.Int128, rows)
			for i := range v.Decs {
				v.Decs[i] = decimal.Int128{Lo: words[2*i], Hi: int64(words[2*i+1])}
			}
		}
		outs[j] = v
	}
	return outs, errCode
}

func checkInterp(t *testing.T, b *coldata.Batch, filter expr.Expr, outputs []expr.Expr) {
	t.Helper()
	p, err := fuse.Interpreter().Lower(fusetest.Types, filter, outputs)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	got, code := runInterpHost(t, p, b)
	want, werr := fusetest.Reference(b, filter, outputs)
	if werr != nil {
		if code == 0 {
			t.Fatalf("CPU failed (%v), interpreter did not", werr)
		}
		return
	}
	if code != 0 {
		t.Fatalf("interpreter reported error %d", code)
	}
	if err := fusetest.Compare(outputs, got, want); err != nil {
		t.Fatal(err)
	}
}

// TestInterpreterMatchesCPU runs every case of the fused-kernel tests
// through the interpreter: every function, filters, the redact query.
func TestInterpreterMatchesCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := append(bld.Cases(), bld.DateCases()...)
	filters := bld.Filters()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(2000, 7)
	for i, outs := range cases {
		t.Run(fmt.Sprintf("case%d", i), func(t *testing.T) { checkInterp(t, b, nil, outs) })
	}
	for i, f := range filters {
		t.Run(fmt.Sprintf("filter%d", i), func(t *testing.T) {
			checkInterp(t, b, f, []expr.Expr{fusetest.Col(fusetest.Name), bld.Redact(fusetest.Col(fusetest.Name), fusetest.Col(fusetest.Vis)), fusetest.Col(fusetest.A)})
		})
	}
	t.Run("edge", func(t *testing.T) {
		eb := fusetest.EdgeBatch(600, 3)
		for _, outs := range cases {
			checkInterp(t, eb, nil, outs)
		}
	})
}

// TestInterpreterWideCalls checks the nested rewrite of variadic calls
// wider than the generated signatures.
func TestInterpreterWideCalls(t *testing.T) {
	var bld fusetest.Builder
	c := bld.Call
	s, n, v, x := fusetest.Col(fusetest.Name), fusetest.Col(fusetest.S), fusetest.Col(fusetest.Vis), fusetest.Col(fusetest.A)
	lit := fusetest.Lit
	outs := []expr.Expr{
		c("concat", s, lit("/"), v, lit("/"), n, lit("/"), s),
		c("coalesce", lit(nil), n, lit(nil), s, v, lit("z")),
		c("in", x, lit(1), lit(2), lit(3), lit(4), lit(5), lit(nil)),
		c("case", c("<", x, lit(-5)), lit("a"), c("<", x, lit(0)), lit("b"), c("<", x, lit(5)), lit("c"), lit("d")),
		c("case", c("<", x, lit(-5)), lit("a"), c("<", x, lit(0)), lit("b"), c("<", x, lit(5)), lit("c")),
		c("concat_ws", lit("|"), s, v, n, s, v),
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	checkInterp(t, fusetest.Batch(1500, 11), nil, outs)
}

// TestInterpreterCoversGenerator: every registered function signature the
// generator compiles has an interpreter operation, so tier 0 runs whatever
// tier 1 does.
func TestInterpreterCoversGenerator(t *testing.T) {
	it := fuse.Interpreter()
	if it.Ops < 100 {
		t.Fatalf("only %d interpreter operations", it.Ops)
	}
	var missing []string
	for _, name := range expr.Names() {
		fn, _ := expr.Lookup(name)
		if fn.Volatile || fn.Name != name {
			continue
		}
		for _, sig := range fuse.Signatures(fn) {
			ret, _, _ := fn.Check(sig)
			args := make([]expr.Expr, len(sig))
			for i, ty := range sig {
				args[i] = &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: ty}
			}
			call := &expr.Call{Fn: fn, Args: args, T: ret}
			if _, err := fuse.Generate(sig, nil, []expr.Expr{call}); err != nil {
				continue
			}
			if _, err := it.Lower(sig, nil, []expr.Expr{call}); err != nil {
				missing = append(missing, err.Error())
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("fused but not interpreted:\n%s", strings.Join(missing, "\n"))
	}
}

// TestInterpreterLimits: what the interpreter cannot take is
// ErrNotFusable, never a wrong program.
func TestInterpreterLimits(t *testing.T) {
	it := fuse.Interpreter()
	many := make([]expr.Expr, fuse.InterpMaxOutputs+1)
	for i := range many {
		many[i] = fusetest.Col(fusetest.A)
	}
	if _, err := it.Lower(fusetest.Types, nil, many); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("too many outputs: %v", err)
	}
	var bld fusetest.Builder
	x := fusetest.Col(fusetest.A)
	// A CASE of 40 branches keeps every condition and value live until
	// the outermost choice: more than the interpreter's registers.
	var arms []expr.Expr
	for i := 0; i < 40; i++ {
		arms = append(arms, bld.Call(">", x, fusetest.Lit(i-20)), bld.Call("+", x, fusetest.Lit(100+i)))
	}
	wide := bld.Call("case", arms...)
	// A chain of 80 additions has two values live at a time: its registers
	// are reused, and it runs.
	deep := x
	for i := 0; i < 80; i++ {
		deep = bld.Call("+", deep, fusetest.Lit(i))
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	if _, err := it.Lower(fusetest.Types, nil, []expr.Expr{wide}); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("too many live values: %v", err)
	}
	checkInterp(t, fusetest.Batch(500, 23), bld.Call(">", deep, fusetest.Lit(3000)), []expr.Expr{deep, x, fusetest.Col(fusetest.Name)})
	// IN lists nest as a balanced tree: 300 values run; past the
	// interpreter's limit they wait for the fused kernel (which searches
	// a sorted array), and saying so takes no time.
	in := func(n int) expr.Expr {
		args := []expr.Expr{x}
		for i := 0; i < n; i++ {
			args = append(args, fusetest.Lit(i*7-1000))
		}
		return bld.Call("in", args...)
	}
	mid, huge := in(300), in(50_000)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	checkInterp(t, fusetest.Batch(500, 29), nil, []expr.Expr{mid})
	if _, err := it.Lower(fusetest.Types, nil, []expr.Expr{huge}); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("IN of 50,000 values: %v", err)
	}
	if a, b := fuse.Interpreter().Key, fuse.Interpreter().Key; a != b || len(a) != 32 {
		t.Fatalf("key %q", a)
	}
}

// TestCheckAgreesWithGenerate: placement's cheap check says yes exactly
// when Generate succeeds, and Generate's memory returns one kernel per
// exact request (literal types and values included).
func TestCheckAgreesWithGenerate(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.Cases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for i, outs := range cases {
		_, gerr := fuse.Generate(fusetest.Types, nil, outs)
		if cerr := fuse.Check(fusetest.Types, nil, outs); (gerr == nil) != (cerr == nil) {
			t.Fatalf("case %d: Generate %v, Check %v", i, gerr, cerr)
		}
	}
	x := fusetest.Col(fusetest.A)
	k1, _ := fuse.Generate(fusetest.Types, nil, []expr.Expr{bld.Call("+", x, fusetest.Lit(1))})
	k2, _ := fuse.Generate(fusetest.Types, nil, []expr.Expr{bld.Call("+", x, fusetest.Lit(1))})
	k3, _ := fuse.Generate(fusetest.Types, nil, []expr.Expr{bld.Call("+", x, fusetest.Lit(2))})
	k4, _ := fuse.Generate(fusetest.Types, nil, []expr.Expr{bld.Call("+", x, fusetest.Lit(1.0))})
	if k1 == nil || k1 != k2 {
		t.Fatal("the same request generated twice")
	}
	if k3 == k1 || k3.Params[0] != int64(2) || k4 == k1 || k4.Outputs[0] != coldata.Float64 {
		t.Fatalf("requests differing in a literal share a kernel: %v %v", k3.Params, k4.Outputs)
	}
	if _, ok := fuse.Generated(fusetest.Types, nil, []expr.Expr{bld.Call("+", x, fusetest.Lit(3))}); ok {
		t.Fatal("Generated reports a request never made")
	}
}

// cpuOnly lists the registry functions with no GPU code, and why. The walk
// below fails for any other function or signature the generator rejects.
var cpuOnly = map[string]string{
	// DOUBLE -> VARCHAR prints the shortest round-tripping digits
	// (strconv); the kernels have no shortest-digits formatter yet.
	"cast_to_varchar(DOUBLE)": "shortest float formatting",
	// The GPU compiles a regular expression when the kernel is generated:
	// a pattern, match flags or replacement read from a column (what this
	// walk passes) runs on the CPU. Literal ones run on the GPU
	// (regex_host_test.go).
	"regexp_like": "column pattern", "regexp_replace": "column pattern",
	"regexp_substr": "column pattern", "regexp_instr": "column pattern",
	// LIKE's escape must be a literal (a column of escape characters is
	// accepted by the CPU only).
	"like(VARCHAR,VARCHAR,VARCHAR)": "escape column",
	// DATE and TIMESTAMP do not convert to DECIMAL (the CPU raises the
	// error).
	"cast_to_decimal(DATE,BIGINT,BIGINT)": "no conversion", "cast_to_decimal(TIMESTAMP,BIGINT,BIGINT)": "no conversion",
	// TRY re-evaluates failing batches row by row on the CPU.
	"try": "row-by-row retry",
}

// TestRegistryOnGPU walks the function registry: every registered function
// with every argument-type signature it accepts generates GPU code (fused
// and interpreted), except the documented cpuOnly entries.
func TestRegistryOnGPU(t *testing.T) {
	seen := map[*expr.Function]bool{}
	var missing []string
	for _, name := range expr.Names() {
		fn, _ := expr.Lookup(name)
		if seen[fn] || fn.Volatile {
			continue
		}
		seen[fn] = true
		for _, sig := range fuse.Signatures(fn) {
			key := strings.ToLower(fn.Name)
			full := fmt.Sprintf("%s(%s)", key, strings.Trim(strings.ReplaceAll(fmt.Sprint(sig), " ", ","), "[]"))
			ret, _, _ := fn.Check(sig)
			args := make([]expr.Expr, len(sig))
			for i, ty := range sig {
				args[i] = &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: ty}
			}
			err := fuse.Check(sig, nil, []expr.Expr{&expr.Call{Fn: fn, Args: args, T: ret}})
			_, listed := cpuOnly[key]
			_, listedSig := cpuOnly[full]
			switch {
			case err != nil && !listed && !listedSig:
				missing = append(missing, fmt.Sprintf("%s: %v", full, err))
			case err == nil && (listed || listedSig):
				missing = append(missing, full+" runs on the GPU now: take it off cpuOnly")
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("registry functions without GPU code:\n%s", strings.Join(missing, "\n"))
	}
}

// TestInterpreterDatetimePrecision: casts to DATETIME(n) (rounded to n
// digits) and the text of DATETIME(n) values (exactly n digits) run on the
// interpreter and match the CPU, on the test table and its edge rows;
// functions over a DATETIME(n) column read it as TIMESTAMP.
func TestInterpreterDatetimePrecision(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.FspCases()
	ts3 := coldata.TimestampOf(3)
	col := &expr.ColumnRef{Index: 0, Name: "ts3", T: ts3}
	others := []expr.Expr{bld.Call("hour", col), col, bld.Cast(col, coldata.String), bld.Call("coalesce", col, col),
		bld.Call("date_format", col, fusetest.Lit("%f")), bld.Cast(col, coldata.Date), bld.Cast(col, coldata.TimestampOf(1)),
		bld.Cast(bld.Call("coalesce", col, col), coldata.String), bld.Call("timediff", col, fusetest.Lit("10:00:00.5"))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	it := fuse.Interpreter()
	p, err := it.Lower([]coldata.Type{ts3}, nil, others)
	if err != nil {
		t.Fatalf("functions of a DATETIME(3) column: %v", err)
	}
	// The TIMESTAMP column's values rounded to milliseconds, as a
	// DATETIME(3) column stores them.
	src := fusetest.EdgeBatch(600, 5).Cols[fusetest.TS]
	v := *src
	v.Type = ts3
	v.Ints = make([]int64, len(src.Ints))
	for i, x := range src.Ints {
		v.Ints[i] = x - x%1000
	}
	one := &coldata.Batch{Len: v.Len, Cols: []*coldata.Vec{&v}}
	got, code := runInterpHost(t, p, one)
	want, err := fusetest.Reference(one, nil, others)
	if err != nil || code != 0 {
		t.Fatalf("CPU %v, interpreter error %d", err, code)
	}
	if err := fusetest.Compare(others, got, want); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*coldata.Batch{fusetest.Batch(500, 23), fusetest.EdgeBatch(600, 5)} {
		for _, outs := range cases {
			checkInterp(t, b, nil, outs)
		}
	}
}
