package catalog

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/hashmix"
)

// TestSketchAccuracy adds n distinct values (each several times, in a
// seeded random order) and checks the estimate within 5% (the sketch's
// standard error is 1.6%), for integers and strings.
func TestSketchAccuracy(t *testing.T) {
	for _, tc := range []struct {
		n       int
		strings bool
	}{{1, false}, {10, false}, {1000, false}, {5000, false}, {100_000, false}, {1_000_000, false}, {1000, true}, {100_000, true}} {
		t.Run(fmt.Sprintf("%d/strings=%v", tc.n, tc.strings), func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(tc.n)))
			var s Sketch
			for rep := 0; rep < 2; rep++ {
				for _, i := range r.Perm(tc.n) {
					v := int64(i)*1_000_003 - 77
					if tc.strings {
						s.Add(hashBytes([]byte(fmt.Sprintf("value-%d", v))))
					} else {
						s.Add(hashmix.SplitMix64(uint64(v)))
					}
				}
			}
			got := s.Estimate()
			if e := math.Abs(got-float64(tc.n)) / float64(tc.n); e > 0.05 {
				t.Errorf("estimate %.0f for %d distinct values (%.1f%% off)", got, tc.n, 100*e)
			}
		})
	}
	var empty Sketch
	if e := empty.Estimate(); e != 0 {
		t.Errorf("empty sketch estimates %g", e)
	}
}

// TestSketchMergeAndEncoding: a merge estimates the union, and both
// encodings (sparse for few values, dense) decode to the same sketch.
func TestSketchMergeAndEncoding(t *testing.T) {
	var a, b, u Sketch
	for i := 0; i < 30000; i++ {
		h := hashmix.SplitMix64(uint64(i))
		if i < 20000 {
			a.Add(h)
		}
		if i >= 10000 {
			b.Add(h)
		}
		u.Add(h)
	}
	a.Merge(&b)
	if a != u {
		t.Errorf("merge of two sketches differs from the sketch of the union")
	}
	var small Sketch
	for i := 0; i < 50; i++ {
		small.Add(hashmix.SplitMix64(uint64(i)))
	}
	for _, s := range []*Sketch{&small, &u} {
		enc, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var back Sketch
		if err := back.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		if back != *s {
			t.Errorf("encoding of %d bytes does not decode to the same sketch", len(enc))
		}
	}
	if enc, _ := small.MarshalBinary(); len(enc) > 1+3*50 {
		t.Errorf("50 values take %d bytes", len(enc))
	}
	for _, bad := range [][]byte{nil, {9}, {sketchDense, 1}, {sketchSparse, 0xff, 0xff, 1}, {sketchSparse, 0, 0, 99}} {
		var s Sketch
		if err := s.UnmarshalBinary(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
}

// TestStatsMaintained: a table's statistics follow CREATE (from Arrow
// records), INSERT (from column batches, hashed alike) and DELETE.
func TestStatsMaintained(t *testing.T) {
	cat := New()
	cols := []Column{{Name: "k", Type: coldata.Int64}, {Name: "s", Type: coldata.String}, {Name: "d", Type: coldata.Date}, {Name: "f", Type: coldata.Float64}}
	schema := Schema(cols)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 0; i < 1000; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("s%d", i%10))
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(10000 + i%100))
		if i%2 == 0 {
			b.Field(3).(*array.Float64Builder).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(float64(i) / 4)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	if _, err := cat.Create("t", cols, []arrow.Record{rec}, false); err != nil {
		t.Fatal(err)
	}
	check := func(when string, want []float64, lo, hi float64) {
		t.Helper()
		tb, err := cat.Get("t")
		if err != nil {
			t.Fatal(err)
		}
		for c, w := range want {
			d, ok := tb.Distinct(c)
			if !ok || math.Abs(d-w) > 0.05*w {
				t.Errorf("%s: column %d: %g distinct (%v), want about %g", when, c, d, ok, w)
			}
		}
		if l, h, ok := tb.Range(0); !ok || l != lo || h != hi {
			t.Errorf("%s: range of k %g..%g (%v), want %g..%g", when, l, h, ok, lo, hi)
		}
		if l, h, ok := tb.Range(2); !ok || l != 10000 || h != 10000+math.Min(99, hi) {
			t.Errorf("%s: range of d %g..%g (%v)", when, l, h, ok)
		}
	}
	check("create", []float64{1000, 10, 100, 500}, 0, 999)
	// The same values again, as an INSERT's batch: no new distinct values
	// if the two paths hash alike.
	batch, err := coldata.RecordToBatch(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Append("t", batch); err != nil {
		t.Fatal(err)
	}
	check("insert of the same rows", []float64{1000, 10, 100, 500}, 0, 999)
	k := coldata.NewBuilder(coldata.Int64, 1)
	k.AppendValue(int64(5000))
	s := coldata.NewBuilder(coldata.String, 1)
	s.AppendValue("new")
	d := coldata.NewBuilder(coldata.Date, 1)
	d.AppendValue(int64(10050))
	f := coldata.NewBuilder(coldata.Float64, 1)
	f.AppendValue(nil)
	if err := cat.Append("t", coldata.NewBatch([]*coldata.Vec{k.Finish(), s.Finish(), d.Finish(), f.Finish()}, 1)); err != nil {
		t.Fatal(err)
	}
	check("insert of a new row", []float64{1001, 11, 100, 500}, 0, 5000)
	tb, _ := cat.Get("t")
	if err := cat.Replace("t", tb.Version, []arrow.Record{rec.NewSlice(0, 10)}, 10); err != nil {
		t.Fatal(err)
	}
	check("delete", []float64{10, 10, 10, 5}, 0, 9)
	tb, _ = cat.Get("t")
	if err := cat.Replace("t", tb.Version, nil, 0); err != nil {
		t.Fatal(err)
	}
	if tb, _ = cat.Get("t"); len(tb.Stats) != len(cols) {
		t.Errorf("an emptied table has %d column statistics", len(tb.Stats))
	}
}
