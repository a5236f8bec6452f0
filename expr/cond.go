package expr

import (
	"bytes"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// Conditionals: CASE, IF, IFNULL, COALESCE, NULLIF, GREATEST, LEAST — the
// copy_if_else kernels. Every argument is evaluated as a whole vector first;
// the kernel then decides, column at a time, which argument each row takes
// (a pick vector, narrowed through a selection of still-undecided rows) and
// gathers the rows in one pass, strings in two (sizes from the chosen
// argument, then a copy into the pre-sized buffer). When every row picks the
// same argument that vector is returned as it is.
//
//   - case(c1, v1, c2, v2, ..., [else]): an odd argument count means the
//     last is ELSE. Conditions convert to BOOLEAN; a NULL or FALSE condition
//     falls through; no ELSE gives NULL. The result type is Unify(values).
//   - if(c, a, b) is case(c, a, b); ifnull(a, b) and coalesce(a, ...) give
//     the first non-NULL argument (type Unify(args)).
//   - nullif(a, b) has a's type and is NULL where a = b (compared as = does).
//   - greatest/least compare as comparisons do (compareType) and are NULL
//     when any argument is NULL (MySQL).

func init() {
	Register(&Function{Name: "case", MinArgs: 2, MaxArgs: -1, Check: caseCheck, Eval: evalCase})
	Register(&Function{Name: "if", MinArgs: 3, MaxArgs: 3,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			t := Unify(args[1:]...)
			return t, []coldata.Type{coldata.Bool, t, t}, nil
		},
		Eval: evalCase})
	unified := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := Unify(args...)
		return t, sameTypes(t, len(args)), nil
	}
	Register(&Function{Name: "coalesce", MinArgs: 1, MaxArgs: -1, Check: unified, Eval: evalCoalesce})
	Register(&Function{Name: "ifnull", MinArgs: 2, MaxArgs: 2, Check: unified, Eval: evalCoalesce})
	Register(&Function{Name: "nullif", MinArgs: 2, MaxArgs: 2,
		Check: func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
			return args[0], []coldata.Type{args[0], args[1]}, nil
		},
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalNullIf(args[0], args[1], n) }})
	extreme := func(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
		t := compareType(args)
		return t, sameTypes(t, len(args)), nil
	}
	Register(&Function{Name: "greatest", MinArgs: 2, MaxArgs: -1, Check: extreme,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalExtreme(args, n, true) }})
	Register(&Function{Name: "least", MinArgs: 2, MaxArgs: -1, Check: extreme,
		Eval: func(args []*coldata.Vec, n int) (*coldata.Vec, error) { return evalExtreme(args, n, false) }})
}

func caseCheck(args []coldata.Type) (coldata.Type, []coldata.Type, error) {
	if len(args) < 2 {
		return 0, nil, fmt.Errorf("CASE needs at least one WHEN")
	}
	var vals []coldata.Type
	for i := 1; i < len(args); i += 2 {
		vals = append(vals, args[i])
	}
	if len(args)%2 == 1 {
		vals = append(vals, args[len(args)-1])
	}
	t := Unify(vals...)
	want := make([]coldata.Type, len(args))
	for i := range args {
		if i%2 == 0 && i+1 < len(args) {
			want[i] = coldata.Bool
		} else {
			want[i] = t
		}
	}
	return t, want, nil
}

// resultType is the type of a value list: the Unify of its members.
func resultType(vals []*coldata.Vec) coldata.Type {
	types := make([]coldata.Type, len(vals))
	for i, v := range vals {
		types[i] = v.Type
	}
	return Unify(types...)
}

// evalCase evaluates case(c1, v1, ..., [else]) and if(c, a, b).
func evalCase(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	var conds, srcs []*coldata.Vec
	for i := 0; i+1 < len(args); i += 2 {
		conds = append(conds, args[i])
		srcs = append(srcs, args[i+1])
	}
	elseIdx := int32(-1)
	if len(args)%2 == 1 {
		elseIdx = int32(len(srcs))
		srcs = append(srcs, args[len(args)-1])
	}
	t := resultType(srcs)
	pick := make([]int32, n)
	for i := range pick {
		pick[i] = elseIdx
	}
	var sel []int32 // undecided rows once the first column condition ran
	all := true     // every row is still undecided
	for k, c := range conds {
		c, err := toBoolVec(c, n)
		if err != nil {
			return nil, err
		}
		if isConstNull(c) || (c.Const && c.Bools[0] == 0) {
			continue
		}
		kk := int32(k)
		if c.Const { // TRUE: every undecided row takes v_k
			if all {
				return pickAll(srcs, kk, t, n)
			}
			for _, i := range sel {
				pick[i] = kk
			}
			sel = sel[:0]
			break
		}
		vals, nulls := c.Bools, c.Nulls
		if all {
			all = false
			sel = make([]int32, 0, n)
			for i, b := range vals[:n] {
				if b != 0 && validAt(nulls, i) {
					pick[i] = kk
				} else {
					sel = append(sel, int32(i))
				}
			}
		} else {
			keep := sel[:0]
			for _, i := range sel {
				if vals[i] != 0 && validAt(nulls, int(i)) {
					pick[i] = kk
				} else {
					keep = append(keep, i)
				}
			}
			sel = keep
		}
		if len(sel) == 0 {
			break
		}
	}
	if all {
		return pickAll(srcs, elseIdx, t, n)
	}
	return gatherPick(t, srcs, pick, n)
}

// pickAll returns source k (or NULL for k < 0) for every row.
func pickAll(srcs []*coldata.Vec, k int32, t coldata.Type, n int) (*coldata.Vec, error) {
	if k < 0 || isConstNull(srcs[k]) {
		return coldata.NewConst(t, nil, n), nil
	}
	return castVec(srcs[k], t, n)
}

// evalCoalesce gives each row its first non-NULL argument.
func evalCoalesce(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	t := resultType(args)
	pick := make([]int32, n)
	var sel []int32
	all := true
	for k, a := range args {
		if isConstNull(a) {
			continue
		}
		kk := int32(k)
		if a.Nulls == nil || a.Const { // never NULL
			if all {
				return pickAll(args, kk, t, n)
			}
			for _, i := range sel {
				pick[i] = kk
			}
			sel = sel[:0]
			break
		}
		if all {
			all = false
			sel = make([]int32, 0, n)
			for i := range pick {
				if validAt(a.Nulls, i) {
					pick[i] = kk
				} else {
					pick[i] = -1
					sel = append(sel, int32(i))
				}
			}
		} else {
			keep := sel[:0]
			for _, i := range sel {
				if validAt(a.Nulls, int(i)) {
					pick[i] = kk
				} else {
					keep = append(keep, i)
				}
			}
			sel = keep
		}
		if len(sel) == 0 {
			break
		}
	}
	if all {
		return coldata.NewConst(t, nil, n), nil
	}
	return gatherPick(t, args, pick, n)
}

// evalNullIf is NULLIF(a, b): a, NULL where a = b.
func evalNullIf(a, b *coldata.Vec, n int) (*coldata.Vec, error) {
	if isConstNull(a) || isConstNull(b) {
		return a, nil
	}
	ct := compareType([]coldata.Type{a.Type, b.Type})
	ca, err := castVec(a, ct, n)
	if err != nil {
		return nil, err
	}
	cb, err := castVec(b, ct, n)
	if err != nil {
		return nil, err
	}
	eq, err := compareVecs(cmpEQ, ca, cb, n)
	if err != nil {
		return nil, err
	}
	if eq.Const {
		if eq.Nulls == nil && eq.Bools[0] != 0 {
			return coldata.NewConst(a.Type, nil, n), nil
		}
		return a, nil
	}
	drop := make([]byte, n)
	any := false
	for i, e := range eq.Bools[:n] {
		if e != 0 && validAt(eq.Nulls, i) {
			drop[i] = 1
			any = true
		}
	}
	if !any {
		return a, nil
	}
	if a.Const {
		pick := make([]int32, n)
		for i, d := range drop {
			pick[i] = -int32(d)
		}
		return gatherPick(a.Type, []*coldata.Vec{a}, pick, n)
	}
	out := *a // shares a's (immutable) data; only the validity changes
	var nulls []byte
	if a.Nulls != nil {
		nulls = append([]byte(nil), a.Nulls[:coldata.BitmapLen(n)]...)
	}
	out.Nulls = clearBits(nulls, drop, n)
	return &out, nil
}

// evalExtreme is GREATEST (greater) or LEAST: NULL if any argument is NULL.
func evalExtreme(args []*coldata.Vec, n int, greater bool) (*coldata.Vec, error) {
	types := make([]coldata.Type, len(args))
	for i, a := range args {
		types[i] = a.Type
	}
	t := compareType(types)
	conv := make([]*coldata.Vec, len(args))
	for i, a := range args {
		if isConstNull(a) {
			return coldata.NewConst(t, nil, n), nil
		}
		c, err := castVec(a, t, n)
		if err != nil {
			return nil, err
		}
		conv[i] = c
	}
	if AllConst(conv) {
		out, err := evalExtreme(oneAll(conv), 1, greater)
		if err != nil {
			return nil, err
		}
		return constOf(out, n), nil
	}
	valid := CombineNulls(conv, n)
	switch t {
	case coldata.Int64:
		out := coldata.NewVec(coldata.Int64, n)
		extremeInto(out.Ints, conv, func(v *coldata.Vec) []int64 { return v.Ints }, greater)
		out.Nulls = valid
		return out, nil
	case coldata.Float64:
		out := coldata.NewVec(coldata.Float64, n)
		extremeInto(out.Floats, conv, func(v *coldata.Vec) []float64 { return v.Floats }, greater)
		out.Nulls = valid
		return out, nil
	}
	// Strings: pick the winning argument per row, then gather.
	pick := make([]int32, n)
	want := 1
	if !greater {
		want = -1
	}
	for k := 1; k < len(conv); k++ {
		v, m := conv[k], rowMask(conv[k])
		for i := range pick {
			best := conv[pick[i]]
			if bytes.Compare(v.Str(i&m), best.Str(i&rowMask(best))) == want {
				pick[i] = int32(k)
			}
		}
	}
	for i := range pick {
		if !validAt(valid, i) {
			pick[i] = -1
		}
	}
	return gatherPick(t, conv, pick, n)
}

// extremeInto folds every argument into r with max (greater) or min.
func extremeInto[T int64 | float64](r []T, args []*coldata.Vec, data func(*coldata.Vec) []T, greater bool) {
	first, m := data(args[0]), rowMask(args[0])
	for i := range r {
		r[i] = first[i&m]
	}
	for _, a := range args[1:] {
		x := data(a)
		if a.Const {
			q := x[0]
			if greater {
				for i, p := range r {
					if q > p {
						r[i] = q
					}
				}
			} else {
				for i, p := range r {
					if q < p {
						r[i] = q
					}
				}
			}
			continue
		}
		x = x[:len(r)]
		if greater {
			for i, p := range r {
				if x[i] > p {
					r[i] = x[i]
				}
			}
		} else {
			for i, p := range r {
				if x[i] < p {
					r[i] = x[i]
				}
			}
		}
	}
}

// gatherPick builds a vector of type t whose row i is row i of
// srcs[pick[i]], NULL where pick[i] < 0 or the chosen row is NULL.
func gatherPick(t coldata.Type, srcs []*coldata.Vec, pick []int32, n int) (*coldata.Vec, error) {
	if t == coldata.Null {
		return coldata.NewConst(coldata.Null, nil, n), nil
	}
	k := len(srcs)
	masks := make([]int, k)
	nulls := make([][]byte, k)
	live := make([]bool, k)
	conv := make([]*coldata.Vec, k)
	for j, s := range srcs {
		if s == nil || isConstNull(s) {
			continue
		}
		if s.Type != t {
			var err error
			if s, err = castVec(s, t, n); err != nil {
				return nil, err
			}
		}
		conv[j], live[j], masks[j], nulls[j] = s, true, rowMask(s), s.Nulls
	}
	valid := make([]byte, n)
	for i, p := range pick[:n] {
		if p >= 0 && live[p] && validAt(nulls[p], i&masks[p]) {
			valid[i] = 1
		}
	}
	var out *coldata.Vec
	switch t {
	case coldata.Int64:
		out = coldata.NewVec(t, n)
		data := make([][]int64, k)
		for j, s := range conv {
			if s != nil {
				data[j] = s.Ints
			}
		}
		r := out.Ints
		for i, p := range pick[:n] {
			if valid[i] != 0 {
				r[i] = data[p][i&masks[p]]
			}
		}
	case coldata.Float64:
		out = coldata.NewVec(t, n)
		data := make([][]float64, k)
		for j, s := range conv {
			if s != nil {
				data[j] = s.Floats
			}
		}
		r := out.Floats
		for i, p := range pick[:n] {
			if valid[i] != 0 {
				r[i] = data[p][i&masks[p]]
			}
		}
	case coldata.Bool:
		out = coldata.NewVec(t, n)
		data := make([][]byte, k)
		for j, s := range conv {
			if s != nil {
				data[j] = s.Bools
			}
		}
		r := out.Bools
		for i, p := range pick[:n] {
			if valid[i] != 0 {
				r[i] = data[p][i&masks[p]]
			}
		}
	case coldata.String:
		var err error
		if out, err = gatherStrings(conv, masks, pick, valid, n); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("internal error: cannot gather %s", t)
	}
	out.Nulls = bytesToBitmap(valid, n)
	return out, nil
}

// gatherStrings is gatherPick's two passes for strings: sizes from the
// chosen rows into offsets, then one copy per row into the final buffer.
func gatherStrings(srcs []*coldata.Vec, masks []int, pick []int32, valid []byte, n int) (*coldata.Vec, error) {
	k := len(srcs)
	offs := make([][]int32, k)
	data := make([][]byte, k)
	for j, s := range srcs {
		if s != nil {
			offs[j], data[j] = s.Offsets, s.Bytes
		}
	}
	out := &coldata.Vec{Type: coldata.String, Len: n, Offsets: make([]int32, n+1)}
	o := out.Offsets
	total := 0
	for i, p := range pick[:n] {
		if valid[i] != 0 {
			j := i & masks[p]
			so := offs[p]
			total += int(so[j+1] - so[j])
		}
		if total > 1<<31-1 {
			return nil, checkStringSize(total)
		}
		o[i+1] = int32(total)
	}
	buf := make([]byte, total)
	for i, p := range pick[:n] {
		if lo, hi := o[i], o[i+1]; hi > lo {
			j := i & masks[p]
			so := offs[p]
			copy(buf[lo:hi], data[p][so[j]:so[j+1]])
		}
	}
	out.Bytes = buf
	return out, nil
}
