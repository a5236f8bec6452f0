package gpuexec_test

import (
	"context"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators"
)

// Small host batches go up to the device together: 300 batches of 7 rows
// (a CPU filter keeping few rows of each scanned batch) are one upload,
// their rows in order, NULLs and strings kept; a batch past the bounds
// is not held back for the ones after it.
func TestFakeHostToDeviceCoalesces(t *testing.T) {
	dev, rt := tinyDevice(t)
	types := []coldata.Type{coldata.Int64, coldata.String}
	all := tinyColumns(types, 2100, func(c, r int) any {
		if r%11 == 3 {
			return nil
		}
		if c == 0 {
			return int64(r)
		}
		return []string{"a", "", "bc"}[r%3]
	})
	var parts []*coldata.Batch
	for lo := 0; lo < all.Len; lo += 7 {
		parts = append(parts, coldata.SliceBatch(all, lo, min(all.Len, lo+7)))
	}
	up := &operators.HostToDevice{Input: &operators.Materialized{Batches: parts}, RT: rt}
	ctx := context.Background()
	if err := up.Open(ctx); err != nil {
		t.Fatal(err)
	}
	uploads := 0
	var got []string
	for {
		b, err := up.NextDevice(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		uploads++
		hb, err := dev.Download(ctx, b)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rowKeys(hb)...)
	}
	// The end of the input is final: another call returns nothing.
	if b, err := up.NextDevice(ctx); b != nil || err != nil {
		t.Fatalf("after the end: %v, %v", b, err)
	}
	if err := up.Close(); err != nil {
		t.Fatal(err)
	}
	if uploads != 1 {
		t.Errorf("%d uploads of 300 small batches, want 1", uploads)
	}
	if want := rowKeys(all); !slices.Equal(got, want) {
		t.Fatalf("rows differ: got %d, want %d", len(got), len(want))
	}
}
