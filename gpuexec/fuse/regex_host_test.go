package fuse_test

import (
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// joinCases merges output lists k at a time (one host compile each).
func joinCases(cases [][]expr.Expr, k int) [][]expr.Expr {
	var out [][]expr.Expr
	for i := 0; i < len(cases); i += k {
		var list []expr.Expr
		for _, c := range cases[i:min(i+k, len(cases))] {
			list = append(list, c...)
		}
		out = append(out, list)
	}
	return out
}

// regexBatches are the batches the REGEXP and encoding cases run over:
// names, UTF-8 edge cases at every offset, and rows of up to 3000 bytes
// (digests over many blocks).
func regexBatches() []struct {
	name string
	b    *coldata.Batch
} {
	return []struct {
		name string
		b    *coldata.Batch
	}{
		{"names", fusetest.Batch(1200, 21)},
		{"edges", fusetest.EdgeBatch(900, 22)},
		{"long", fusetest.LongRows(60, 16, 3000, 23)},
	}
}

// TestRegexKernelsMatchCPU runs every pattern through every REGEXP
// function in fused kernels and compares each output with the CPU.
func TestRegexKernelsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := joinCases(bld.RegexCases(), 6)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, b := range regexBatches() {
		t.Run(b.name, func(t *testing.T) {
			for _, outs := range cases {
				checkKernel(t, b.b, nil, outs)
			}
		})
	}
}

// TestEncodeKernelsMatchCPU: HEX, UNHEX, TO_BASE64, FROM_BASE64 and the
// digests in fused kernels, against the CPU.
func TestEncodeKernelsMatchCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := bld.EncodeCases()
	// The nested cases in one kernel (at most 1 KiB of scratch a row:
	// the edge batch's rows of up to 300 bytes fit).
	nested := joinCases(bld.EncodeNestedCases(), 1)
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, b := range regexBatches() {
		t.Run(b.name, func(t *testing.T) {
			for _, outs := range cases {
				checkKernel(t, b.b, nil, outs)
			}
			if b.name == "long" {
				return
			}
			for _, outs := range nested {
				checkKernel(t, b.b, nil, outs)
			}
		})
	}
}

// TestRegexInterpreterMatchesCPU: the same cases through the interpreter
// (patterns lowered to program constants), over the names and the edge
// cases.
func TestRegexInterpreterMatchesCPU(t *testing.T) {
	var bld fusetest.Builder
	cases := append(bld.RegexCases(), bld.EncodeCases()...)
	nested := bld.EncodeNestedCases()
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for _, b := range regexBatches() {
		if b.name == "long" {
			// The interpreter writes every generated string to its 2 KiB
			// scratch (longer ones take the library path).
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			cases := append(cases, nested...)
			for i, outs := range cases {
				t.Run(fmt.Sprint(i), func(t *testing.T) { checkInterp(t, b.b, nil, outs) })
			}
		})
	}
}

// TestRegexFilter: REGEXP as a filter, with a REGEXP_REPLACE output.
func TestRegexFilter(t *testing.T) {
	var bld fusetest.Builder
	s := fusetest.Col(fusetest.Name)
	filter := bld.Call("not", bld.Call("regexp_like", s, fusetest.Lit(`^\pL+ \pL+$`)))
	outs := []expr.Expr{s, bld.Call("regexp_replace", s, fusetest.Lit(`(\pL)(\pL*)`), fusetest.Lit("$2$1"))}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.EdgeBatch(1500, 31)
	checkKernel(t, b, filter, outs)
	checkInterp(t, b, filter, outs)
}

// TestRegexErrors: a pattern that does not compile, an unknown flag and a
// position below 1 fail in the kernels with the codes the host turns into
// the CPU's errors, and only for rows whose arguments are not NULL.
func TestRegexErrors(t *testing.T) {
	var bld fusetest.Builder
	s, x := fusetest.Col(fusetest.Name), fusetest.Col(fusetest.A)
	allNull := bld.Call("nullif", s, s)
	cases := []struct {
		e    expr.Expr
		code int32
		want error
	}{
		{bld.Call("regexp_like", s, fusetest.Lit("(")), 16, expr.ErrRegexp},
		{bld.Call("regexp_instr", s, fusetest.Lit("a"), fusetest.Lit(1), fusetest.Lit(1), fusetest.Lit(0), fusetest.Lit("q")), 17, expr.ErrRegexp},
		{bld.Call("regexp_substr", s, fusetest.Lit("a"), fusetest.Lit(0)), 18, expr.ErrOutOfRange},
		{bld.Call("regexp_replace", s, fusetest.Lit("a"), fusetest.Lit("b"), x), 18, expr.ErrOutOfRange},
		{bld.Call("regexp_instr", s, fusetest.Lit("a"), bld.Call("-", x, fusetest.Lit(100))), 18, expr.ErrOutOfRange},
		// A bad pattern is reported before a bad position, as on the CPU.
		{bld.Call("regexp_substr", s, fusetest.Lit("a**"), fusetest.Lit(0)), 16, expr.ErrRegexp},
		{bld.Call("regexp_like", allNull, fusetest.Lit("(")), 0, nil},
		{bld.Call("regexp_substr", allNull, fusetest.Lit("a"), fusetest.Lit(0)), 0, nil},
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	b := fusetest.Batch(500, 41)
	for i, c := range cases {
		outs := []expr.Expr{c.e}
		_, cpuErr := fusetest.Reference(b, nil, outs)
		if (c.want == nil) != (cpuErr == nil) || (c.want != nil && !errors.Is(cpuErr, c.want)) {
			t.Fatalf("case %d: CPU error %v, want %v", i, cpuErr, c.want)
		}
		k, err := fuse.Generate(testTypes, nil, outs)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if _, code := runHost(t, k, b); code != c.code {
			t.Fatalf("case %d: fused kernel error %d, want %d", i, code, c.code)
		}
		p, err := fuse.Interpreter().Lower(testTypes, nil, outs)
		if err != nil {
			t.Fatalf("case %d: lower: %v", i, err)
		}
		if _, code := runInterpHost(t, p, b); code != c.code {
			t.Fatalf("case %d: interpreter error %d, want %d", i, code, c.code)
		}
	}
}

// TestRegexLimits: what the device cannot take is ErrNotFusable (the CPU
// runs it), never a wrong answer; patterns share kernels within a size
// class.
func TestRegexLimits(t *testing.T) {
	var bld fusetest.Builder
	s, n := fusetest.Col(fusetest.Name), fusetest.Col(fusetest.S)
	lit := fusetest.Lit
	notFusable := []expr.Expr{
		bld.Call("regexp_like", s, n),                                             // column pattern
		bld.Call("regexp_like", s, lit("a"), n),                                   // column flags
		bld.Call("regexp_replace", s, lit("a"), n),                                // column replacement
		bld.Call("regexp_like", s, lit(`[a-z]{200,300}`)),                         // too many instructions
		bld.Call("regexp_replace", s, lit(`(((((((((((a)))))))))))`), lit("$11")), // group 11
	}
	mid := bld.Call("regexp_substr", s, lit(`(?i)[a-zé]{2,40}`))
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	for i, e := range notFusable {
		if _, err := fuse.Generate(testTypes, nil, []expr.Expr{e}); !errors.Is(err, fuse.ErrNotFusable) {
			t.Fatalf("case %d: Generate: %v, want ErrNotFusable", i, err)
		}
		if err := fuse.Check(testTypes, nil, []expr.Expr{e}); !errors.Is(err, fuse.ErrNotFusable) {
			t.Fatalf("case %d: Check: %v, want ErrNotFusable", i, err)
		}
		if _, err := fuse.Interpreter().Lower(testTypes, nil, []expr.Expr{e}); !errors.Is(err, fuse.ErrNotFusable) {
			t.Fatalf("case %d: Lower: %v, want ErrNotFusable", i, err)
		}
	}
	// Over the interpreter's limit but within the fused kernels'.
	if _, err := fuse.Interpreter().Lower(testTypes, nil, []expr.Expr{mid}); !errors.Is(err, fuse.ErrNotFusable) {
		t.Fatalf("interpreter took a %s: %v", mid, err)
	}
	checkKernel(t, fusetest.EdgeBatch(500, 51), nil, []expr.Expr{mid})
	// A pattern's matcher is generated into its kernel: two patterns have
	// two kernels, and a replacement (data of the program) shares one.
	k1, err1 := fuse.Generate(testTypes, nil, []expr.Expr{bld.Call("regexp_like", s, lit("a+b"))})
	k2, err2 := fuse.Generate(testTypes, nil, []expr.Expr{bld.Call("regexp_like", s, lit(`^\d{2}x`))})
	if err1 != nil || err2 != nil || k1.Key == k2.Key {
		t.Fatalf("two small patterns: %v %v, one kernel: %v", err1, err2, k1 != nil && k2 != nil && k1.Key == k2.Key)
	}
	k3, err3 := fuse.Generate(testTypes, nil, []expr.Expr{bld.Call("regexp_replace", s, lit("(a)+b"), lit("<$1>"))})
	k4, err4 := fuse.Generate(testTypes, nil, []expr.Expr{bld.Call("regexp_replace", s, lit("(a)+b"), lit("[$1]"))})
	if err3 != nil || err4 != nil || k3.Key != k4.Key {
		t.Fatalf("one pattern, two replacements: %v %v, keys differ: %v", err3, err4, k3 != nil && k4 != nil && k3.Key != k4.Key)
	}
}

// randomPattern builds a pattern from pieces of every kind: literals
// (multibyte ones too), classes, anchors, groups, alternation and
// repetition, so that the combinations differ from the table's.
func randomPattern(r *rand.Rand, depth int) string {
	atoms := []string{"a", "e", "o", "n", " ", "é", "日", "[a-m]", "[^aeiou ]", `\w`, `\W`, `\s`, ".", `\pL`, `[[:upper:]]`, `\x{FFFD}`, "(?i:s)", "[😀-😂]"}
	var b strings.Builder
	for k := r.Intn(3) + 1; k > 0; k-- {
		var atom string
		switch x := r.Intn(10); {
		case x < 6 || depth > 1:
			atom = atoms[r.Intn(len(atoms))]
		case x < 8:
			atom = "(" + randomPattern(r, depth+1) + ")"
		default:
			atom = "(?:" + randomPattern(r, depth+1) + "|" + randomPattern(r, depth+1) + ")"
		}
		b.WriteString(atom)
		switch r.Intn(9) {
		case 0:
			b.WriteString("*")
		case 1:
			b.WriteString("+")
		case 2:
			b.WriteString("?")
		case 3:
			fmt.Fprintf(&b, "{%d,%d}", r.Intn(2), 1+r.Intn(3))
		case 4:
			b.WriteString("*?")
		}
	}
	switch r.Intn(8) {
	case 0:
		return "^" + b.String()
	case 1:
		return b.String() + "$"
	case 2:
		return `\b` + b.String()
	}
	return b.String()
}

// TestRegexRandomPatterns: generated patterns through the interpreter and
// one fused kernel, against the CPU.
func TestRegexRandomPatterns(t *testing.T) {
	var bld fusetest.Builder
	s := fusetest.Col(fusetest.Name)
	r := rand.New(rand.NewSource(77))
	var lists [][]expr.Expr
	var all []expr.Expr
	for i := 0; i < 60; i++ {
		p := randomPattern(r, 0)
		if _, err := regexp.Compile(p); err != nil {
			continue
		}
		outs := []expr.Expr{
			bld.Call("regexp_instr", s, fusetest.Lit(p), fusetest.Lit(1), fusetest.Lit(1+i%3), fusetest.Lit(i%2)),
			bld.Call("regexp_replace", s, fusetest.Lit(p), fusetest.Lit("<$1>")),
		}
		if len(lists) == 0 || len(lists[len(lists)-1]) >= 8 {
			lists = append(lists, nil)
		}
		lists[len(lists)-1] = append(lists[len(lists)-1], outs...)
		if len(all) < 40 {
			all = append(all, outs...)
		}
	}
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	// The interpreter over names (REPLACE's results of edge rows can
	// outgrow its scratch, which sends a batch to the library path), the
	// fused kernel over the edge cases too.
	names, edges := fusetest.Batch(700, 79), fusetest.EdgeBatch(700, 78)
	for i, outs := range lists {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := fuse.Interpreter().Lower(testTypes, nil, outs); errors.Is(err, fuse.ErrNotFusable) {
				t.Skip(err)
			}
			checkInterp(t, names, nil, outs)
		})
	}
	checkKernel(t, edges, nil, all)
	checkKernel(t, names, nil, all)
}
