package expr

import (
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
)

// Text compared with a DATE or DATETIME, as MySQL 8 reads it row by row.
//
// A comparison (=, <>, <, <=, >, >=, <=>, IN) of a date with text that is
// not constant (a column, an expression over one) reads each row's text
// as a DATETIME (get_datetime_value, sql/item_cmpfunc.cc): text that is
// no date under the default sql_mode ('abc', '', '2023-02-30',
// '0000-00-00') is read as the zero date, 0, below every date, with
// warning 1292, and not as NULL (get_date_from_str returns 0 and the
// comparison goes on); NULL text is NULL. So with s = 'abc', `d = s` is
// 0 and `d <> s` is 1 where a CAST would give NULL. Text read by dropping
// trailing characters ('2024-02-29x') is that date, with the truncation
// warning, as the cast reads it.
//
// NewCall converts such text with CmpTimestampName instead of the cast
// (constant text too: the binder reads that once, planner/datecmp.go, and
// fails on text that is no date where MySQL does). Its zero date is
// ZeroTimestamp, the day before 0001-01-01 (gsql's dates start there),
// which only a comparison sees. The GPU code generator emits the same
// reading (gpuexec/fuse/datecalls.go).

// CmpTimestampName is the registry name of a comparison's reading of
// text as a DATETIME.
const CmpTimestampName = "cmp_to_timestamp"

// ZeroDateDays and ZeroTimestamp stand for MySQL's zero date
// '0000-00-00' as a DATE and as a DATETIME: below every value of the type.
var (
	ZeroDateDays  = datetime.MinDays - 1
	ZeroTimestamp = ZeroDateDays * datetime.MicrosPerDay
)

var cmpTimestamp = &Function{Name: CmpTimestampName, MinArgs: 1, MaxArgs: 1, Check: Fixed(coldata.Timestamp, coldata.String),
	EvalW: evalCmpTimestamp}

func init() { Register(cmpTimestamp) }

// CompareCastTo is the conversion of e to t that a comparison makes:
// text to a DATETIME is read as MySQL's comparisons read it (the zero
// date for text that is no date), anything else is CastTo's.
func CompareCastTo(e Expr, t coldata.Type) (Expr, error) {
	if e.Type() == coldata.String && t == coldata.Timestamp {
		if l, ok := e.(*Literal); ok && l.Value == nil {
			return &Literal{Value: nil, T: t}, nil
		}
		return &Call{Fn: cmpTimestamp, Args: []Expr{e}, T: coldata.Timestamp}, nil
	}
	return CastTo(e, t)
}

// evalCmpTimestamp reads text as a DATETIME, the zero date where it is no
// date, warning as the cast does ("Incorrect datetime value: 'abc'"; the
// truncation warnings come from warnDateTail).
func evalCmpTimestamp(args []*coldata.Vec, n int, w *Warnings) (*coldata.Vec, error) {
	in := args[0]
	out, err := castVec(in, coldata.Timestamp, n)
	if err != nil || out.Nulls == nil || isConstNull(in) {
		return out, err
	}
	rows, times := n, 1
	if out.Const {
		// A constant evaluated for a batch warns once per row, as the
		// cast does (a comparison's constant is a Once call, evaluated
		// for one row).
		rows, times = min(n, 1), n
	}
	// castVec made out (castTemporal's vector): rows are set in place.
	nulls := false
	for i := 0; i < rows; i++ {
		if !out.IsNull(i) {
			continue
		}
		if in.IsNull(i) {
			nulls = true
			continue
		}
		out.Ints[i] = ZeroTimestamp
		coldata.SetBit(out.Nulls, i)
		if w != nil {
			w.addTimes([]Warning{{Level: "Warning", Code: WarnTruncated, Msg: "Incorrect datetime value: '" + string(in.Str(i)) + "'"}}, times)
		}
	}
	if !nulls {
		out.Nulls = nil
	}
	return out, nil
}
