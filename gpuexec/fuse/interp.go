package fuse

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
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
	for _, fn := range fns {
		for _, sig := range signatures(fn) {
			ret, _, _ := fn.Check(sig)
			args := make([]expr.Expr, len(sig))
			for i, t := range sig {
				args[i] = &regArg{k: i, t: t}
			}
			var body strings.Builder
			g.out, g.memo, g.finds = &body, map[string]*val{}, map[string]string{}
			v, err := g.call(&expr.Call{Fn: fn, Args: args, T: ret})
			if err != nil {
				continue // not on the GPU in either tier
			}
			store := storeResult(g, v, ret)
			if store == "" {
				continue
			}
			t := opText{code: code,
				body: fmt.Sprintf("// %s\nGSQL_IOP void gsql_op%d(IReg* R, const int32_t* I, Scratch& sc, int32_t& err, const IArgs& a) {\n%s%s}\n\n",
					sigKey(fn.Name, sig), code, body.String(), store),
				call: fmt.Sprintf("    case %d: gsql_op%d(R, I, sc, err, a); break;\n", code, code)}
			texts = append(texts, t)
			ops.WriteString(t.body)
			cases.WriteString(t.call)
			it.ops[sigKey(fn.Name, sig)] = opInfo{code: code, ret: ret}
			code++
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

// Program is a filter and projection lowered for the interpreter.
type Program struct {
	// Blob is the program as the kernels read it: header, instructions,
	// then constants (string bytes included; addresses are offsets from
	// the blob's start).
	Blob []byte
	// Inputs are the input column types, Used those read.
	Inputs []coldata.Type
	Used   []bool
	// Outputs are the output types; StringOutputs counts the strings.
	Outputs       []coldata.Type
	StringOutputs int
	Filter        bool
	// Instructions is the program's length.
	Instructions int
}

type lowering struct {
	it     *Interp
	inputs []coldata.Type
	used   []bool
	ins    [][insWords]int32
	consts []byte
	memo   map[string]int32
	nreg   int32
}

// Lower compiles a filter (may be nil) and outputs over inputs of the
// given types into a program; ErrNotFusable when some part has no
// interpreter operation.
func (it *Interp) Lower(inputs []coldata.Type, filter expr.Expr, outputs []expr.Expr) (*Program, error) {
	if len(inputs) > InterpMaxInputs || len(outputs) > InterpMaxOutputs {
		return nil, fmt.Errorf("%w: %d inputs, %d outputs (interpreter limits %d, %d)", ErrNotFusable, len(inputs), len(outputs), InterpMaxInputs, InterpMaxOutputs)
	}
	lw := &lowering{it: it, inputs: inputs, used: make([]bool, len(inputs)), memo: map[string]int32{}}
	p := &Program{Inputs: inputs, Filter: filter != nil}
	keep := int32(-1)
	if filter != nil {
		if filter.Type() != coldata.Bool {
			return nil, fmt.Errorf("%w: filter of type %s", ErrNotFusable, filter.Type())
		}
		r, err := lw.expr(filter)
		if err != nil {
			return nil, err
		}
		keep = r
	}
	outRegs := make([]int32, len(outputs))
	outTypes := make([]int32, len(outputs))
	for j, e := range outputs {
		t := e.Type()
		var r int32
		var err error
		if t == coldata.Null {
			// An untyped NULL column comes out as an all-NULL VARCHAR.
			t = coldata.String
			r, err = lw.null()
		} else {
			r, err = lw.expr(e)
		}
		if err != nil {
			return nil, err
		}
		code, ok := typeCode(t)
		if !ok {
			return nil, fmt.Errorf("%w: output of type %s", ErrNotFusable, t)
		}
		outRegs[j], outTypes[j] = r, code
		p.Outputs = append(p.Outputs, t)
		if t == coldata.String {
			p.StringOutputs++
		}
	}
	if p.StringOutputs > InterpMaxStrings {
		return nil, fmt.Errorf("%w: %d string outputs (interpreter limit %d)", ErrNotFusable, p.StringOutputs, InterpMaxStrings)
	}
	p.Used = lw.used
	p.Instructions = len(lw.ins)
	nreg, err := lw.allocate(&keep, outRegs)
	if err != nil {
		return nil, err
	}
	// Blob: header, instructions, constants.
	hdr := make([]int32, hdrWords)
	hdr[0], hdr[1], hdr[2], hdr[3] = int32(len(lw.ins)), nreg, keep, int32(len(outputs))
	copy(hdr[4:], outRegs)
	copy(hdr[4+InterpMaxOutputs:], outTypes)
	base := 4 * (hdrWords + insWords*len(lw.ins))
	base = (base + 15) &^ 15
	blob := make([]byte, 0, base+len(lw.consts))
	for _, w := range hdr {
		blob = binary.LittleEndian.AppendUint32(blob, uint32(w))
	}
	consts := append([]byte(nil), lw.consts...)
	for i := range lw.ins {
		in := &lw.ins[i]
		switch in[0] {
		case opConstStr:
			// The record's byte offset is from the constants area; make
			// it (and the record's own place) relative to the blob.
			at := int(in[2])
			binary.LittleEndian.PutUint64(consts[at:], binary.LittleEndian.Uint64(consts[at:])+uint64(base))
			in[2] += int32(base)
		case opConstInt, opConstFloat:
			in[2] += int32(base)
		}
		for _, w := range in {
			blob = binary.LittleEndian.AppendUint32(blob, uint32(w))
		}
	}
	for len(blob) < base {
		blob = append(blob, 0)
	}
	blob = append(blob, consts...)
	p.Blob = blob
	return p, nil
}

// reg is a new virtual register; allocate maps them to the interpreter's
// registers once the program is complete.
func (lw *lowering) reg() (int32, error) {
	if lw.nreg >= maxVirtualRegs {
		return 0, fmt.Errorf("%w: more than %d values per row for the interpreter", ErrNotFusable, maxVirtualRegs)
	}
	lw.nreg++
	return lw.nreg - 1, nil
}

// maxVirtualRegs bounds a program's values before register allocation.
const maxVirtualRegs = 1 << 14

// regOperands reports whether an instruction's arguments are registers
// (a column load's argument is a column number).
func regOperands(op int32) bool { return op >= opFirstFunc || op == opLikeEscape }

// allocate maps the program's virtual registers to at most interpRegs
// registers, reusing a register once the value in it has had its last
// read (a linear scan: values are written once, in program order). The
// filter's and the outputs' registers stay live to the end. An
// instruction's result never shares a register with its own arguments.
// It rewrites the instructions, *keep and outs, and returns the register
// count.
func (lw *lowering) allocate(keep *int32, outs []int32) (int32, error) {
	n := len(lw.ins)
	last := make([]int, lw.nreg)
	for i := range last {
		last[i] = -1
	}
	for i, in := range lw.ins {
		if regOperands(in[0]) {
			for k := int32(0); k < in[3]; k++ {
				last[in[4+k]] = i
			}
		}
	}
	pin := func(r int32) {
		if r >= 0 {
			last[r] = n
		}
	}
	pin(*keep)
	for _, r := range outs {
		pin(r)
	}
	phys := make([]int32, lw.nreg)
	var free []int32
	var used int32
	take := func() int32 {
		if k := len(free); k > 0 {
			r := free[k-1]
			free = free[:k-1]
			return r
		}
		used++
		return used - 1
	}
	for i := range lw.ins {
		in := &lw.ins[i]
		v := in[1]
		phys[v] = take()
		in[1] = phys[v]
		if regOperands(in[0]) {
			args := in[4 : 4+in[3]]
			for k, a := range args {
				// A value read twice by this instruction is freed once.
				if last[a] == i && !slices.Contains(args[:k], a) {
					free = append(free, phys[a])
				}
			}
			for k, a := range args {
				args[k] = phys[a]
			}
		}
		if last[v] < 0 {
			free = append(free, phys[v]) // never read
		}
	}
	if used > interpRegs {
		return 0, fmt.Errorf("%w: more than %d values live at once for the interpreter", ErrNotFusable, interpRegs)
	}
	if *keep >= 0 {
		*keep = phys[*keep]
	}
	for j, r := range outs {
		outs[j] = phys[r]
	}
	return used, nil
}

func (lw *lowering) emit(op, dst, imm int32, args ...int32) {
	var in [insWords]int32
	in[0], in[1], in[2], in[3] = op, dst, imm, int32(len(args))
	copy(in[4:], args)
	lw.ins = append(lw.ins, in)
}

func (lw *lowering) constant(data []byte) int32 {
	for len(lw.consts)%16 != 0 {
		lw.consts = append(lw.consts, 0)
	}
	at := int32(len(lw.consts))
	lw.consts = append(lw.consts, data...)
	return at
}

func (lw *lowering) null() (int32, error) {
	if r, ok := lw.memo["NULL"]; ok {
		return r, nil
	}
	r, err := lw.reg()
	if err != nil {
		return 0, err
	}
	lw.emit(opNull, r, 0)
	lw.memo["NULL"] = r
	return r, nil
}

func (lw *lowering) expr(e expr.Expr) (int32, error) {
	key := exprKey(e)
	if r, ok := lw.memo[key]; ok {
		return r, nil
	}
	var r int32
	var err error
	switch x := e.(type) {
	case *expr.ColumnRef:
		r, err = lw.column(x)
	case *expr.Literal:
		r, err = lw.literal(x)
	case *expr.Call:
		r, err = lw.call(x)
	default:
		err = fmt.Errorf("%w: %T", ErrNotFusable, e)
	}
	if err != nil {
		return 0, err
	}
	lw.memo[key] = r
	return r, nil
}

func (lw *lowering) column(c *expr.ColumnRef) (int32, error) {
	if c.Index < 0 || c.Index >= len(lw.inputs) {
		return 0, fmt.Errorf("fuse: column %d out of range", c.Index)
	}
	if c.T == coldata.Null {
		return lw.null()
	}
	code, ok := typeCode(c.T)
	if !ok || lw.inputs[c.Index] != c.T {
		return 0, fmt.Errorf("%w: column of type %s", ErrNotFusable, c.T)
	}
	r, err := lw.reg()
	if err != nil {
		return 0, err
	}
	lw.used[c.Index] = true
	lw.emit(opColumn, r, code, int32(c.Index))
	return r, nil
}

func (lw *lowering) literal(l *expr.Literal) (int32, error) {
	if l.Value == nil {
		return lw.null()
	}
	r, err := lw.reg()
	if err != nil {
		return 0, err
	}
	var rec [16]byte
	switch x := l.Value.(type) {
	case int64:
		binary.LittleEndian.PutUint64(rec[:], uint64(x))
		lw.emit(opConstInt, r, lw.constant(rec[:8]))
	case float64:
		binary.LittleEndian.PutUint64(rec[:], math.Float64bits(x))
		lw.emit(opConstFloat, r, lw.constant(rec[:8]))
	case bool:
		lw.emit(opConstBool, r, int32(b2i(x)))
	case string:
		bytesAt := lw.constant([]byte(x))
		binary.LittleEndian.PutUint64(rec[:], uint64(bytesAt))
		binary.LittleEndian.PutUint64(rec[8:], uint64(len(x)))
		lw.emit(opConstStr, r, lw.constant(rec[:]))
	case decimal.Int128:
		// A view of the value's 16 bytes, as a column register holds.
		var v [16]byte
		binary.LittleEndian.PutUint64(v[:], x.Lo)
		binary.LittleEndian.PutUint64(v[8:], uint64(x.Hi))
		bytesAt := lw.constant(v[:])
		binary.LittleEndian.PutUint64(rec[:], uint64(bytesAt))
		binary.LittleEndian.PutUint64(rec[8:], 16)
		lw.emit(opConstStr, r, lw.constant(rec[:]))
	default:
		return 0, fmt.Errorf("%w: literal %T", ErrNotFusable, l.Value)
	}
	return r, nil
}

func (lw *lowering) call(c *expr.Call) (int32, error) {
	// Argument types as the operation expects them: a NULL literal takes
	// the type the function wants at its place.
	types := make([]coldata.Type, len(c.Args))
	for i, a := range c.Args {
		types[i] = a.Type()
	}
	if _, want, err := c.Fn.Check(types); err == nil && len(want) == len(types) {
		for i, a := range c.Args {
			if types[i] == coldata.Null {
				if l, ok := a.(*expr.Literal); ok && l.Value == nil && want[i] != coldata.Null {
					types[i] = want[i]
				}
			}
		}
	}
	c, err := interpRegexCall(c)
	if err != nil {
		return 0, err
	}
	if c.Fn.Name == "like" && len(c.Args) == 3 {
		return lw.likeEscape(c)
	}
	keyTypes, imm := decimalImm(c, types)
	op, ok := lw.it.ops[physicalKey(c.Fn.Name, keyTypes)]
	if !ok {
		if nested, ok := nestCall(c); ok {
			return lw.expr(nested)
		}
		return 0, fmt.Errorf("%w: function %s%s has no interpreter operation", ErrNotFusable, strings.ToUpper(c.Fn.Name), sigKey("", types))
	}
	args := make([]int32, len(c.Args))
	for i, a := range c.Args {
		var r int32
		var err error
		if types[i] != a.Type() {
			r, err = lw.null()
		} else {
			r, err = lw.expr(a)
		}
		if err != nil {
			return 0, err
		}
		args[i] = r
	}
	r, err := lw.reg()
	if err != nil {
		return 0, err
	}
	lw.emit(op.code, r, imm, args...)
	return r, nil
}

// decimalImm maps a call's DECIMAL argument types to decGeneric (its
// operation's signature) and packs what the operation reads at run time
// into the instruction's immediate: the scales of arguments 0 and 1, the
// result's scale and precision, six bits each.
func decimalImm(c *expr.Call, types []coldata.Type) ([]coldata.Type, int32) {
	var imm int32
	var key []coldata.Type
	for i, t := range types {
		if !t.IsDecimal() {
			continue
		}
		if key == nil {
			key = append([]coldata.Type(nil), types...)
		}
		key[i] = decGeneric
		if i < 2 {
			imm |= int32(t.Scale()) << (6 * i)
		}
	}
	if c.T.IsDecimal() {
		imm |= int32(c.T.Scale())<<12 | int32(c.T.Precision())<<18
	}
	if key == nil {
		return types, imm
	}
	return key, imm
}

// likeEscape lowers LIKE with an escape character (a one-byte literal, as
// the generator requires).
func (lw *lowering) likeEscape(c *expr.Call) (int32, error) {
	l, ok := c.Args[2].(*expr.Literal)
	s, isStr := literalString(l)
	if !ok || !isStr || len(s) != 1 || c.Args[0].Type() != coldata.String || c.Args[1].Type() != coldata.String {
		return 0, fmt.Errorf("%w: LIKE escape must be a one-byte literal", ErrNotFusable)
	}
	a, err := lw.expr(c.Args[0])
	if err != nil {
		return 0, err
	}
	p, err := lw.expr(c.Args[1])
	if err != nil {
		return 0, err
	}
	r, err := lw.reg()
	if err != nil {
		return 0, err
	}
	lw.emit(opLikeEscape, r, int32(s[0]), a, p)
	return r, nil
}

// nestCall rewrites a variadic call wider than the interpreter's
// signatures into nested calls with the same result (each step's NULL rule
// composes: CONCAT, COALESCE, GREATEST and LEAST are associative; CASE
// chains into its ELSE; IN splits into an OR of INs).
// interpMaxIn is the longest IN list the interpreter takes: longer ones
// wait for the fused kernels, which search a sorted parameter array.
const interpMaxIn = 1024

func nestCall(c *expr.Call) (expr.Expr, bool) {
	n := len(c.Args)
	if n <= interpArity {
		return nil, false
	}
	sub := func(args []expr.Expr) *expr.Call {
		return &expr.Call{Fn: c.Fn, Args: args, T: c.T}
	}
	switch c.Fn.Name {
	case "concat", "coalesce", "greatest", "least":
		head := sub(append([]expr.Expr(nil), c.Args[:interpArity-1]...))
		return sub(append([]expr.Expr{head}, c.Args[interpArity-1:]...)), true
	case "case":
		// CASE c1 v1 c2 v2 ... [e] = CASE c1 v1 (CASE c2 v2 ... [e]).
		rest := c.Args[2:]
		var inner expr.Expr
		if len(rest) == 1 {
			inner = rest[0]
		} else {
			inner = sub(append([]expr.Expr(nil), rest...))
		}
		return sub([]expr.Expr{c.Args[0], c.Args[1], inner}), true
	case "in":
		or, ok := expr.Lookup("or")
		if !ok || n-1 > interpMaxIn {
			return nil, false
		}
		// Halves, so that the tree is log n deep: a chain made the
		// lowering's keys quadratic (TPC-H Q20 at SF10 has an IN list of
		// 21,000 keys, which stalled its first run for minutes).
		x := c.Args[0]
		mid := 1 + (n-1)/2
		a := sub(append([]expr.Expr{x}, c.Args[1:mid]...))
		b := sub(append([]expr.Expr{x}, c.Args[mid:]...))
		a.T, b.T = coldata.Bool, coldata.Bool
		return &expr.Call{Fn: or, Args: []expr.Expr{a, b}, T: coldata.Bool}, true
	}
	return nil, false
}
