package catalog

import (
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/hashmix"
)

// ColumnStats are a column's statistics over a whole table, for the
// planner's estimates: a distinct-count sketch and, for numeric, DATE and
// TIMESTAMP columns, the smallest and largest non-NULL value as a double
// (DATE in days, TIMESTAMP in microseconds, as coldata keeps them). They
// only grow: a DELETE recomputes them, an INSERT merges its rows in.
type ColumnStats struct {
	Sketch   Sketch
	Min, Max float64
	// HasRange is set once a non-NULL numeric value is seen.
	HasRange bool
}

// Distinct returns the estimated distinct non-NULL values, at most rows.
func (s *ColumnStats) Distinct(rows int64) float64 {
	return math.Min(s.Sketch.Estimate(), float64(rows))
}

func (s *ColumnStats) merge(o *ColumnStats) {
	s.Sketch.Merge(&o.Sketch)
	s.addRange(o.HasRange, o.Min, o.Max)
}

func (s *ColumnStats) addRange(ok bool, lo, hi float64) {
	switch {
	case !ok:
	case !s.HasRange:
		s.Min, s.Max, s.HasRange = lo, hi, true
	default:
		s.Min, s.Max = math.Min(s.Min, lo), math.Max(s.Max, hi)
	}
}

// StatsSource is a record that knows its column statistics (a staged
// segment's, computed before it was compressed), so that a table made of
// such records need not read them again.
type StatsSource interface {
	ColumnStats() []ColumnStats
}

// ComputeStats computes the statistics of a table holding recs (ncols
// columns each), the records shared out to the cores.
func ComputeStats(recs []arrow.Record, ncols int) []ColumnStats {
	if ncols == 0 {
		return nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(recs))
	if workers <= 1 {
		out := make([]ColumnStats, ncols)
		for _, r := range recs {
			addRecordStats(out, r)
		}
		return out
	}
	parts := make([][]ColumnStats, workers)
	var wg sync.WaitGroup
	for w := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			part := make([]ColumnStats, ncols)
			for i := w; i < len(recs); i += workers {
				addRecordStats(part, recs[i])
			}
			parts[w] = part
		}()
	}
	wg.Wait()
	out := parts[0]
	for _, p := range parts[1:] {
		for c := range out {
			out[c].merge(&p[c])
		}
	}
	return out
}

// RecordStats computes one record's column statistics.
func RecordStats(rec arrow.Record) []ColumnStats {
	out := make([]ColumnStats, rec.NumCols())
	addRecordStats(out, rec)
	return out
}

func addRecordStats(out []ColumnStats, rec arrow.Record) {
	if s, ok := rec.(StatsSource); ok {
		if st := s.ColumnStats(); len(st) == len(out) {
			for c := range out {
				out[c].merge(&st[c])
			}
			return
		}
	}
	for c := range out {
		if c < int(rec.NumCols()) {
			addArrayStats(&out[c], rec.Column(c))
		}
	}
}

// addArrayStats adds an Arrow column's values. The loops hash in place,
// without converting the column or allocating.
func addArrayStats(s *ColumnStats, a arrow.Array) {
	n := a.Len()
	if a.NullN() == n {
		return
	}
	var valid func(int) bool // nil: no NULLs
	if a.NullN() > 0 {
		valid = a.IsValid
	}
	switch x := a.(type) {
	case *array.Int64:
		addInts(s, x.Int64Values(), valid)
	case *array.Timestamp:
		addInts(s, x.TimestampValues(), valid)
	case *array.Date32:
		addInts(s, x.Date32Values(), valid)
	case *array.Float64:
		addFloats(s, x.Float64Values(), valid)
	case *array.String:
		for i := 0; i < n; i++ {
			if valid == nil || valid(i) {
				s.Sketch.Add(hashBytes(unsafeBytes(x.Value(i))))
			}
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if valid == nil || valid(i) {
				s.Sketch.Add(hashmix.SplitMix64(uint64(b2i(x.Value(i)))))
			}
		}
	case *array.Decimal128:
		scale := int(x.DataType().(*arrow.Decimal128Type).Scale)
		first := true
		var lo, hi decimal.Int128
		for i := 0; i < n; i++ {
			if valid != nil && !valid(i) {
				continue
			}
			v := x.Value(i)
			d := decimal.Int128{Lo: v.LowBits(), Hi: v.HighBits()}
			s.Sketch.Add(hashDec(d.Lo, d.Hi))
			if first || d.Cmp(lo) < 0 {
				lo = d
			}
			if first || d.Cmp(hi) > 0 {
				hi = d
			}
			first = false
		}
		s.addRange(true, lo.Float64(scale), hi.Float64(scale))
	default:
		// Other Arrow types (a record a table was given as is) go
		// through the column format.
		v, err := coldata.FromArrow(a)
		if err == nil {
			addVecStats(s, v)
		}
	}
}

// addInts adds integer-like values (BIGINT, DATE days, TIMESTAMP
// microseconds), hashed as int64 whatever their width.
func addInts[T ~int32 | ~int64](s *ColumnStats, xs []T, valid func(int) bool) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i, x := range xs {
		if valid != nil && !valid(i) {
			continue
		}
		v := int64(x)
		s.Sketch.Add(hashmix.SplitMix64(uint64(v)))
		lo, hi = min(lo, v), max(hi, v)
	}
	s.addRange(lo <= hi, float64(lo), float64(hi))
}

func addFloats(s *ColumnStats, xs []float64, valid func(int) bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range xs {
		if valid != nil && !valid(i) {
			continue
		}
		s.Sketch.Add(hashFloat(v))
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	s.addRange(lo <= hi, lo, hi)
}

// addVecStats adds a column-format vector's values, hashed as
// addArrayStats hashes the same values in Arrow form.
func addVecStats(s *ColumnStats, v *coldata.Vec) {
	if v.Const {
		if v.Len > 0 {
			one := *v
			one.Const, one.Len = false, 1
			addVecStats(s, &one)
		}
		return
	}
	valid := func(i int) bool { return v.Nulls == nil || !v.IsNull(i) }
	var validOrNil func(int) bool
	if v.Nulls != nil {
		validOrNil = valid
	}
	switch v.Type.Physical() {
	case coldata.Int64:
		addInts(s, v.Ints[:v.Len], validOrNil)
	case coldata.Float64:
		addFloats(s, v.Floats[:v.Len], validOrNil)
	case coldata.String:
		for i := 0; i < v.Len; i++ {
			if valid(i) {
				s.Sketch.Add(hashBytes(v.Str(i)))
			}
		}
	case coldata.Bool:
		for i := 0; i < v.Len; i++ {
			if valid(i) {
				s.Sketch.Add(hashmix.SplitMix64(uint64(v.Bools[i])))
			}
		}
	case coldata.Decimal:
		first := true
		var lo, hi decimal.Int128
		for i := 0; i < v.Len; i++ {
			if !valid(i) {
				continue
			}
			d := v.Decs[i]
			s.Sketch.Add(hashDec(d.Lo, d.Hi))
			if first || d.Cmp(lo) < 0 {
				lo = d
			}
			if first || d.Cmp(hi) > 0 {
				hi = d
			}
			first = false
		}
		if !first {
			s.addRange(true, lo.Float64(v.Type.Scale()), hi.Float64(v.Type.Scale()))
		}
	}
}

// withBatch returns a copy of stats with batch b's rows added (an
// INSERT's), nil when stats are unknown.
func withBatch(stats []ColumnStats, b *coldata.Batch) []ColumnStats {
	if stats == nil || len(stats) != len(b.Cols) {
		return nil
	}
	out := make([]ColumnStats, len(stats))
	copy(out, stats)
	for c, v := range b.Cols {
		addVecStats(&out[c], v)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unsafeBytes views a string's bytes without copying (hashed, never kept).
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Distinct returns the estimated distinct non-NULL values of column c and
// whether the table has statistics.
func (t *Table) Distinct(c int) (float64, bool) {
	if c < 0 || c >= len(t.Stats) {
		return 0, false
	}
	return math.Max(1, t.Stats[c].Distinct(t.Rows)), true
}

// Range returns column c's smallest and largest value as doubles, when the
// table has statistics and the column a numeric, DATE or TIMESTAMP value.
func (t *Table) Range(c int) (lo, hi float64, ok bool) {
	if c < 0 || c >= len(t.Stats) || !t.Stats[c].HasRange {
		return 0, 0, false
	}
	return t.Stats[c].Min, t.Stats[c].Max, true
}
