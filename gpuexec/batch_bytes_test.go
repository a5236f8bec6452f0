package gpuexec

import (
	"context"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

// TestColumnBytes checks that a view of some columns of a packed batch
// counts those columns, not the buffer behind every column, and that a
// string column of unknown size falls back to the buffers.
func TestColumnBytes(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	const n = 1000
	ints := coldata.NewBuilder(coldata.Int64, n)
	strs := coldata.NewBuilder(coldata.String, n)
	flts := coldata.NewBuilder(coldata.Float64, n)
	chars := 0
	for i := 0; i < n; i++ {
		ints.AppendInt(int64(i * 7))
		if i%10 == 3 {
			strs.AppendNull()
		} else {
			s := string(rune('a'+i%26)) + "xyz"[:i%4]
			chars += len(s)
			strs.AppendString(s)
		}
		flts.AppendFloat(float64(i) / 3)
	}
	hb := coldata.NewBatch([]*coldata.Vec{ints.Finish(), strs.Finish(), flts.Finish()}, n)
	db, err := d.Upload(context.Background(), hb)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	view := func(cols ...int) *DeviceBatch {
		v := &DeviceBatch{Len: db.Len, d: d, bufs: db.bufs}
		for _, c := range cols {
			v.Cols = append(v.Cols, db.Cols[c])
		}
		return v
	}
	strBytes := uint64((n+7)/8 + 4*(n+1) + chars)
	for _, tc := range []struct {
		name string
		b    *DeviceBatch
		want uint64
	}{
		{"ints", view(0), 8 * n},
		{"floats and ints", view(2, 0), 16 * n},
		{"strings", view(1), strBytes},
		{"all", view(0, 1, 2), 16*n + strBytes},
	} {
		if got := tc.b.ColumnBytes(); got != tc.want {
			t.Errorf("%s: ColumnBytes %d, want %d (buffers %d)", tc.name, got, tc.want, tc.b.Bytes())
		}
		if tc.b.ColumnBytes() > tc.b.Bytes() {
			t.Errorf("%s: ColumnBytes over the buffers", tc.name)
		}
	}
	unknown := view(0, 1)
	unknown.Cols[1].Chars = 0
	if got := unknown.ColumnBytes(); got != unknown.Bytes() {
		t.Errorf("unknown characters: ColumnBytes %d, want the buffers' %d", got, unknown.Bytes())
	}
}
