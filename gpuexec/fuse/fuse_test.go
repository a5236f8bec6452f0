package fuse_test

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"

	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

func TestRedactKernelMatchesCPU(t *testing.T) {
	var bld fusetest.Builder
	out := []expr.Expr{bld.Redact(fusetest.Col(fusetest.Name), fusetest.Col(fusetest.Vis))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	k := checkKernel(t, fusetest.Batch(3000, 1), nil, out)
	if !k.TwoPass() || k.StringOutputs != 1 {
		t.Fatalf("redact kernel: two-pass %v, string outputs %d", k.TwoPass(), k.StringOutputs)
	}
	// Every value is a view or a rope of views: nothing is copied to scratch.
	if strings.Contains(k.Source, "flatten(t") || strings.Contains(k.Source, "scratch_take(sc") {
		t.Errorf("redact kernel uses scratch")
	}
}

func TestLiteralsShareKernels(t *testing.T) {
	var bld fusetest.Builder
	pa := bld.Call("=", fusetest.Col(fusetest.Vis), fusetest.Lit("public"))
	pb := bld.Call("=", fusetest.Col(fusetest.Vis), fusetest.Lit("private"))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	a, err := fuse.Generate(testTypes, pa, []expr.Expr{fusetest.Col(fusetest.Name)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fuse.Generate(testTypes, pb, []expr.Expr{fusetest.Col(fusetest.Name)})
	if err != nil {
		t.Fatal(err)
	}
	if a.Key != b.Key {
		t.Fatalf("WHERE x = 'public' and WHERE x = 'private' compiled to different kernels")
	}
	if a.Params[0] != "public" || b.Params[0] != "private" {
		t.Fatalf("params %v / %v", a.Params, b.Params)
	}
}

func TestFunctionKernelsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := append(append(bld.Cases(), bld.DateCases()...), bld.FspCases()...)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(2000, 2)
	for _, c := range cases {
		checkKernel(t, b, nil, c)
	}
}

func TestFilterCompactsRows(t *testing.T) {
	var bld fusetest.Builder
	filters := bld.Filters()
	out := []expr.Expr{bld.Redact(fusetest.Col(fusetest.Name), fusetest.Col(fusetest.Vis)), fusetest.Col(fusetest.A), bld.Call("upper", fusetest.Col(fusetest.Name))}
	num := []expr.Expr{bld.Call("*", fusetest.Col(fusetest.A), fusetest.Lit(2))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(5000, 3)
	checkKernel(t, b, filters[0], out)
	// A filter with no string output still takes two passes to compact.
	checkKernel(t, b, filters[1], num)
}

func TestNotFusable(t *testing.T) {
	var bld fusetest.Builder
	e := bld.Call("cast_to_varchar", fusetest.Col(fusetest.F))
	if bld.Err != nil {
		t.Skip(bld.Err)
	}
	if _, err := fuse.Generate(testTypes, nil, []expr.Expr{e}); err == nil {
		t.Fatal("CAST(DOUBLE AS VARCHAR) fused, want ErrNotFusable")
	}
}

func TestLongStrings(t *testing.T) {
	var bld fusetest.Builder
	name, n := fusetest.Col(fusetest.Name), fusetest.Col(fusetest.S)
	outs := []expr.Expr{bld.Call("concat", name, n, name), bld.Call("substring", name, fusetest.Lit(3)), bld.Call("upper", name)}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	checkKernel(t, fusetest.LongBatch(3000, 5), nil, outs)
}

func TestGatherKernel(t *testing.T) {
	b := fusetest.Batch(3000, 9)
	k, err := fuse.GenerateGather(testTypes)
	if err != nil {
		t.Fatal(err)
	}
	perm := rand.New(rand.NewSource(3)).Perm(b.Len)
	idx := make([]int64, 0, len(perm)/2)
	sel := make([]int, 0, len(perm)/2)
	for _, p := range perm[:len(perm)/2] {
		idx = append(idx, int64(p))
		sel = append(sel, p)
	}
	got, code := runHost(t, k, b, idx...)
	if code != 0 {
		t.Fatalf("error %d", code)
	}
	want := coldata.GatherBatch(b, sel)
	outs := make([]expr.Expr, len(testTypes))
	for i := range outs {
		outs[i] = fusetest.Col(i)
	}
	if err := fusetest.Compare(outs, got, want.Cols); err != nil {
		t.Fatal(err)
	}
}

// variants are the code-generation options every function is checked
// under: the default, the byte-at-a-time scans and no find cache.
var variants = []struct {
	name string
	opts fuse.Options
}{
	{"default", fuse.Options{}},
	{"scalar", fuse.Options{Scalar: true, NoFindCache: true, Counters64: true}},
	{"nocache", fuse.Options{NoFindCache: true}},
}

func TestScanKernelsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.ScanCases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.ScanBatch(4000, 21)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			for _, c := range cases {
				checkKernelWith(t, v.opts, b, nil, c)
			}
		})
	}
}

func TestFunctionKernelVariantsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.Cases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(1500, 4)
	for _, v := range variants[1:] {
		t.Run(v.name, func(t *testing.T) {
			for _, c := range cases {
				checkKernelWith(t, v.opts, b, nil, c)
			}
		})
	}
}

// TestFindCacheShared checks that SPLIT_PART calls over the same string and
// delimiter share one cache and one literal slot.
func TestFindCacheShared(t *testing.T) {
	var bld fusetest.Builder
	out := []expr.Expr{bld.Redact(fusetest.Col(fusetest.Name), fusetest.Col(fusetest.Vis))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	k, err := fuse.Generate(testTypes, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	caches := map[string]bool{}
	for _, m := range regexp.MustCompile(`FindCache (t\d+);`).FindAllStringSubmatch(k.Source, -1) {
		caches[m[1]] = true
	}
	if len(caches) != 1 {
		t.Errorf("redact kernel declares find caches %v, want one", caches)
	}
	spaces := 0
	for _, p := range k.Params {
		if p == " " {
			spaces++
		}
	}
	if spaces != 1 {
		t.Errorf("literal ' ' has %d slots, want 1 (params %v)", spaces, k.Params)
	}
}

func TestLongCasesMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.LongCases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.LongRows(300, 256, 2048, 8)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			checkKernelWith(t, v.opts, b, nil, cases)
		})
	}
}

// TestWarpKernelsMatchCPU runs the one-row-per-warp form of every kernel
// that has one (on the host a warp is one lane, so the windowed walks,
// their UTF-8 checks and serial fallbacks run chunk by chunk) and compares
// it with the CPU.
func TestWarpKernelsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	type set struct {
		name  string
		b     *coldata.Batch
		cases [][]expr.Expr
	}
	long := bld.LongCases()
	var longEach [][]expr.Expr
	for _, e := range long {
		longEach = append(longEach, []expr.Expr{e})
	}
	name := fusetest.Col(fusetest.Name)
	specials := [][]expr.Expr{
		{bld.Call("upper", name), bld.Call("lower", name), bld.Call("char_length", name)},
		{bld.Call("concat", bld.Call("upper", name), fusetest.Lit("!"))},
		{bld.Call("replace", name, fusetest.Lit(" "), fusetest.Lit("<->")), bld.Call("replace", name, fusetest.Lit("a"), fusetest.Lit(""))},
		{bld.Call("locate", fusetest.Lit("delta"), name), bld.Call("split_part", name, fusetest.Lit(" "), fusetest.Lit(-2))},
	}
	sets := []set{
		{"scan", fusetest.ScanBatch(3000, 31), bld.ScanCases()},
		{"functions", fusetest.Batch(1500, 4), bld.Cases()},
		{"long", fusetest.LongRows(200, 16, 3000, 8), longEach},
		{"specials", fusetest.LongBatch(600, 12), specials},
		{"edges", fusetest.EdgeBatch(3000, 13), specials},
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	warped := 0
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			for _, outs := range s.cases {
				k, err := fuse.GenerateWith(testTypes, nil, outs, fuse.Options{AlwaysWarp: true})
				if err != nil {
					t.Fatalf("generate: %v", err)
				}
				if k.WarpSource == "" {
					continue
				}
				warped++
				wk := *k
				wk.Source = k.WarpSource
				got, code := runHost(t, &wk, s.b)
				if code != 0 {
					t.Fatalf("%v: error %d", outs, code)
				}
				want, err := fusetest.Reference(s.b, nil, outs)
				if err != nil {
					t.Fatal(err)
				}
				if err := fusetest.Compare(outs, got, want); err != nil {
					t.Fatalf("%v: %v", outs, err)
				}
			}
		})
	}
	if warped < 12 {
		t.Errorf("%d kernels had a warp form, want at least 12", warped)
	}
}

// TestWarpFormChoice checks which expressions get the warp form and from
// which average length.
func TestWarpFormChoice(t *testing.T) {
	var bld fusetest.Builder
	name := fusetest.Col(fusetest.Name)
	cases := []struct {
		e   expr.Expr
		min int // 0: no warp form
	}{
		{bld.Call("replace", name, fusetest.Lit(" "), fusetest.Lit("_")), fuse.WarpMinReplace},
		{bld.Call("upper", name), fuse.WarpMinScan},
		{bld.Call("concat", bld.Call("lower", name), bld.Call("replace", name, fusetest.Lit("a"), fusetest.Lit("b"))), fuse.WarpMinReplace},
		{bld.Call("like", name, fusetest.Lit("%ipsum%")), fuse.WarpMinScan},
		{bld.Call("char_length", name), 0},
		{bld.Call("split_part", name, fusetest.Lit(" "), fusetest.Lit(2)), 0},
		{bld.Call("like", name, fusetest.Lit("%a_b%")), 0},
		{bld.Call("upper", bld.Call("reverse", name)), 0},
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, c := range cases {
		k, err := fuse.Generate(testTypes, nil, []expr.Expr{c.e})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if k.WarpSource != "" {
			got = k.WarpMinAvg
			if strings.Contains(k.WarpSource, "a.rowsz0[") {
				t.Errorf("%s: the warp form reads stored row sizes (the launcher gives it none)", c.e)
			}
		}
		if got != c.min {
			t.Errorf("%s: warp form from %d bytes, want %d", c.e, got, c.min)
		}
	}
}

// TestGenerateGatherShared: a gather over the same column types is
// generated once and shared (a join asks for it on every run).
func TestGenerateGatherShared(t *testing.T) {
	a, err := fuse.GenerateGather([]coldata.Type{coldata.Int64, coldata.String})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fuse.GenerateGather([]coldata.Type{coldata.Int64, coldata.String})
	if err != nil {
		t.Fatal(err)
	}
	c, err := fuse.GenerateGather([]coldata.Type{coldata.String, coldata.Int64})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || a.Key != b.Key {
		t.Error("the same types generated twice")
	}
	if c == a || c.Key == a.Key {
		t.Error("other types share a gather")
	}
}

// TestRepeatNullCountSizesNothing: a NULL count's slot may hold anything
// (device memory is not cleared between uses); REPEAT must not size it,
// nor fail the batch as a result over 1 GiB.
func TestRepeatNullCountSizesNothing(t *testing.T) {
	b := coldata.NewBuilder(coldata.Int64, 3)
	b.AppendInt(2)
	b.AppendInt(1 << 40)
	b.AppendInt(3)
	v := b.Finish()
	v.SetNull(1)
	in := &coldata.Batch{Cols: []*coldata.Vec{v}, Len: 3}
	var bld fusetest.Builder
	out := []expr.Expr{bld.Call("repeat", fusetest.Lit("ab"), &expr.ColumnRef{Index: 0, Name: "n", T: coldata.Int64})}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	k, err := fuse.Generate([]coldata.Type{coldata.Int64}, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	got, code := runHost(t, k, in)
	if code != 0 {
		t.Fatalf("error code %d for a NULL count", code)
	}
	want, err := fusetest.Reference(in, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := fusetest.Compare(out, got, want); err != nil {
		t.Fatal(err)
	}
}
