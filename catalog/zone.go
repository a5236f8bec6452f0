package catalog

import (
	"bytes"
	"math"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/coldata"
)

// Zone is a column's zone map within one record: the smallest and largest
// non-NULL value (by type: integers, floats or strings; absent when every
// value is NULL, a float is NaN or a string is longer than MaxZoneString)
// and the NULL count.
type Zone struct {
	Nulls int64    `json:"nulls"`
	MinI  *int64   `json:"min_i,omitempty"`
	MaxI  *int64   `json:"max_i,omitempty"`
	MinF  *float64 `json:"min_f,omitempty"`
	MaxF  *float64 `json:"max_f,omitempty"`
	MinS  *string  `json:"min_s,omitempty"`
	MaxS  *string  `json:"max_s,omitempty"`
}

// MaxZoneString bounds the strings kept in zone maps (they are stored in
// the on-disk manifest).
const MaxZoneString = 256

func zonesOf(recs []arrow.Record) [][]Zone {
	out := make([][]Zone, len(recs))
	for i, r := range recs {
		if z, ok := r.(Zoned); ok {
			if zones := z.Zones(); len(zones) == int(r.NumCols()) {
				out[i] = zones
				continue
			}
		}
		out[i] = ComputeZones(r)
	}
	return out
}

// Zoned is a record that knows its zone maps: a stored segment's, kept
// in the manifest when it was written. A compressed segment decompresses
// a column on its first read and keeps it, so computing its zones again
// would hold the whole table in memory (an lz4 import of TPC-H SF10
// lineitem peaked at 9.6 GB of heap that way, 0.5 GB uncompressed).
type Zoned interface {
	Zones() []Zone
}

// ComputeZones computes a record's zone maps, one per column: min/max
// (strings bytewise, as gsql compares them) and NULL counts. Columns of
// other types get only their NULL count.
func ComputeZones(rec arrow.Record) []Zone {
	out := make([]Zone, rec.NumCols())
	for i := range out {
		out[i] = ColumnZone(rec.Column(i))
	}
	return out
}

// ColumnZone computes one column's zone map (see ComputeZones).
func ColumnZone(col arrow.Array) Zone {
	var out [1]Zone
	for i := range out {
		v, err := coldata.FromArrow(col)
		if err != nil {
			continue
		}
		z := &out[i]
		z.Nulls = int64(col.NullN())
		if z.Nulls == int64(v.Len) {
			continue
		}
		valid := func(r int) bool { return v.Nulls == nil || !v.IsNull(r) }
		switch v.Type {
		case coldata.Int64:
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for r, x := range v.Ints[:v.Len] {
				if valid(r) {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
			z.MinI, z.MaxI = &lo, &hi
		case coldata.Float64:
			lo, hi := math.Inf(1), math.Inf(-1)
			nan := false
			for r, x := range v.Floats[:v.Len] {
				if valid(r) {
					nan = nan || math.IsNaN(x)
					lo, hi = min(lo, x), max(hi, x)
				}
			}
			if !nan {
				z.MinF, z.MaxF = &lo, &hi
			}
		case coldata.String:
			var lo, hi []byte
			first := true
			for r := 0; r < v.Len; r++ {
				if !valid(r) {
					continue
				}
				x := v.Str(r)
				if first || bytes.Compare(x, lo) < 0 {
					lo = x
				}
				if first || bytes.Compare(x, hi) > 0 {
					hi = x
				}
				first = false
			}
			if len(lo) <= MaxZoneString && len(hi) <= MaxZoneString {
				ls, hs := string(lo), string(hi)
				z.MinS, z.MaxS = &ls, &hs
			}
		}
	}
	return out[0]
}
