package operators_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

func arrowBytes(v *coldata.Vec) int64 {
	n := int64(coldata.BitmapLen(v.Len))
	switch v.Type {
	case coldata.String:
		n += int64(4*(v.Len+1)) + int64(v.Offsets[v.Len]-v.Offsets[0])
	case coldata.Bool:
		n += int64(v.Len)
	default:
		n += int64(8 * v.Len)
	}
	return n
}

// TestRedactBytesMoved replays the device paths' reads and writes for the
// redact projection on the host and reports the bytes each moves: the
// fused kernels read the input in both passes and write the output once;
// the library path reads every call's arguments (twice for string results)
// and writes every intermediate. GSQL_BYTES_ROWS sets the table size (the
// figures in docs/benchlog/2026-11-23-redact-gpu.md use 10M).
func TestRedactBytesMoved(t *testing.T) {
	rows := 100_000
	if s := os.Getenv("GSQL_BYTES_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	_, recs := datagen.People(rows, 42)
	var bs []*coldata.Batch
	for _, r := range recs {
		b, err := coldata.RecordToBatch(r)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	b := coldata.Concat(bs, 2)
	var bld fusetest.Builder
	red := bld.Redact(&expr.ColumnRef{Index: 0, Name: "name", T: coldata.String}, &expr.ColumnRef{Index: 1, Name: "visibility", T: coldata.String})
	if bld.Err != nil {
		t.Fatal(bld.Err)
	}
	in := arrowBytes(b.Cols[0]) + arrowBytes(b.Cols[1])
	out, err := expr.Eval(red, b)
	if err != nil {
		t.Fatal(err)
	}
	minimum := in + arrowBytes(out)
	fused := 2*in + arrowBytes(out)
	var library int64
	memo := map[string]*coldata.Vec{}
	var walk func(e expr.Expr) (*coldata.Vec, error)
	walk = func(e expr.Expr) (*coldata.Vec, error) {
		switch x := e.(type) {
		case *expr.ColumnRef:
			return b.Cols[x.Index], nil
		case *expr.Call:
			if v, ok := memo[x.String()]; ok {
				return v, nil
			}
			var read int64
			for _, a := range x.Args {
				v, err := walk(a)
				if err != nil {
					return nil, err
				}
				if v != nil {
					read += arrowBytes(v)
				}
			}
			v, err := expr.Eval(x, b)
			if err != nil {
				return nil, err
			}
			v = v.Materialize()
			passes := int64(1)
			if v.Type == coldata.String {
				passes = 2
			}
			library += passes*read + arrowBytes(v)
			memo[x.String()] = v
			return v, nil
		}
		return nil, nil
	}
	if _, err := walk(red); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rows: minimum %d bytes, fused %d (%.2fx), library %d (%.2fx)", rows, minimum, fused,
		float64(fused)/float64(minimum), library, float64(library)/float64(minimum))
	if !(fused < library && float64(fused)/float64(minimum) < 2) {
		t.Fatalf("fused moves %d bytes, library %d, minimum %d", fused, library, minimum)
	}
}
