package fuse

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// The tier-0 interpreter: one precompiled kernel set that evaluates any
// filter + projection the generator supports, so a query shape never seen
// before runs on the GPU without waiting for NVRTC (the generated, fused
// kernel set is compiled in the background and takes over when ready).
//
// The interpreter's operations are not written by hand: every registered
// function is asked, once per argument-type signature, for the code the
// generator would emit for it (gen.call over arguments read from
// registers), and that code becomes one operation. The interpreter and the
// fused kernels therefore share every line of per-function code and agree
// by construction; the differential tests check both against the CPU.
//
// A Program is a bound expression lowered to straight-line register code:
// each thread runs it once per row in the sizes pass and again in the fill
// pass (the same two-pass shape as the fused kernels, with string outputs
// as views into the inputs or into the thread's scratch).

// Interpreter limits: inputs and outputs are described by a per-batch table
// of device pointers; registers live in the thread's local memory.
const (
	InterpMaxInputs  = 64
	InterpMaxOutputs = 32
	// InterpMaxStrings bounds the string outputs (counters of the scan).
	InterpMaxStrings = 16
	interpRegs       = 64
	interpMaxArgs    = 12
	// interpArity is the widest signature generated for every type
	// combination; wider variadic calls use homogeneous signatures or are
	// rewritten into nested calls of at most this arity.
	interpArity = 4
	// InterpScratch is each thread's scratch: every generated string that
	// is not an output view lands there.
	InterpScratch = 2048
	insWords      = 16 // op, dst, imm, nargs, args[12]
	hdrWords      = 4 + 2*InterpMaxOutputs
)

// Fixed operations; function operations follow.
const (
	opColumn = iota
	opConstInt
	opConstFloat
	opConstBool
	opConstStr
	opNull
	opLikeEscape
	opFirstFunc = 16
)

// Type codes of columns and outputs in a program.
func typeCode(t coldata.Type) (int32, bool) {
	switch t.Physical() {
	case coldata.Int64:
		return 0, true
	case coldata.Float64:
		return 1, true
	case coldata.Bool:
		return 2, true
	case coldata.String:
		return 3, true
	case coldata.Decimal:
		// Moved, not computed: the interpreter has no DECIMAL operations
		// (those wait for the fused kernels), but it gathers and compacts
		// DECIMAL columns, the work of joins and filters beside them.
		return 4, true
	}
	return 0, false
}

var interpTypes = []coldata.Type{coldata.Int64, coldata.Float64, coldata.Bool, coldata.String, decGeneric}

// decGeneric stands for every DECIMAL type in the interpreter's operation
// signatures: one operation serves all precisions and scales, which the
// lowering packs into the instruction (decimalImm). DECIMAL(38,0) is the
// type the binder's comparison and CASE rules accept unchanged.
var decGeneric = coldata.DecimalOf(38, 0)

// temporalSigTypes are interpTypes and DATE/TIMESTAMP, the argument types
// enumerated for functions that read dates (not for the transparent ones).
var temporalSigTypes = append(append([]coldata.Type(nil), interpTypes...), coldata.Date, coldata.Timestamp)

// transparent functions move, compare or pick values without reading them
// as dates: their operation for BIGINT serves DATE and TIMESTAMP (the
// lowering looks them up by physical type), so the interpreter needs no
// copies of them.
var transparent = map[string]bool{
	"=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true, "<=>": true, "in": true,
	"case": true, "if": true, "ifnull": true, "coalesce": true, "nullif": true, "greatest": true, "least": true,
	"is_null": true, "is_not_null": true,
}

// physicalKey is the operation key of a call of fn over types.
func physicalKey(fn string, types []coldata.Type) string {
	if !transparent[fn] {
		return sigKey(fn, types)
	}
	phys := make([]coldata.Type, len(types))
	for i, t := range types {
		phys[i] = t.Physical()
		if t.IsDecimal() {
			phys[i] = decGeneric
		}
	}
	return sigKey(fn, phys)
}

// Interp is the interpreter module's source and its operation table.
type Interp struct {
	// Source is the CUDA C++ source of the kernel set (gsql_sizes,
	// gsql_scan, gsql_fill) as one translation unit.
	Source string
	// Parts is the same kernel set as separately compiled translation
	// units to link: the kernels first, then the operations in chunks.
	// Key is a hash of the parts.
	Parts []string
	Key   string
	// Ops is the number of function operations.
	Ops int
	ops map[string]opInfo
}

type opInfo struct {
	code int32
	ret  coldata.Type
}

var (
	interpOnce sync.Once
	interp     *Interp
)

// Interpreter returns the interpreter (generated once per process).
func Interpreter() *Interp {
	interpOnce.Do(func() { interp = buildInterp(interpPartCount()) })
	return interp
}

// InterpreterSplit builds the interpreter afresh with its operations in
// n parts (for measurements of the split).
func InterpreterSplit(n int) *Interp { return buildInterp(n) }

// regArg is an interpreter operation's argument k: a register named by the
// instruction.
type regArg struct {
	k int
	t coldata.Type
}

func (r *regArg) Type() coldata.Type { return r.t }
func (r *regArg) String() string     { return fmt.Sprintf("$arg%d", r.k) }

func regVal(k int, t coldata.Type) *val {
	reg := fmt.Sprintf("R[I[%d]]", 4+k)
	null := "(" + reg + ".null != 0)"
	switch t.Physical() {
	case coldata.Int64:
		return &val{kind: kInt, c: reg + ".i", null: null}
	case coldata.Float64:
		return &val{kind: kFloat, c: reg + ".f", null: null}
	case coldata.Bool:
		return &val{kind: kBool, c: "(" + reg + ".i != 0)", null: null}
	case coldata.Decimal:
		// A view of the 16-byte value (column, constants or scratch).
		return &val{kind: kDec, c: fmt.Sprintf("dec_reg(%s.p)", reg), null: null, t: t, sc: immArgScale(k)}
	}
	return &val{kind: kSV, c: fmt.Sprintf("sv_make(%s.p, %s.n)", reg, reg), null: null}
}

// roundKey is the operation key of the rounding of a TIMESTAMP to
// DATETIME(fsp) (a cast whose result has that precision).
func roundKey(fsp int) string {
	return sigKey("cast_to_timestamp", []coldata.Type{coldata.Timestamp}) + "->" + coldata.TimestampOf(fsp).String()
}

func sigKey(name string, types []coldata.Type) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	for i, t := range types {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Signatures lists the argument-type lists that fn accepts unchanged: the
// interpreter has an operation for each that the generator compiles.
func Signatures(fn *expr.Function) [][]coldata.Type { return signatures(fn) }

// signatures lists the argument-type lists that fn accepts as they are
// (the binder casts arguments to exactly these).
func signatures(fn *expr.Function) [][]coldata.Type {
	var out [][]coldata.Type
	types := temporalSigTypes
	if transparent[fn.Name] {
		types = interpTypes
	}
	maxA := fn.MaxArgs
	if maxA < 0 {
		maxA = interpMaxArgs
	}
	accept := func(ts []coldata.Type) {
		ret, want, err := fn.Check(ts)
		if err != nil || ret == coldata.Null || len(want) != len(ts) {
			return
		}
		for i := range ts {
			if want[i] != ts[i] {
				return
			}
		}
		out = append(out, append([]coldata.Type(nil), ts...))
	}
	for n := fn.MinArgs; n <= maxA && n <= interpMaxArgs; n++ {
		if n > interpArity && wideSignature(fn.Name, n) != nil {
			accept(wideSignature(fn.Name, n))
			continue
		}
		if n > interpArity {
			// Wide calls: homogeneous lists, and a BOOLEAN/value
			// alternation is left to the nested rewrite.
			for _, t := range types {
				ts := make([]coldata.Type, n)
				for i := range ts {
					ts[i] = t
				}
				accept(ts)
			}
			continue
		}
		ts := make([]coldata.Type, n)
		var rec func(i int)
		rec = func(i int) {
			if i == n {
				accept(ts)
				return
			}
			for _, t := range types {
				ts[i] = t
				rec(i + 1)
			}
		}
		rec(0)
	}
	return out
}

func buildInterp(parts int) *Interp {
	it := &Interp{ops: map[string]opInfo{}}
	// Registry functions in a fixed order, so the source (and its cache
	// key) is the same in every process.
	seen := map[*expr.Function]bool{}
	var fns []*expr.Function
	for _, name := range expr.Names() {
		fn, ok := expr.Lookup(name)
		if !ok || seen[fn] || fn.Volatile {
			continue
		}
		seen[fn] = true
		fns = append(fns, fn)
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Name < fns[j].Name })

	var ops strings.Builder
	var cases strings.Builder
	type opText struct {
		code       int32
		body, call string
	}
	var texts []opText
	g := &gen{memo: map[string]*val{}, lits: map[string]int{}, finds: map[string]string{}, interp: true}
	code := int32(opFirstFunc)
	// add makes the operation key: fn over sig, returning ret, as the
	// generator writes it (nothing when the generator has no such call).
	add := func(key string, fn *expr.Function, sig []coldata.Type, ret coldata.Type) {
		args := make([]expr.Expr, len(sig))
		for i, t := range sig {
			args[i] = &regArg{k: i, t: t}
		}
		var body strings.Builder
		g.out, g.memo, g.finds = &body, map[string]*val{}, map[string]string{}
		v, err := g.call(&expr.Call{Fn: fn, Args: args, T: ret})
		if err != nil {
			return // not on the GPU in either tier
		}
		store := storeResult(g, v, ret)
		if store == "" {
			return
		}
		t := opText{code: code,
			body: fmt.Sprintf("// %s\nGSQL_IOP void gsql_op%d(IReg* R, const int32_t* I, Scratch& sc, int32_t& err, const IArgs& a) {\n%s%s}\n\n",
				key, code, body.String(), store),
			call: fmt.Sprintf("    case %d: gsql_op%d(R, I, sc, err, a); break;\n", code, code)}
		texts = append(texts, t)
		ops.WriteString(t.body)
		cases.WriteString(t.call)
		it.ops[key] = opInfo{code: code, ret: ret}
		code++
	}
	for _, fn := range fns {
		for _, sig := range signatures(fn) {
			ret, _, _ := fn.Check(sig)
			add(sigKey(fn.Name, sig), fn, sig, ret)
		}
	}
	// DATETIME(n)'s precision matters to two conversions only (functions
	// see it as TIMESTAMP): the rounding of a cast to DATETIME(n), and
	// the n digits its text prints. One operation each per n.
	if fn, ok := expr.Lookup("cast_to_timestamp"); ok {
		for fsp := 0; fsp < 6; fsp++ {
			add(roundKey(fsp), fn, []coldata.Type{coldata.Timestamp}, coldata.TimestampOf(fsp))
		}
	}
	if fn, ok := expr.Lookup("cast_to_varchar"); ok {
		for fsp := 0; fsp <= 6; fsp++ {
			sig := []coldata.Type{coldata.TimestampOf(fsp)}
			add(sigKey(fn.Name, sig), fn, sig, coldata.String)
		}
	}
	it.Ops = int(code - opFirstFunc)
	it.Source = interpSource(ops.String(), cases.String())
	// Chunks of about equal source size, so that the parallel compiles
	// end at about the same time.
	per := (ops.Len() + parts - 1) / max(1, parts)
	var chunks []*interpChunk
	for _, t := range texts {
		if len(chunks) == 0 || chunks[len(chunks)-1].ops.Len() >= per {
			chunks = append(chunks, &interpChunk{first: t.code})
		}
		c := chunks[len(chunks)-1]
		c.ops.WriteString(t.body)
		c.cases.WriteString(t.call)
		c.end = t.code + 1
	}
	it.Parts = interpParts(chunks)
	h := sha256.New()
	for _, p := range it.Parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	it.Key = hex.EncodeToString(h.Sum(nil)[:16])
	return it
}

// interpPartCount is the number of operation parts the interpreter is
// split into (GSQL_INTERP_PARTS overrides it): enough to keep the cores
// of a GPU host busy, few enough that each part's fixed cost (the runtime
// header's front end) stays small.
func interpPartCount() int {
	if n, err := strconv.Atoi(os.Getenv("GSQL_INTERP_PARTS")); err == nil && n > 0 {
		return n
	}
	return 16
}

// storeResult is the C code that writes an operation's value to the
// destination register (strings made contiguous in scratch first).
func storeResult(g *gen, v *val, t coldata.Type) string {
	var b strings.Builder
	out := g.out
	g.out = &b
	defer func() { g.out = out }()
	switch v.kind {
	case kRope, kGen:
		v = g.asSV(v)
	}
	switch {
	case t == coldata.String && v.kind == kSV:
		fmt.Fprintf(&b, "  { SV r_ = %s; R[I[1]].p = r_.p; R[I[1]].n = r_.n; }\n", v.c)
	case t.Physical() == coldata.Int64 && (v.kind == kInt || v.kind == kBool):
		fmt.Fprintf(&b, "  R[I[1]].i = %s;\n", asInt(v))
	case t == coldata.Float64:
		fmt.Fprintf(&b, "  R[I[1]].f = %s;\n", asFloat(v))
	case t == coldata.Bool && v.kind == kBool:
		fmt.Fprintf(&b, "  R[I[1]].i = %s ? 1 : 0;\n", v.c)
	case t.IsDecimal() && v.kind == kDec:
		fmt.Fprintf(&b, "  R[I[1]].p = dec_scratch(sc, %s);\n", v.c)
	default:
		return ""
	}
	fmt.Fprintf(&b, "  R[I[1]].null = %s ? 1 : 0;\n", nullFlag(v))
	return b.String()
}
