package window

import (
	"context"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// TestDeviceAggMode: how the device covers an aggregate's frames, or that
// it leaves the aggregate to the host.
func TestDeviceAggMode(t *testing.T) {
	// Two partitions of four rows: [0,4) and [4,8).
	partStart := []int{0, 0, 0, 0, 4, 4, 4, 4}
	running := []int{0, 0, 0, 0, 4, 4, 4, 4}
	moving := []int{0, 0, 1, 2, 4, 4, 5, 6}
	hi := []int{1, 2, 3, 4, 5, 6, 7, 8}
	for _, tc := range []struct {
		name   string
		k      winspec.Kind
		t      coldata.Type
		lo, hi []int
		want   gpuexec.WindowAggMode
		ok     bool
	}{
		{"count of text", winspec.Count, coldata.String, moving, hi, gpuexec.WindowDiff, true},
		{"sum of bigint, moving", winspec.Sum, coldata.Int64, moving, hi, gpuexec.WindowDiff, true},
		{"avg of boolean", winspec.Avg, coldata.Bool, moving, hi, gpuexec.WindowDiff, true},
		{"sum of double, running", winspec.Sum, coldata.Float64, running, hi, gpuexec.WindowRunning, true},
		{"min of date, running", winspec.Min, coldata.Date, running, hi, gpuexec.WindowRunning, true},
		{"max of double, short moving", winspec.Max, coldata.Float64, moving, hi, gpuexec.WindowLoop, true},
		{"min of text", winspec.Min, coldata.String, running, hi, 0, false},
		{"max of decimal", winspec.Max, coldata.DecimalOf(12, 2), running, hi, 0, false},
	} {
		got, ok := deviceAggMode(tc.k, tc.t, partStart, tc.lo, tc.hi)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: mode %d ok %v, want %d %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A long moving DOUBLE frame: past the loop bound the host sums it.
	n := 1 << 20
	ps, lo, h := make([]int, 4*n), make([]int, 4*n), make([]int, 4*n)
	for i := range lo {
		lo[i], h[i] = max(0, i-1000)+min(i, 1), i+1
	}
	if _, ok := deviceAggMode(winspec.Sum, coldata.Float64, ps, lo, h); ok {
		t.Errorf("a DOUBLE sum over 4M frames of ~1000 rows stayed on the device")
	}
}

// TestDeviceFrame: the frames the device computes (ROWS with integer
// offsets, RANGE without offsets) and those it leaves to the host.
func TestDeviceFrame(t *testing.T) {
	up, uf, cr := gpuexec.WindowBound{Kind: gpuexec.WindowUnboundedPreceding}, gpuexec.WindowBound{Kind: gpuexec.WindowUnboundedFollowing}, gpuexec.WindowBound{Kind: gpuexec.WindowCurrentRow}
	for _, tc := range []struct {
		name       string
		fr         winspec.Frame
		rows       bool
		start, end gpuexec.WindowBound
		ok         bool
	}{
		{"default ordered", winspec.DefaultFrame(true), false, up, cr, true},
		{"whole partition", winspec.DefaultFrame(false), false, up, uf, true},
		{"rows running", winspec.Frame{Unit: winspec.Rows, Start: unbPre, End: cur}, true, up, cr, true},
		{"rows moving", winspec.Frame{Unit: winspec.Rows, Start: rows(3), End: fol(2)}, true,
			gpuexec.WindowBound{Kind: gpuexec.WindowPreceding, Offset: 3}, gpuexec.WindowBound{Kind: gpuexec.WindowFollowing, Offset: 2}, true},
		{"range offset", winspec.Frame{Unit: winspec.Range, Start: rows(1), End: cur}, false, up, cr, false},
		{"rows fractional offset", winspec.Frame{Unit: winspec.Rows, Start: winspec.Bound{Kind: winspec.Preceding, Offset: 1.5}, End: cur}, true, up, cr, false},
		{"rows negative offset", winspec.Frame{Unit: winspec.Rows, Start: rows(-1), End: cur}, true, up, cr, false},
	} {
		r, s, e, ok := deviceFrame(tc.fr)
		if ok != winspec.DeviceFrame(tc.fr) {
			t.Errorf("%s: the device computes it %v, the plan says %v", tc.name, ok, winspec.DeviceFrame(tc.fr))
		}
		if ok != tc.ok || (ok && (r != tc.rows || s != tc.start || e != tc.end)) {
			t.Errorf("%s: %v %+v %+v %v, want %v %+v %+v %v", tc.name, r, s, e, ok, tc.rows, tc.start, tc.end, tc.ok)
		}
	}
}

// TestFrameAggModeAgrees: where the frame's shape decides the device's
// mode for an aggregate, it is the mode deviceAggMode picks from the
// frames themselves, over random partitions and every frame shape.
func TestFrameAggModeAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	const n = 500
	pb, ob := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
	for i := 0; i < n; i++ {
		pb.AppendInt(int64(rng.Intn(7)))
		ob.AppendInt(int64(rng.Intn(30)))
	}
	b := coldata.NewBatch([]*coldata.Vec{pb.Finish(), ob.Finish()}, n)
	p, err := newPartitioned(context.Background(), b, []expr.Expr{&expr.ColumnRef{Index: 0, T: coldata.Int64}},
		[]winspec.Key{{Expr: &expr.ColumnRef{Index: 1, T: coldata.Int64}}})
	if err != nil {
		t.Fatal(err)
	}
	frames := []winspec.Frame{
		winspec.DefaultFrame(true), winspec.DefaultFrame(false),
		{Unit: winspec.Rows, Start: unbPre, End: cur}, {Unit: winspec.Rows, Start: rows(2), End: cur},
		{Unit: winspec.Rows, Start: cur, End: unbFol}, {Unit: winspec.Range, Start: cur, End: unbFol},
		{Unit: winspec.Rows, Start: fol(1), End: fol(3)},
	}
	decided := 0
	for _, fr := range frames {
		lo, hi, err := p.frames(fr)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []winspec.Kind{winspec.Count, winspec.Sum, winspec.Avg, winspec.Min, winspec.Max} {
			for _, typ := range []coldata.Type{coldata.Int64, coldata.Float64, coldata.Bool, coldata.String, coldata.Date} {
				mode, ok, dec := frameAggMode(k, typ, fr)
				if !dec {
					continue
				}
				decided++
				wm, wok := deviceAggMode(k, typ, p.partStart, lo, hi)
				if ok != wok || (ok && mode != wm) {
					t.Errorf("%s of %s over %s: mode %d %v, deviceAggMode %d %v", k, typ, fr, mode, ok, wm, wok)
				}
			}
		}
	}
	if decided == 0 {
		t.Fatal("no decision taken from the frame's shape")
	}
}

// TestDeviceKeyTypes: the plan's rule for the keys the device sorts
// (winspec.DeviceKeyType, which EXPLAIN reports) is the device's.
func TestDeviceKeyTypes(t *testing.T) {
	for _, typ := range []coldata.Type{coldata.Null, coldata.Bool, coldata.Int64, coldata.Float64, coldata.String, coldata.Date,
		coldata.Timestamp, coldata.DecimalOf(18, 2), coldata.DecimalOf(19, 0), coldata.DecimalOf(38, 10), coldata.DecimalOf(5, 5)} {
		if winspec.DeviceKeyType(typ) != gpuexec.WindowSortable(typ) {
			t.Errorf("%s: plan %v, device %v", typ, winspec.DeviceKeyType(typ), gpuexec.WindowSortable(typ))
		}
	}
}

// TestRowsFrameWidth: the most rows a ROWS frame of offsets holds.
func TestRowsFrameWidth(t *testing.T) {
	for _, tc := range []struct {
		fr   winspec.Frame
		want int64
		ok   bool
	}{
		{winspec.Frame{Unit: winspec.Rows, Start: rows(3), End: fol(2)}, 6, true},
		{winspec.Frame{Unit: winspec.Rows, Start: rows(3), End: cur}, 4, true},
		{winspec.Frame{Unit: winspec.Rows, Start: fol(1), End: fol(4)}, 4, true},
		{winspec.Frame{Unit: winspec.Rows, Start: fol(2), End: rows(1)}, 0, true},
		{winspec.Frame{Unit: winspec.Rows, Start: cur, End: unbFol}, 0, false},
		{winspec.Frame{Unit: winspec.Range, Start: cur, End: cur}, 0, false},
		{winspec.Frame{Unit: winspec.Rows, Start: winspec.Bound{Kind: winspec.Preceding, Offset: 1.5}, End: cur}, 0, false},
	} {
		got, ok := rowsFrameWidth(tc.fr)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %d %v, want %d %v", tc.fr, got, ok, tc.want, tc.ok)
		}
	}
}
