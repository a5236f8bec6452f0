package fuse

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
)

// Lowering: a bound filter and projection become a Program of the
// interpreter's register code (interp.go holds the operation table).

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
		return nil, fmt.Errorf("%w: %w: %d inputs, %d outputs (interpreter limits %d, %d)", ErrNotFusable, errInterpLimit, len(inputs), len(outputs), InterpMaxInputs, InterpMaxOutputs)
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
		return nil, fmt.Errorf("%w: %w: %d string outputs (interpreter limit %d)", ErrNotFusable, errInterpLimit, p.StringOutputs, InterpMaxStrings)
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
		return 0, fmt.Errorf("%w: %w: more than %d values live at once for the interpreter", ErrNotFusable, errInterpLimit, interpRegs)
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
	if c.Fn.Name == "cast_to_timestamp" && c.T.IsTimestamp() {
		if c.T.Fsp() >= 0 {
			return lw.roundFsp(c)
		}
		if len(c.Args) == 1 && c.Args[0].Type().IsTimestamp() {
			return lw.expr(c.Args[0]) // DATETIME(n) to TIMESTAMP only retypes
		}
	}
	// Functions see a DATETIME(n) as TIMESTAMP (as the binder checks
	// them), and the registers hold the same microseconds; only the text
	// of a DATETIME(n) has an operation of its own (its n digits).
	types := make([]coldata.Type, len(c.Args))
	nullArg := make([]bool, len(c.Args))
	for i, a := range c.Args {
		types[i] = a.Type().Plain()
		if c.Fn.Name == "cast_to_varchar" && a.Type().Fsp() >= 0 {
			types[i] = a.Type()
		}
	}
	if _, want, err := c.Fn.Check(types); err == nil && len(want) == len(types) {
		for i, a := range c.Args {
			if types[i] == coldata.Null {
				if l, ok := a.(*expr.Literal); ok && l.Value == nil && want[i] != coldata.Null {
					types[i] = want[i]
					nullArg[i] = true
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
		if nullArg[i] {
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

// roundFsp lowers a cast to DATETIME(n): the cast to TIMESTAMP, then the
// rounding to n digits (the generator's toTemporal does the same in one).
func (lw *lowering) roundFsp(c *expr.Call) (int32, error) {
	x := c.Args[0]
	if !x.Type().IsTimestamp() {
		x = &expr.Call{Fn: c.Fn, Args: []expr.Expr{x}, T: coldata.Timestamp}
	}
	a, err := lw.expr(x)
	if err != nil {
		return 0, err
	}
	fsp := c.T.Fsp()
	if fsp >= 6 {
		return a, nil // microseconds: nothing to round
	}
	op, ok := lw.it.ops[roundKey(fsp)]
	if !ok {
		return 0, fmt.Errorf("%w: CAST to %s has no interpreter operation", ErrNotFusable, c.T)
	}
	r, err := lw.reg()
	if err != nil {
		return 0, err
	}
	lw.emit(op.code, r, 0, a)
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
