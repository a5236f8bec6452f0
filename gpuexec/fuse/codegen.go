// Package fuse generates fused CUDA kernels from bound expression trees: a
// projection list and an optional filter become one two-pass kernel set —
// a sizes kernel (row sizes, filter flags and per-block sums), a scan of the
// block sums, and a fill kernel that writes every output straight into its
// final buffer. It is the libcudf strings post's hand-written "two-pass"
// kernel, produced from SQL.
//
// Strings inside a kernel are views (pointer and length) into input columns
// or literals; slicing functions (SUBSTRING, LEFT, SPLIT_PART, TRIM, ...)
// return views, CONCAT builds a rope of views, and CASE picks one, so the
// redact query copies each output byte exactly once. Functions that make new
// bytes (UPPER, REPLACE, LPAD, ...) are sized in the first pass and written
// in the second; when their result feeds another function it is written to
// per-thread scratch first.
//
// The package is pure Go and has no build tag: generated sources are also
// compiled with a host C++ compiler in the tests and checked against the CPU
// kernels, so the code generator is tested in CI without a GPU.
package fuse

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// MaxFields bounds a kernel's parameter slots (the launcher passes at most
// 512 eight-byte parameters).
const MaxFields = 500

// ErrNotFusable means an expression uses something the generator does not
// handle; the caller uses the function-at-a-time library path instead.
var ErrNotFusable = errors.New("expression cannot be fused")

// FieldKind says what a slot of the kernel's argument block holds.
type FieldKind uint8

const (
	// FieldRows is the number of input rows.
	FieldRows FieldKind = iota
	// FieldInValid, FieldInData, FieldInOffsets, FieldInChars are input
	// column Col's validity bitmap (0 when no NULLs), fixed-width data,
	// string offsets and string bytes.
	FieldInValid
	FieldInData
	FieldInOffsets
	FieldInChars
	// FieldLitStr / FieldLitLen are a string literal's bytes and length;
	// FieldLitInt / FieldLitFloat a numeric literal (Lit indexes Params).
	FieldLitStr
	FieldLitLen
	FieldLitInt
	FieldLitFloat
	// FieldUpperFrom ... FieldLowerLen are the case-mapping tables.
	FieldUpperFrom
	FieldUpperTo
	FieldUpperLen
	FieldLowerFrom
	FieldLowerTo
	FieldLowerLen
	// FieldOutValid, FieldOutData, FieldOutOffsets, FieldOutChars are output
	// column Col's buffers (the validity bitmap in 32-bit words, preset to
	// all-valid by the host).
	FieldOutValid
	FieldOutData
	FieldOutOffsets
	FieldOutChars
	// FieldBlockSums holds the per-block counters (rows kept, then bytes of
	// each string output); FieldTotals their sums; FieldErr the error word.
	FieldBlockSums
	FieldTotals
	FieldErr
	// FieldBlocks is the number of blocks of the sizes/fill grid.
	FieldBlocks
	// FieldGather is the int64 row index array of a gather kernel.
	FieldGather
	// FieldRowSizes is an int32 per input row (n of them) where the sizes
	// pass leaves output Col's byte count, for outputs whose size costs a
	// walk of the row (UPPER, REPLACE, ...): the fill pass reads it back
	// instead of walking the row again.
	FieldRowSizes
)

// Field is one 8-byte slot of the argument block, in order.
type Field struct {
	Kind FieldKind
	Col  int // input or output column
	Lit  int // literal slot
	Name string
}

// Kernel is a generated kernel set.
type Kernel struct {
	// Source is the complete CUDA C++ source.
	Source string
	// Key identifies the kernel's shape: expressions that differ only in
	// literal values share a key (and a compiled module), except for small
	// literal counts of SPLIT_PART, SUBSTRING_INDEX, LEFT and RIGHT, which
	// are written into the source (countArg).
	Key string
	// Fields lists the argument block's slots.
	Fields []Field
	// Params are the literal values, in slot order.
	Params []any
	// Inputs are the input column types; Used marks those read.
	Inputs []coldata.Type
	Used   []bool
	// Outputs are the output column types.
	Outputs []coldata.Type
	// StringOutputs counts string outputs (they need the sizes pass).
	StringOutputs int
	// Filter is true when rows are compacted by a predicate.
	Filter bool
	// NeedsCase is true when the case-mapping tables are read.
	NeedsCase bool
	// Gather kernels read input row gather[i] for output row i.
	Gather bool
	// WarpSource, when set, is the same kernel set with one row per warp
	// (for batches of long strings: the expression walks whole strings
	// with functions that have a warp-wide form, and with none that would
	// walk one serially); empty when that form would not help.
	WarpSource string
	// WarpMinAvg is the average string input length (bytes per row) from
	// which WarpSource ran faster than Source (BenchmarkWarpRows;
	// docs/benchlog/2026-11-23-long-strings.md).
	WarpMinAvg int
}

// Average input lengths from which a function's warp-wide form measured
// faster than one thread per row (BenchmarkWarpRows): single-byte
// REPLACE from 64-256 byte rows on; UPPER/LOWER and infix searches from
// 256-1024. CHAR_LENGTH, LOCATE, SPLIT_PART and SUBSTRING_INDEX measured
// faster one row per thread at every length and do not ask for it.
const (
	WarpMinReplace = 128
	WarpMinScan    = 512
)

// warpFrom records that a function wants the warp form from avg bytes.
func (g *gen) warpFrom(avg int) {
	if g.warpMin == 0 || avg < g.warpMin {
		g.warpMin = avg
	}
}

// TwoPass reports whether the kernel needs the sizes and scan passes.
func (k *Kernel) TwoPass() bool { return k.Filter || k.StringOutputs > 0 }

// Options select code-generation variants. The zero value is the default
// (fastest measured) code; the other settings exist to measure against.
type Options struct {
	// Scalar uses the byte-at-a-time string scans instead of the 16-byte
	// chunked ones.
	Scalar bool
	// NoFindCache searches again for every SPLIT_PART/SUBSTRING_INDEX call
	// instead of sharing a row's first/last delimiter position between
	// calls over the same string and delimiter.
	NoFindCache bool
	// Counters64 keeps the fill pass's per-row counters and tile scan in
	// 64-bit integers (32 bits suffice: outputs are limited to 2^31 bytes
	// and batches to 2^31 rows).
	Counters64 bool
	// MinBlocks asks the compiler to fit this many blocks of the sizes,
	// fill and map kernels on a multiprocessor (__launch_bounds__), capping
	// their registers; 0 leaves the register count to the compiler.
	MinBlocks int
	// RecomputeSizes has the fill pass compute every output size again
	// instead of reading the sizes pass's per-row sizes of generated
	// strings (FieldRowSizes).
	RecomputeSizes bool
	// AlwaysWarp generates the one-row-per-warp form whenever it is
	// correct, not only when a function measured faster that way (for the
	// tests and the measurements of that form).
	AlwaysWarp bool

	// checkOnly stops after the per-row code: no source text, no key.
	checkOnly bool
}

// Check reports whether Generate would succeed, without assembling the
// source (placement asks this for every operator of every query, and
// assembling the source is the expensive part).
func Check(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr) error {
	_, err := generate(inputs, filter, outputs, false, Options{checkOnly: true})
	return err
}

// Generate builds the kernels computing outputs over input columns of the
// given types, keeping only rows where filter (may be nil) is TRUE. The
// result is remembered (a query run again generates nothing): callers must
// not modify it.
func Generate(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr) (*Kernel, error) {
	key := shapeKey(inputs, filter, outputs)
	genMemo.Lock()
	k, ok := genMemo.m[key]
	genMemo.Unlock()
	if ok {
		return k, nil
	}
	k, err := generate(inputs, filter, outputs, false, Options{})
	if err != nil {
		return nil, err
	}
	genMemo.Lock()
	if len(genMemo.m) >= genMemoSize {
		genMemo.m = map[string]*Kernel{}
	}
	genMemo.m[key] = k
	genMemo.Unlock()
	return k, nil
}

const genMemoSize = 1024

// Generated returns Generate's remembered result for this request, if it
// was generated before in this process.
func Generated(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr) (*Kernel, bool) {
	key := shapeKey(inputs, filter, outputs)
	genMemo.Lock()
	defer genMemo.Unlock()
	k, ok := genMemo.m[key]
	return k, ok
}

var genMemo = struct {
	sync.Mutex
	m map[string]*Kernel
}{m: map[string]*Kernel{}}

// shapeKey identifies a Generate request exactly: every node with its type
// and every literal with its Go type and value.
func shapeKey(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr) string {
	var b strings.Builder
	for _, t := range inputs {
		b.WriteString(t.String())
		b.WriteByte(',')
	}
	b.WriteString("|")
	if filter != nil {
		writeExprKey(&b, filter)
	}
	for _, o := range outputs {
		b.WriteString("|")
		writeExprKey(&b, o)
	}
	return b.String()
}

// exprKey identifies an expression by its structure (expr.Key; the
// interpreter's register arguments by their position).
func exprKey(e expr.Expr) string {
	var b strings.Builder
	writeExprKey(&b, e)
	return b.String()
}

func writeExprKey(b *strings.Builder, e expr.Expr) {
	if r, ok := e.(*regArg); ok {
		fmt.Fprintf(b, "$arg%d:%s", r.k, r.t)
		return
	}
	if c, ok := e.(*expr.Call); ok {
		// Calls may hold register arguments: walk them here.
		b.WriteString(c.Fn.Name)
		b.WriteByte('(')
		for _, a := range c.Args {
			writeExprKey(b, a)
			b.WriteByte(',')
		}
		b.WriteString("):")
		b.WriteString(c.Type().String())
		return
	}
	b.WriteString(expr.Key(e))
}

// GenerateWith is Generate with code-generation options.
func GenerateWith(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr, opts Options) (*Kernel, error) {
	return generate(inputs, filter, outputs, false, opts)
}

// GenerateGather builds the gather kernel for columns of the given types:
// output row i is input row gather[i] of every column (the GPU side of
// ORDER BY: the permutation comes from the sort).
// The kernel is generated once per list of types and shared: a join's
// Open asks for its gathers on every run, and generating the source and
// its key took about half of the host time of a 5 ms GPU query (SSB Q1.1
// on the H200).
func GenerateGather(inputs []coldata.Type) (*Kernel, error) {
	var b strings.Builder
	for _, t := range inputs {
		b.WriteString(t.String())
		b.WriteByte(',')
	}
	key := b.String()
	if k, ok := gatherMemo.Load(key); ok {
		return k.(*Kernel), nil
	}
	k, err := generate(inputs, nil, GatherOutputs(inputs), true, Options{})
	if err != nil {
		return nil, err
	}
	actual, _ := gatherMemo.LoadOrStore(key, k)
	return actual.(*Kernel), nil
}

// gatherMemo holds the generated gathers by their types' list.
var gatherMemo sync.Map

// GatherGroups cuts the columns of a gather into consecutive ranges
// [lo,hi) that each fit one generated kernel's parameters and one
// interpreter program (at most InterpMaxOutputs columns, InterpMaxStrings
// of them text): a join's output of 100 columns gathers as four kernels
// rather than failing to generate. One range when the gather fits whole.
func GatherGroups(types []coldata.Type) [][2]int {
	var groups [][2]int
	lo, strs := 0, 0
	for i, t := range types {
		isStr := t == coldata.String
		if i-lo == InterpMaxOutputs || (isStr && strs == InterpMaxStrings) {
			groups = append(groups, [2]int{lo, i})
			lo, strs = i, 0
		}
		if isStr {
			strs++
		}
	}
	return append(groups, [2]int{lo, len(types)})
}

// GatherOutputs are the outputs of a gather over inputs: every column as
// it is (the interpreter's program for the same gather).
func GatherOutputs(inputs []coldata.Type) []expr.Expr {
	outs := make([]expr.Expr, len(inputs))
	for i, t := range inputs {
		outs[i] = &expr.ColumnRef{Index: i, Name: fmt.Sprintf("c%d", i), T: t}
	}
	return outs
}

func generate(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr, gather bool, opts Options) (*Kernel, error) {
	g := &gen{
		inputs: inputs,
		used:   make([]bool, len(inputs)),
		memo:   map[string]*val{},
		lits:   map[string]int{},
		finds:  map[string]string{},
		opts:   opts,
	}
	k := &Kernel{Inputs: inputs, Filter: filter != nil, Gather: gather}
	var body strings.Builder
	g.out = &body
	var keep *val
	if filter != nil {
		v, err := g.expr(filter)
		if err != nil {
			return nil, err
		}
		if v.kind != kBool {
			return nil, fmt.Errorf("%w: filter of type %s", ErrNotFusable, filter.Type())
		}
		keep = v
	}
	outs := make([]*val, len(outputs))
	for i, e := range outputs {
		v, err := g.expr(e)
		if err != nil {
			return nil, err
		}
		t := e.Type()
		if t == coldata.Null {
			// An untyped NULL column comes out as an all-NULL VARCHAR, as
			// the CPU path returns it.
			t, v = coldata.String, &val{kind: kSV, c: zeroOf(kSV), null: "true"}
		}
		outs[i] = v
		k.Outputs = append(k.Outputs, t)
		if t == coldata.String {
			k.StringOutputs++
		}
	}
	if len(outputs) > 0 && len(g.fields(k)) > MaxFields {
		return nil, fmt.Errorf("%w: %d kernel parameters (more than %d)", ErrNotFusable, len(g.fields(k)), MaxFields)
	}
	if opts.checkOnly {
		return k, nil
	}
	k.Used = g.used
	k.Params = g.params
	k.NeedsCase = g.needsCase
	if !opts.RecomputeSizes {
		for j, v := range outs {
			if k.Outputs[j] == coldata.String && v.kind == kGen {
				g.stored = append(g.stored, j)
			}
		}
	}
	k.Fields = g.fields(k)
	k.Source = g.source(k, body.String(), keep, outs, false)
	readsStrings := false
	for i, t := range inputs {
		readsStrings = readsStrings || (g.used[i] && t == coldata.String)
	}
	if (g.warpMin > 0 || opts.AlwaysWarp) && readsStrings && !g.warpAvoid && !opts.Scalar && !gather {
		k.WarpSource = g.source(k, body.String(), keep, outs, true)
		k.WarpMinAvg = max(g.warpMin, 1)
	}
	sum := sha256.Sum256([]byte(k.Source))
	k.Key = hex.EncodeToString(sum[:16])
	return k, nil
}

// kind is the representation of a value in generated code.
type kind uint8

const (
	kInt   kind = iota // int64_t
	kFloat             // double
	kBool              // bool
	kSV                // SV view
	kRope              // Rope<n>
	kGen               // new bytes: size expression and write statement
	kDec               // dec_t: a DECIMAL of type val.t
)

// val is a generated value: C expressions for the value and its NULL flag.
type val struct {
	kind kind
	c    string // C expression (a variable name) of the value
	null string // C expression of the NULL flag ("false" if never NULL)
	n    int    // rope capacity
	// For kGen: the size expression and a writer of dst.
	size  string
	write func(dst string) string
	// lit is the literal this value came from, if any, and slot its
	// parameter slot (-1 for NULL literals, which have none).
	lit  *expr.Literal
	slot int
	// flat caches the contiguous copy of a rope or generated string.
	flat *val
	// t is a kDec value's DECIMAL type (its scale and precision), sc the
	// C expression of its scale.
	t  coldata.Type
	sc string
}

type gen struct {
	inputs    []coldata.Type
	used      []bool
	out       *strings.Builder
	memo      map[string]*val
	nvar      int
	params    []any
	litKinds  []kind
	needsCase bool
	// warpMin is the least average input length at which a function of
	// the expression runs faster with one row per warp (0: none does);
	// warpAvoid is set by functions that walk strings one byte at a time
	// in any form (a warp per row would only slow them down).
	warpMin   int
	warpAvoid bool
	// stored lists the string outputs whose row sizes the sizes pass
	// stores for the fill pass.
	stored []int
	// scratch is set when some value must be made contiguous per row.
	scratch bool
	// lits maps a literal's type and value to its parameter slot: equal
	// literals share one slot, so their C expressions are equal too.
	lits map[string]int
	// finds maps "string|delimiter" C expressions to the row's FindCache.
	finds map[string]string
	opts  Options
	// decls are declarations the kernels use (generated regex matchers),
	// written after the runtime; matchers names them by program.
	decls    strings.Builder
	matchers map[string]string
	// interp is set while the interpreter's operations are generated:
	// DECIMAL scales are then read from the instruction (decimalImm).
	interp bool
}

func (g *gen) tmp() string {
	g.nvar++
	return fmt.Sprintf("t%d", g.nvar)
}

func (g *gen) emit(format string, args ...any) {
	fmt.Fprintf(g.out, "  "+format+"\n", args...)
}

// ctype is the C type of a value kind.
func ctype(k kind, n int) string {
	switch k {
	case kInt:
		return "int64_t"
	case kFloat:
		return "double"
	case kBool:
		return "bool"
	case kSV:
		return "SV"
	case kRope:
		return fmt.Sprintf("Rope<%d>", n)
	case kDec:
		return "dec_t"
	}
	return "void"
}

func kindOf(t coldata.Type) kind {
	switch t {
	case coldata.Int64:
		return kInt
	case coldata.Float64:
		return kFloat
	case coldata.Bool:
		return kBool
	case coldata.String:
		return kSV
	}
	if t.IsDecimal() {
		return kDec
	}
	return kInt
}

// expr generates code for e (once per distinct sub-expression).
func (g *gen) expr(e expr.Expr) (*val, error) {
	key := exprKey(e)
	if _, isLit := e.(*expr.Literal); !isLit {
		if v, ok := g.memo[key]; ok {
			return v, nil
		}
	}
	v, err := g.gen(e)
	if err != nil {
		return nil, err
	}
	if _, isLit := e.(*expr.Literal); !isLit {
		g.memo[key] = v
	}
	return v, nil
}

func (g *gen) gen(e expr.Expr) (*val, error) {
	switch x := e.(type) {
	case *expr.ColumnRef:
		return g.column(x)
	case *expr.Literal:
		return g.literal(x)
	case *expr.Call:
		return g.call(x)
	case *regArg:
		return regVal(x.k, x.t), nil
	}
	return nil, fmt.Errorf("%w: %T", ErrNotFusable, e)
}

func (g *gen) column(c *expr.ColumnRef) (*val, error) {
	if c.Index < 0 || c.Index >= len(g.inputs) {
		return nil, fmt.Errorf("fuse: column %d out of range", c.Index)
	}
	if c.T == coldata.Null {
		// A column of NULL type holds only NULLs (and has no buffers).
		return g.literal(&expr.Literal{T: coldata.Null})
	}
	g.used[c.Index] = true
	i := c.Index
	v := &val{kind: kindOf(c.T), c: g.tmp(), null: g.tmp()}
	g.emit("bool %s = in_null(a.in%d_valid, GSQL_ROW(i));", v.null, i)
	switch c.T.Physical() {
	case coldata.Int64:
		g.emit("int64_t %s = ((const int64_t*)a.in%d_data)[GSQL_ROW(i)];", v.c, i)
	case coldata.Float64:
		g.emit("double %s = ((const double*)a.in%d_data)[GSQL_ROW(i)];", v.c, i)
	case coldata.Bool:
		g.emit("bool %s = ((const uint8_t*)a.in%d_data)[GSQL_ROW(i)] != 0;", v.c, i)
	case coldata.String:
		g.emit("SV %s = in_str(a.in%d_off, a.in%d_chars, GSQL_ROW(i));", v.c, i, i)
	case coldata.Decimal:
		v.t, v.sc = c.T, strconv.Itoa(c.T.Scale())
		g.emit("dec_t %s = dec_load(a.in%d_data, GSQL_ROW(i));", v.c, i)
	default:
		return nil, fmt.Errorf("%w: column of type %s", ErrNotFusable, c.T)
	}
	return v, nil
}

// literal makes a parameter slot so that kernels differing only in literal
// values share their code.
func (g *gen) literal(l *expr.Literal) (*val, error) {
	if l.Value == nil {
		k := kindOf(l.T)
		v := &val{kind: k, null: "true", lit: l, slot: -1}
		switch k {
		case kInt:
			v.c = "(int64_t)0"
		case kFloat:
			v.c = "0.0"
		case kBool:
			v.c = "false"
		case kSV:
			v.c = "sv_make(\"\", 0)"
		case kDec:
			v.c, v.t, v.sc = "(dec_t)0", l.T, strconv.Itoa(l.T.Scale())
		}
		return v, nil
	}
	key := fmt.Sprintf("%T|%v|%s", l.Value, l.Value, l.T)
	if f, ok := l.Value.(float64); ok {
		key = fmt.Sprintf("float|%x|%s", math.Float64bits(f), l.T)
	}
	if slot, ok := g.lits[key]; ok {
		return g.slotVal(l, slot), nil
	}
	slot := len(g.params)
	g.lits[key] = slot
	g.params = append(g.params, l.Value)
	switch x := l.Value.(type) {
	case int64:
		g.litKinds = append(g.litKinds, kInt)
		return &val{kind: kInt, c: fmt.Sprintf("a.lit%d", slot), null: "false", lit: l, slot: slot}, nil
	case float64:
		g.litKinds = append(g.litKinds, kFloat)
		return &val{kind: kFloat, c: fmt.Sprintf("a.lit%d", slot), null: "false", lit: l, slot: slot}, nil
	case bool:
		g.litKinds = append(g.litKinds, kInt)
		g.params[slot] = b2i(x)
		return &val{kind: kBool, c: fmt.Sprintf("(a.lit%d != 0)", slot), null: "false", lit: l, slot: slot}, nil
	case string:
		g.litKinds = append(g.litKinds, kSV)
		return &val{kind: kSV, c: fmt.Sprintf("sv_make(a.lit%d, (int32_t)a.lit%d_n)", slot, slot), null: "false", lit: l, slot: slot}, nil
	case decimal.Int128:
		if !l.T.IsDecimal() {
			break
		}
		// Two integer slots: the low and the high word.
		g.params[slot] = int64(x.Lo)
		g.params = append(g.params, x.Hi)
		g.litKinds = append(g.litKinds, kInt, kInt)
		return g.slotVal(l, slot), nil
	}
	return nil, fmt.Errorf("%w: literal %T", ErrNotFusable, l.Value)
}

// slotVal is the value of literal l held in parameter slot (already made).
func (g *gen) slotVal(l *expr.Literal, slot int) *val {
	v := &val{c: fmt.Sprintf("a.lit%d", slot), null: "false", lit: l, slot: slot}
	switch g.litKinds[slot] {
	case kInt:
		v.kind = kInt
		if _, ok := l.Value.(bool); ok {
			v.kind, v.c = kBool, fmt.Sprintf("(a.lit%d != 0)", slot)
		}
	case kFloat:
		v.kind = kFloat
	case kSV:
		v.kind, v.c = kSV, fmt.Sprintf("sv_make(a.lit%d, (int32_t)a.lit%d_n)", slot, slot)
	}
	if _, ok := l.Value.(decimal.Int128); ok {
		v.kind, v.t, v.sc = kDec, l.T, strconv.Itoa(l.T.Scale())
		v.c = fmt.Sprintf("dec_make((uint64_t)a.lit%d, (uint64_t)a.lit%d)", slot, slot+1)
	}
	return v
}

// newLiteralSlot adds a string parameter that is not shared (LIKE's needle,
// derived from the pattern).
func (g *gen) newStringSlot(s string) string {
	slot := len(g.params)
	g.params = append(g.params, s)
	g.litKinds = append(g.litKinds, kSV)
	return fmt.Sprintf("sv_make(a.lit%d, (int32_t)a.lit%d_n)", slot, slot)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// declare assigns a C expression to a fresh variable.
func (g *gen) declare(k kind, n int, c string) string {
	name := g.tmp()
	g.emit("%s %s = %s;", ctype(k, n), name, c)
	return name
}

// nullOf combines argument NULL flags (NULL if any is NULL).
func (g *gen) nullOf(args []*val) string {
	var parts []string
	for _, a := range args {
		if a.null != "false" {
			parts = append(parts, a.null)
		}
	}
	if len(parts) == 0 {
		return "false"
	}
	name := g.tmp()
	g.emit("bool %s = %s;", name, strings.Join(parts, " || "))
	return name
}

// asSV makes a string value contiguous: ropes and generated strings are
// written to scratch.
func (g *gen) asSV(v *val) *val {
	if v.flat != nil {
		return v.flat
	}
	switch v.kind {
	case kSV:
		return v
	case kRope:
		g.scratch = true
		v.flat = &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("flatten(%s, sc)", v.c)), null: v.null}
	case kGen:
		g.scratch = true
		buf := g.tmp()
		g.emit("int32_t %s_n = %s;", buf, v.size)
		g.emit("char* %s = scratch_take(sc, %s_n);", buf, buf)
		// Nothing to write for an empty (or NULL) value: writers assume
		// the arguments that gave a non-zero size (LPAD's pad, say).
		g.emit("if (%s && %s_n > 0) { %s }", buf, buf, v.write(buf))
		v.flat = &val{kind: kSV, c: g.declare(kSV, 0, fmt.Sprintf("%s ? sv_make(%s, %s_n) : sv_make(\"\", 0)", buf, buf, buf)), null: v.null}
	default:
		return v
	}
	return v.flat
}

// asRope widens a string value to a rope of capacity n.
func (g *gen) asRope(v *val, n int) string {
	switch v.kind {
	case kRope:
		if v.n == n {
			return v.c
		}
		return fmt.Sprintf("rope_widen<%d, %d>(%s)", n, v.n, v.c)
	default:
		return fmt.Sprintf("rope_of<%d>(%s)", n, g.asSV(v).c)
	}
}

// ropeCap is the number of pieces a value occupies in a rope.
func ropeCap(v *val) int {
	if v.kind == kRope {
		return v.n
	}
	return 1
}

// numeric converts a numeric/bool value to double or int64 code.
func asFloat(v *val) string {
	switch v.kind {
	case kFloat:
		return v.c
	case kBool:
		return fmt.Sprintf("(%s ? 1.0 : 0.0)", v.c)
	}
	return fmt.Sprintf("(double)%s", v.c)
}

func asInt(v *val) string {
	if v.kind == kBool {
		return fmt.Sprintf("(%s ? (int64_t)1 : (int64_t)0)", v.c)
	}
	return v.c
}

func (g *gen) notFusable(name string) error {
	return fmt.Errorf("%w: function %s", ErrNotFusable, name)
}
