package expr

import (
	"bytes"
	"fmt"
	"math"

	"github.com/gsqlengine/gsql/coldata"
)

// String function library: CPU kernels with MySQL semantics (SPLIT_PART,
// STARTS_WITH, ENDS_WITH and CONTAINS follow DuckDB), see DESIGN.md section
// 7. Positions and lengths count characters as utf8.go defines them, LENGTH
// counts bytes, comparisons are bytewise. Every kernel works a whole vector
// at a time; string results are built in two passes (sizes, then fill into
// one pre-sized buffer), the algorithm the GPU kernels use too.

const (
	// strMaxBytes is the most bytes one string vector can hold (int32 offsets).
	strMaxBytes = math.MaxInt32
	// strMaxGrowBytes bounds the result of functions whose output can be
	// much larger than their input (REPEAT, SPACE, LPAD, RPAD, CONCAT,
	// REPLACE...): a query asking for more gets an error, not an OOM.
	strMaxGrowBytes = 1 << 30
)

// strTooLarge is the error of a result vector over its byte limit.
func strTooLarge(limit int) error {
	return fmt.Errorf("string result too large: more than %d bytes in one batch", limit)
}

// strBuild makes a String vector of n rows in two passes. valid is the
// validity bitmap of the rows to compute (nil: all; it is owned by strBuild
// and may be modified). size(i) returns row i's byte length, or -1 to make
// the row NULL; sizes may saturate above limit, which fails the call. fill(i,
// dst) then writes exactly that many bytes.
func strBuild(n int, valid []byte, limit int, size func(i int) int, fill func(i int, dst []byte)) (*coldata.Vec, error) {
	offs := make([]int32, n+1)
	total := 0
	for i := 0; i < n; i++ {
		if valid == nil || coldata.BitIsSet(valid, i) {
			sz := size(i)
			if sz < 0 {
				if valid == nil {
					valid = coldata.NewValidBitmap(n)
				}
				coldata.ClearBit(valid, i)
			} else {
				if sz > limit-total {
					return nil, strTooLarge(limit)
				}
				total += sz
			}
		}
		offs[i+1] = int32(total)
	}
	buf := make([]byte, total)
	for i := 0; i < n; i++ {
		if lo, hi := offs[i], offs[i+1]; hi > lo {
			fill(i, buf[lo:hi:hi])
		}
	}
	return &coldata.Vec{Type: coldata.String, Len: n, Nulls: valid, Offsets: offs, Bytes: buf}, nil
}

// strSpans makes a String vector whose row i is a slice of src's row i:
// span(i, s) gets the row's bytes s and returns the byte range [lo, hi) of
// s to keep, or lo < 0 for NULL. Spans are computed once (pass 1 keeps the
// start in a scratch array and the length in the offsets) and copied in
// pass 2.
func strSpans(n int, valid []byte, src *coldata.Vec, span func(i int, s []byte) (lo, hi int)) (*coldata.Vec, error) {
	offs := make([]int32, n+1)
	starts := make([]int32, n)
	total := 0
	for i := 0; i < n; i++ {
		if valid == nil || coldata.BitIsSet(valid, i) {
			j := i
			if src.Const {
				j = 0
			}
			base := int(src.Offsets[j])
			s := src.Bytes[base:src.Offsets[j+1]]
			lo, hi := span(i, s)
			if lo < 0 {
				if valid == nil {
					valid = coldata.NewValidBitmap(n)
				}
				coldata.ClearBit(valid, i)
			} else {
				if hi-lo > strMaxBytes-total {
					return nil, strTooLarge(strMaxBytes)
				}
				total += hi - lo
				starts[i] = int32(base + lo)
			}
		}
		offs[i+1] = int32(total)
	}
	buf := make([]byte, total)
	for i := 0; i < n; i++ {
		if lo, hi := offs[i], offs[i+1]; hi > lo {
			st := starts[i]
			copy(buf[lo:hi], src.Bytes[st:st+hi-lo])
		}
	}
	return &coldata.Vec{Type: coldata.String, Len: n, Nulls: valid, Offsets: offs, Bytes: buf}, nil
}

// strNullResult returns a constant NULL of type t, for calls with a
// constant NULL argument.
func strNullResult(t coldata.Type, n int) *coldata.Vec { return coldata.NewConst(t, nil, n) }

// strAnyConstNull reports whether some argument is a constant NULL (which
// makes a NULL-propagating function NULL on every row).
func strAnyConstNull(args []*coldata.Vec) bool {
	for _, a := range args {
		if a.Type == coldata.Null || (a.Const && a.IsNull(0)) {
			return true
		}
	}
	return false
}

// strCheckArgs verifies that the argument vectors have the types the
// kernel reads (a NULL-typed vector is accepted anywhere), so that a
// planner bug surfaces as an error rather than a panic.
func strCheckArgs(args []*coldata.Vec, n int, types ...coldata.Type) error {
	for i, a := range args {
		want := types[len(types)-1]
		if i < len(types) {
			want = types[i]
		}
		if a == nil {
			return fmt.Errorf("internal error: argument %d is missing", i+1)
		}
		if a.Type == coldata.Null {
			continue
		}
		if a.Type != want {
			return fmt.Errorf("internal error: argument %d is %s, want %s", i+1, a.Type, want)
		}
		if !a.Const && a.Len < n {
			return fmt.Errorf("internal error: argument %d has %d rows, want %d", i+1, a.Len, n)
		}
	}
	return nil
}

// strPrologue runs the checks every NULL-propagating kernel starts with. It
// returns a non-nil result when the call is NULL on every row.
func strPrologue(ret coldata.Type, args []*coldata.Vec, n int, types ...coldata.Type) (*coldata.Vec, error) {
	if err := strCheckArgs(args, n, types...); err != nil {
		return nil, err
	}
	if strAnyConstNull(args) {
		return strNullResult(ret, n), nil
	}
	return nil, nil
}

// strIntResult allocates a BIGINT result with the given validity.
func strIntResult(n int, valid []byte) *coldata.Vec {
	return &coldata.Vec{Type: coldata.Int64, Len: n, Nulls: valid, Ints: make([]int64, n)}
}

// strBoolResult allocates a BOOLEAN result with the given validity.
func strBoolResult(n int, valid []byte) *coldata.Vec {
	return &coldata.Vec{Type: coldata.Bool, Len: n, Nulls: valid, Bools: make([]byte, n)}
}

// strRowValid reports whether row i is to be computed.
func strRowValid(valid []byte, i int) bool { return valid == nil || coldata.BitIsSet(valid, i) }

func init() {
	s, i64, b := coldata.String, coldata.Int64, coldata.Bool
	reg := func(name string, minArgs, maxArgs int, check func([]coldata.Type) (coldata.Type, []coldata.Type, error), eval func([]*coldata.Vec, int) (*coldata.Vec, error)) {
		guarded := func(args []*coldata.Vec, n int) (*coldata.Vec, error) {
			if len(args) < minArgs || (maxArgs >= 0 && len(args) > maxArgs) {
				return nil, fmt.Errorf("internal error: %s evaluated with %d arguments", name, len(args))
			}
			if n < 0 {
				return nil, fmt.Errorf("internal error: %s evaluated for %d rows", name, n)
			}
			return eval(args, n)
		}
		Register(&Function{Name: name, MinArgs: minArgs, MaxArgs: maxArgs, Check: check, Eval: guarded})
	}
	reg("length", 1, 1, Fixed(i64, s), strLength)
	Alias("octet_length", "length")
	reg("char_length", 1, 1, Fixed(i64, s), strCharLength)
	Alias("character_length", "char_length")
	reg("upper", 1, 1, Fixed(s, s), strUpper)
	Alias("ucase", "upper")
	reg("lower", 1, 1, Fixed(s, s), strLower)
	Alias("lcase", "lower")
	reg("substring", 2, 3, Fixed(s, s, i64, i64), strSubstring)
	Alias("substr", "substring")
	Alias("mid", "substring")
	reg("left", 2, 2, Fixed(s, s, i64), strLeft)
	reg("right", 2, 2, Fixed(s, s, i64), strRight)
	reg("concat", 1, -1, Fixed(s, s), strConcat)
	reg("concat_ws", 2, -1, Fixed(s, s), strConcatWS)
	reg("substring_index", 3, 3, Fixed(s, s, s, i64), strSubstringIndex)
	reg("split_part", 3, 3, Fixed(s, s, s, i64), strSplitPart)
	reg("locate", 2, 3, Fixed(i64, s, s, i64), strLocate)
	reg("instr", 2, 2, Fixed(i64, s, s), strInstr)
	reg("replace", 3, 3, Fixed(s, s, s, s), strReplace)
	reg("trim", 1, 2, Fixed(s, s, s), strTrimBoth)
	reg("ltrim", 1, 2, Fixed(s, s, s), strTrimLeft)
	reg("rtrim", 1, 2, Fixed(s, s, s), strTrimRight)
	reg("lpad", 3, 3, Fixed(s, s, i64, s), strLpad)
	reg("rpad", 3, 3, Fixed(s, s, i64, s), strRpad)
	reg("reverse", 1, 1, Fixed(s, s), strReverse)
	reg("repeat", 2, 2, Fixed(s, s, i64), strRepeat)
	reg("space", 1, 1, Fixed(s, i64), strSpace)
	reg("starts_with", 2, 2, Fixed(b, s, s), strStartsWith)
	Alias("prefix", "starts_with")
	reg("ends_with", 2, 2, Fixed(b, s, s), strEndsWith)
	Alias("suffix", "ends_with")
	reg("contains", 2, 2, Fixed(b, s, s), strContains)
	reg("like", 2, 3, Fixed(b, s, s, s), likeEval)
	reg("ascii", 1, 1, Fixed(i64, s), strASCIIFunc)
	reg("strcmp", 2, 2, Fixed(i64, s, s), strStrcmp)
}

// ---- LENGTH, CHAR_LENGTH, ASCII, STRCMP ----

func strLength(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Int64, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	s := args[0]
	out := strIntResult(n, CombineNulls(args, n))
	for i := 0; i < n; i++ {
		j := i
		if s.Const {
			j = 0
		}
		out.Ints[i] = int64(s.Offsets[j+1] - s.Offsets[j])
	}
	return out, nil
}

func strCharLength(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Int64, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	s := args[0]
	valid := CombineNulls(args, n)
	out := strIntResult(n, valid)
	for i := 0; i < n; i++ {
		if strRowValid(valid, i) {
			out.Ints[i] = int64(strCharLen(s.Str(i)))
		}
	}
	return out, nil
}

// strASCIIFunc is ASCII(s): the code of the first byte, 0 for "".
func strASCIIFunc(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Int64, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	s := args[0]
	valid := CombineNulls(args, n)
	out := strIntResult(n, valid)
	for i := 0; i < n; i++ {
		if strRowValid(valid, i) {
			if v := s.Str(i); len(v) > 0 {
				out.Ints[i] = int64(v[0])
			}
		}
	}
	return out, nil
}

// strStrcmp is STRCMP(a, b): -1, 0 or 1 comparing bytewise.
func strStrcmp(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Int64, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	a, b := args[0], args[1]
	valid := CombineNulls(args, n)
	out := strIntResult(n, valid)
	for i := 0; i < n; i++ {
		if strRowValid(valid, i) {
			out.Ints[i] = int64(bytes.Compare(a.Str(i), b.Str(i)))
		}
	}
	return out, nil
}

// ---- STARTS_WITH, ENDS_WITH, CONTAINS (DuckDB: '' needle -> true) ----

func strBoolPred(args []*coldata.Vec, n int, pred func(s, t []byte) bool) (*coldata.Vec, error) {
	if r, err := strPrologue(coldata.Bool, args, n, coldata.String); r != nil || err != nil {
		return r, err
	}
	a, b := args[0], args[1]
	valid := CombineNulls(args, n)
	out := strBoolResult(n, valid)
	for i := 0; i < n; i++ {
		if strRowValid(valid, i) && pred(a.Str(i), b.Str(i)) {
			out.Bools[i] = 1
		}
	}
	return out, nil
}

func strStartsWith(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strBoolPred(args, n, bytes.HasPrefix)
}

func strEndsWith(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strBoolPred(args, n, bytes.HasSuffix)
}

func strContains(args []*coldata.Vec, n int) (*coldata.Vec, error) {
	return strBoolPred(args, n, bytes.Contains)
}
