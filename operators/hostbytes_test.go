package operators_test

import (
	"sync"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

func TestHostBytes(t *testing.T) {
	var h operators.HostBytes
	h.Grow(100)
	h.Grow(50)
	h.Release(120)
	h.Grow(60)
	h.Grow(-5) // ignored
	if h.Held() != 90 || h.Peak() != 150 {
		t.Fatalf("held %d peak %d, want 90 and 150", h.Held(), h.Peak())
	}
	h.ReleaseAll()
	if h.Held() != 0 || h.Peak() != 150 {
		t.Fatalf("after ReleaseAll: held %d peak %d", h.Held(), h.Peak())
	}
	// Growth from several goroutines, never released: the peak is the sum.
	var c operators.HostBytes
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				c.Grow(3)
			}
		}()
	}
	wg.Wait()
	if c.Peak() != 24000 {
		t.Fatalf("concurrent peak %d, want 24000", c.Peak())
	}
}

// Instrumented operators record the peak host bytes of those that hold
// rows (a sort, a distinct, an INTERSECT) when they close; a filter holds none.
func TestInstrumentRecordsPeakHostBytes(t *testing.T) {
	const n = 10000
	ints := func() *coldata.Batch {
		b := coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			b.AppendInt(int64(n - i))
		}
		return mkBatch(b.Finish())
	}
	tests := []struct {
		name string
		op   func(in operators.Operator) operators.Operator
		min  int64 // 0: none
	}{
		// The input and the permutation.
		{"sort", func(in operators.Operator) operators.Operator {
			return &operators.Sort{Input: in, Keys: []opspec.SortKey{{Col: 0}}, NCols: 1}
		}, 16 * n},
		// Every row is a new key.
		{"distinct", func(in operators.Operator) operators.Operator { return &operators.Distinct{Input: in} }, 48 * n},
		// The right side's keys.
		{"intersect", func(in operators.Operator) operators.Operator {
			return &operators.SetOp{Left: in, Right: &operators.Values{Batch: ints()}}
		}, 48 * n},
		{"filter", func(in operators.Operator) operators.Operator {
			return &operators.Filter{Input: in, Pred: fn(t, ">", colRef(0, tInt), lit(5, tInt))}
		}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &operators.Stats{}
			op := operators.Instrument(tc.op(&operators.Values{Batch: ints()}), st)
			if rows := run(t, op); len(rows) == 0 {
				t.Fatal("no rows")
			}
			got := st.PeakHostBytes.Load()
			if (tc.min == 0 && got != 0) || got < tc.min {
				t.Fatalf("peak %d bytes, want at least %d (0 for none)", got, tc.min)
			}
		})
	}
}
