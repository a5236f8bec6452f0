//go:build cuda

package window

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// deviceParts yields device batches, each retained for the consumer.
type deviceParts struct {
	parts []*gpuexec.DeviceBatch
	i     int
}

func (s *deviceParts) Open(context.Context) error { s.i = 0; return nil }
func (s *deviceParts) NextDevice(context.Context) (*gpuexec.DeviceBatch, error) {
	if s.i == len(s.parts) {
		return nil, nil
	}
	s.i++
	return s.parts[s.i-1].Retain()
}
func (s *deviceParts) Close() error { return nil }

// deviceWindowTable: g (BIGINT 0..99, NULLs), day (DATE, 30 days), o
// (BIGINT 0..300: ties, NULLs), f (integral DOUBLEs with -0.0, NULLs:
// sums exact in any order), b (BOOLEAN, NULLs), dec (DECIMAL(12,2),
// NULLs), v (BIGINT, NULLs), id (unique), s (text, NULLs).
func deviceWindowTable(n int, seed int64) *coldata.Batch {
	r := rand.New(rand.NewSource(seed))
	ts := []coldata.Type{coldata.Int64, coldata.Date, coldata.Int64, coldata.Float64, coldata.Bool, coldata.DecimalOf(12, 2),
		coldata.Int64, coldata.Int64, coldata.String}
	bs := make([]*coldata.Builder, len(ts))
	for i, t := range ts {
		bs[i] = coldata.NewBuilder(t, n)
	}
	null := func(c int, k int) bool {
		if r.Intn(k) == 0 {
			bs[c].AppendNull()
			return true
		}
		return false
	}
	for i := 0; i < n; i++ {
		if !null(0, 40) {
			bs[0].AppendInt(int64(r.Intn(100)))
		}
		bs[1].AppendInt(int64(19000 + r.Intn(30)))
		if !null(2, 25) {
			bs[2].AppendInt(int64(r.Intn(301)))
		}
		if !null(3, 10) {
			f := float64(r.Intn(2001) - 1000)
			if f == 0 && r.Intn(2) == 0 {
				f = math.Copysign(0, -1)
			}
			bs[3].AppendFloat(f)
		}
		if !null(4, 7) {
			bs[4].AppendBool(r.Intn(2) == 0)
		}
		if !null(5, 9) {
			bs[5].AppendDec(decimal.FromInt64(int64(r.Intn(5000) - 2500)))
		}
		if !null(6, 10) {
			bs[6].AppendInt(r.Int63n(1<<40) - 1<<39)
		}
		bs[7].AppendInt(int64(i))
		if !null(8, 8) {
			bs[8].AppendString(string(rune('a' + r.Intn(20))))
		}
	}
	cols := make([]*coldata.Vec, len(bs))
	for i, b := range bs {
		cols[i] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

// TestDeviceWindowMatchesCPU runs window functions of every kind with
// DeviceOperator over three device batches and compares every row with
// Compute on the host: orderings the device sorts (BIGINT, DATE, DOUBLE,
// BOOLEAN and DECIMAL keys; DESC, NULLS FIRST/LAST; several partition
// keys; text keys; ORDER BY alone; PARTITION BY alone; OVER ()) and the
// one the host still sorts (a RANGE offset).
func TestDeviceWindowMatchesCPU(t *testing.T) {
	rt, err := operators.NewDeviceRuntime(gpuexec.Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}, 16<<30)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer func() { rt.Cache.Clear(); rt.Dev.Close() }()
	ctx := context.Background()
	const n = 300_000
	in := deviceWindowTable(n, 9)
	ref := func(i int) *expr.ColumnRef { return &expr.ColumnRef{Index: i, T: in.Cols[i].Type} }
	g, day, o, f, b, dec, v, id, s := ref(0), ref(1), ref(2), ref(3), ref(4), ref(5), ref(6), ref(7), ref(8)
	args := func(es ...expr.Expr) []expr.Expr { return es }
	rowsFr := func(start, end winspec.Bound) winspec.Frame {
		return winspec.Frame{Unit: winspec.Rows, Start: start, End: end}
	}
	def := winspec.DefaultFrame(true)
	whole := winspec.DefaultFrame(false)
	// Window A: PARTITION BY day ORDER BY o DESC.
	a := func(fn winspec.Func) winspec.Func {
		fn.Partition, fn.Order = args(day), []winspec.Key{{Expr: o, Desc: true}}
		return fn
	}
	// Window B: PARTITION BY g, b ORDER BY f NULLS LAST, dec DESC NULLS FIRST.
	bw := func(fn winspec.Func) winspec.Func {
		fn.Partition = args(g, b)
		fn.Order = []winspec.Key{{Expr: f, Nulls: opspec.NullsLast}, {Expr: dec, Desc: true, Nulls: opspec.NullsFirst}}
		return fn
	}
	funcs := []winspec.Func{
		a(winspec.Func{Kind: winspec.RowNumber, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Rank, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.DenseRank, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Ntile, N: 7, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.PercentRank, Type: coldata.Float64}),
		a(winspec.Func{Kind: winspec.CumeDist, Type: coldata.Float64}),
		a(winspec.Func{Kind: winspec.CountStar, Frame: def, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Lag, N: 1, Args: args(v), Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Lead, N: 2, Args: args(v, id), Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.FirstValue, Args: args(v), Frame: def, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.LastValue, Args: args(v), Frame: def, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.NthValue, N: 3, Args: args(v), Frame: rowsFr(unbPre, unbFol), Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Sum, Args: args(v), Frame: def, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Count, Args: args(v), Frame: rowsFr(rows(4), fol(1)), Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Avg, Args: args(v), Frame: rowsFr(rows(3), fol(1)), Type: coldata.Float64}),
		a(winspec.Func{Kind: winspec.Min, Args: args(f), Frame: rowsFr(unbPre, cur), Type: coldata.Float64}),
		a(winspec.Func{Kind: winspec.Max, Args: args(f), Frame: rowsFr(rows(2), cur), Type: coldata.Float64}),
		a(winspec.Func{Kind: winspec.Sum, Args: args(f), Frame: rowsFr(cur, unbFol), Type: coldata.Float64}),
		a(winspec.Func{Kind: winspec.Max, Args: args(v), Frame: winspec.Frame{Unit: winspec.Range, Start: cur, End: unbFol}, Type: coldata.Int64}),
		a(winspec.Func{Kind: winspec.Min, Args: args(dec), Frame: def, Type: dec.T}),
		bw(winspec.Func{Kind: winspec.RowNumber, Type: coldata.Int64}),
		bw(winspec.Func{Kind: winspec.Rank, Type: coldata.Int64}),
		bw(winspec.Func{Kind: winspec.DenseRank, Type: coldata.Int64}),
		bw(winspec.Func{Kind: winspec.Sum, Args: args(v), Frame: def, Type: coldata.Int64}),
		{Kind: winspec.RowNumber, Order: []winspec.Key{{Expr: id, Desc: true}}, Type: coldata.Int64},
		{Kind: winspec.Sum, Args: args(v), Order: []winspec.Key{{Expr: id, Desc: true}}, Frame: rowsFr(rows(5), fol(5)), Type: coldata.Int64},
		{Kind: winspec.CountStar, Partition: args(g), Frame: whole, Type: coldata.Int64},
		{Kind: winspec.Sum, Args: args(v), Partition: args(g), Frame: whole, Type: coldata.Int64},
		{Kind: winspec.RowNumber, Type: coldata.Int64},
		{Kind: winspec.Max, Args: args(f), Frame: whole, Type: coldata.Float64},
		// AVG of integers is DECIMAL(38,4) (MySQL): moving, running and
		// whole-partition frames, a BOOLEAN argument.
		a(winspec.Func{Kind: winspec.Avg, Args: args(v), Frame: rowsFr(rows(3), fol(1)), Type: intAvgType}),
		a(winspec.Func{Kind: winspec.Avg, Args: args(v), Frame: def, Type: intAvgType}),
		bw(winspec.Func{Kind: winspec.Avg, Args: args(b), Frame: rowsFr(unbPre, cur), Type: intAvgType}),
		{Kind: winspec.Avg, Args: args(v), Partition: args(g), Frame: whole, Type: intAvgType},
		// Text keys (strings of at most 32 bytes) sort on the device too.
		{Kind: winspec.RowNumber, Partition: args(s), Order: []winspec.Key{{Expr: o}}, Type: coldata.Int64},
		{Kind: winspec.Rank, Partition: args(day), Order: []winspec.Key{{Expr: s, Desc: true, Nulls: opspec.NullsFirst}, {Expr: o}}, Type: coldata.Int64},
		// The host sorts this ordering (a RANGE offset).
		{Kind: winspec.Sum, Args: args(v), Order: []winspec.Key{{Expr: o}}, Frame: winspec.Frame{Unit: winspec.Range, Start: rows(2), End: cur}, Type: coldata.Int64},
		{Kind: winspec.Avg, Args: args(v), Order: []winspec.Key{{Expr: o}}, Frame: winspec.Frame{Unit: winspec.Range, Start: rows(2), End: cur}, Type: intAvgType},
	}
	want, err := Compute(ctx, in, funcs)
	if err != nil {
		t.Fatal(err)
	}
	src := &deviceParts{}
	for lo := 0; lo < n; lo += n / 3 {
		idx := make([]int, 0, n/3)
		for i := lo; i < min(n, lo+n/3); i++ {
			idx = append(idx, i)
		}
		p, err := rt.Dev.Upload(ctx, coldata.GatherBatch(in, idx))
		if err != nil {
			t.Fatal(err)
		}
		defer p.Release()
		src.parts = append(src.parts, p)
	}
	got, op := runDeviceWindow(t, rt, src.parts, funcs)
	if op.hostOrders != 1 {
		t.Errorf("%d orderings sorted on the host, want the 1 the device cannot sort", op.hostOrders)
	}
	for j := range funcs {
		if r, w, gv := firstDifference(want[j], got.Cols[1+j]); r >= 0 {
			t.Errorf("%s: row %d: GPU %v, CPU %v", funcs[j].String(), r, gv, w)
		}
	}
	t.Logf("%d launches", op.Stats.Launches.Load())
}

// intAvgType is the type of AVG of an integer (planner, bindwindow.go).
var intAvgType = coldata.DecimalOf(38, 4)

// TestDeviceWindowIntAvgOnDevice: AVG of integers as DECIMAL stays on the
// device for every frame kind (sorted and hashed, device and host
// orderings), with no aggregate brought to the host, and equals the CPU's
// (exact sums, rounding half away from zero at scale 4).
func TestDeviceWindowIntAvgOnDevice(t *testing.T) {
	rt, err := operators.NewDeviceRuntime(gpuexec.Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}, 16<<30)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer func() { rt.Cache.Clear(); rt.Dev.Close() }()
	ctx := context.Background()
	const n = 200_000
	in := deviceWindowTable(n, 11)
	ref := func(i int) *expr.ColumnRef { return &expr.ColumnRef{Index: i, T: in.Cols[i].Type} }
	g, day, o, b, v, id, s := ref(0), ref(1), ref(2), ref(4), ref(6), ref(7), ref(8)
	args := func(es ...expr.Expr) []expr.Expr { return es }
	rowsFr := func(start, end winspec.Bound) winspec.Frame {
		return winspec.Frame{Unit: winspec.Rows, Start: start, End: end}
	}
	byDay := func(fr winspec.Frame, arg expr.Expr) winspec.Func {
		return winspec.Func{Kind: winspec.Avg, Args: args(arg), Partition: args(day), Order: []winspec.Key{{Expr: o, Desc: true}}, Frame: fr, Type: intAvgType}
	}
	funcs := []winspec.Func{
		byDay(winspec.DefaultFrame(true), v),
		byDay(rowsFr(rows(3), fol(1)), v),
		byDay(rowsFr(rows(1000), fol(1000)), v),
		byDay(rowsFr(cur, unbFol), v),
		byDay(rowsFr(unbPre, unbFol), b),
		byDay(winspec.Frame{Unit: winspec.Range, Start: cur, End: unbFol}, v),
		{Kind: winspec.Avg, Args: args(v), Order: []winspec.Key{{Expr: id}}, Frame: rowsFr(rows(2), fol(2)), Type: intAvgType},
		// Whole partitions: hashed.
		{Kind: winspec.Avg, Args: args(v), Partition: args(g), Frame: winspec.DefaultFrame(false), Type: intAvgType},
		{Kind: winspec.Avg, Args: args(b), Partition: args(g), Frame: winspec.DefaultFrame(false), Type: intAvgType},
		{Kind: winspec.Avg, Args: args(v), Frame: winspec.DefaultFrame(false), Type: intAvgType},
		// A text key: the host sorts, the device averages.
		{Kind: winspec.Avg, Args: args(v), Partition: args(s), Order: []winspec.Key{{Expr: id}}, Frame: winspec.DefaultFrame(true), Type: intAvgType},
	}
	want, err := Compute(ctx, in, funcs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Dev.Upload(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	got, op := runDeviceWindow(t, rt, []*gpuexec.DeviceBatch{p}, funcs)
	if op.hostAggs != 0 {
		t.Errorf("%d averages computed on the host, want none", op.hostAggs)
	}
	for j := range funcs {
		if got.Cols[1+j].Type != intAvgType {
			t.Errorf("%s: GPU type %s", funcs[j].String(), got.Cols[1+j].Type)
		}
		if r, w, gv := firstDifference(want[j], got.Cols[1+j]); r >= 0 {
			t.Errorf("%s: row %d: GPU %v, CPU %v", funcs[j].String(), r, gv, w)
		}
	}
}

// BenchmarkDeviceWindowRowNumber is issue 40's window shape on DeviceOperator:
// ROW_NUMBER() OVER (PARTITION BY day ORDER BY c DESC) over 1M and 10M
// resident rows (31 days, counts up to 10^6), the ordering built on the
// device and, for comparison, sorted on the host.
func BenchmarkDeviceWindowRowNumber(b *testing.B) {
	rt, err := operators.NewDeviceRuntime(gpuexec.Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}, 16<<30)
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	defer func() { rt.Cache.Clear(); rt.Dev.Close() }()
	ctx := context.Background()
	for _, n := range []int{1_000_000, 10_000_000} {
		r := rand.New(rand.NewSource(5))
		day, cnt := coldata.NewBuilder(coldata.Date, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			day.AppendInt(int64(19000 + r.Intn(31)))
			cnt.AppendInt(int64(r.Intn(1_000_000)))
		}
		in, err := rt.Dev.Upload(ctx, coldata.NewBatch([]*coldata.Vec{day.Finish(), cnt.Finish()}, n))
		if err != nil {
			b.Fatal(err)
		}
		fn := winspec.Func{Kind: winspec.RowNumber, Type: coldata.Int64,
			Partition: []expr.Expr{&expr.ColumnRef{Index: 0, T: coldata.Date}},
			Order:     []winspec.Key{{Expr: &expr.ColumnRef{Index: 1, T: coldata.Int64}, Desc: true}}}
		for _, host := range []bool{false, true} {
			name := fmt.Sprintf("%d rows/device", n)
			if host {
				name = fmt.Sprintf("%d rows/host", n)
			}
			b.Run(name, func(b *testing.B) {
				defer func(v bool) { hostOrderOnly = v }(hostOrderOnly)
				hostOrderOnly = host
				for i := 0; i < b.N; i++ {
					op := &DeviceOperator{Input: &deviceParts{parts: []*gpuexec.DeviceBatch{in}}, RT: rt, NCols: 2, Funcs: []winspec.Func{fn}}
					if err := op.Open(ctx); err != nil {
						b.Fatal(err)
					}
					out, err := op.NextDevice(ctx)
					if err != nil {
						b.Fatal(err)
					}
					if err := rt.Dev.Synchronize(); err != nil {
						b.Fatal(err)
					}
					out.Release()
					op.Close()
				}
			})
		}
		in.Release()
	}
}

// TestDeviceOrderingMatchesHost builds orderings on the device and on
// the host (newPartitioned) from the same keys and compares their
// permutations and spans exactly: ties in input order, NULLs where
// NULLS FIRST/LAST and the direction put them, -0.0 equal to 0.0.
func TestDeviceOrderingMatchesHost(t *testing.T) {
	rt, err := operators.NewDeviceRuntime(gpuexec.Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}, 16<<30)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer func() { rt.Cache.Clear(); rt.Dev.Close() }()
	ctx := context.Background()
	const n = 200_000
	in := deviceWindowTable(n, 21)
	all, err := rt.Dev.Upload(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Release()
	ref := func(i int) *expr.ColumnRef { return &expr.ColumnRef{Index: i, T: in.Cols[i].Type} }
	g, day, o, f, b, dec, v := ref(0), ref(1), ref(2), ref(3), ref(4), ref(5), ref(6)
	for _, w := range []struct {
		name      string
		partition []expr.Expr
		order     []winspec.Key
	}{
		{"day, o desc", []expr.Expr{day}, []winspec.Key{{Expr: o, Desc: true}}},
		{"g, b; f nulls last, dec desc nulls first", []expr.Expr{g, b}, []winspec.Key{{Expr: f, Nulls: opspec.NullsLast}, {Expr: dec, Desc: true, Nulls: opspec.NullsFirst}}},
		{"v (wide) desc, o", nil, []winspec.Key{{Expr: v, Desc: true}, {Expr: o}}},
		{"g alone", []expr.Expr{g}, nil},
		{"no keys", nil, nil},
	} {
		op := &DeviceOperator{RT: rt, Funcs: []winspec.Func{{Kind: winspec.RowNumber, Partition: w.partition, Order: w.order, Type: coldata.Int64}}}
		ord, err := op.order(ctx, all, 0)
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if !ord.device {
			t.Fatalf("%s: sorted on the host", w.name)
		}
		got, err := ord.hostView(ctx)
		ord.l.Release()
		if err != nil {
			t.Fatal(err)
		}
		want, err := newPartitioned(ctx, in, w.partition, w.order)
		if err != nil {
			t.Fatal(err)
		}
		identity := func(p []int) []int {
			if p != nil {
				return p
			}
			p = make([]int, n)
			for i := range p {
				p[i] = i
			}
			return p
		}
		for _, c := range []struct {
			what      string
			got, want []int
		}{
			{"perm", identity(got.perm), identity(want.perm)},
			{"partStart", got.partStart, want.partStart}, {"partEnd", got.partEnd, want.partEnd},
			{"peerStart", got.peerStart, want.peerStart}, {"peerEnd", got.peerEnd, want.peerEnd},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				at := 0
				for at < n && c.got[at] == c.want[at] {
					at++
				}
				t.Errorf("%s: %s differs first at %d: device %v, host %v", w.name, c.what, at, c.got[at:min(n, at+5)], c.want[at:min(n, at+5)])
			}
		}
	}
}

// TestDeviceWindowLongTextKey: a text key with a string past
// gpuexec.MaxTextSortBytes sends its ordering to the host at run time
// (gpuexec.ErrLongTextKey), with the CPU's answers; the same key with
// short strings sorts on the device.
func TestDeviceWindowLongTextKey(t *testing.T) {
	rt, err := operators.NewDeviceRuntime(gpuexec.Options{CacheDir: os.Getenv("GSQL_KERNEL_CACHE")}, 1<<30)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	defer func() { rt.Cache.Clear(); rt.Dev.Close() }()
	ctx := context.Background()
	for _, long := range []bool{false, true} {
		const n = 5000
		r := rand.New(rand.NewSource(4))
		sb, vb := coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("k%02d", r.Intn(30))
			if long && i%7 == 0 {
				k += "-a string longer than thirty-two bytes"
			}
			sb.AppendString(k)
			vb.AppendInt(int64(r.Intn(100)))
		}
		in := coldata.NewBatch([]*coldata.Vec{sb.Finish(), vb.Finish()}, n)
		s, v := &expr.ColumnRef{Index: 0, T: coldata.String}, &expr.ColumnRef{Index: 1, T: coldata.Int64}
		funcs := []winspec.Func{{Kind: winspec.RowNumber, Partition: []expr.Expr{s}, Order: []winspec.Key{{Expr: v, Desc: true}}, Type: coldata.Int64}}
		want, err := Compute(ctx, in, funcs)
		if err != nil {
			t.Fatal(err)
		}
		p, err := rt.Dev.Upload(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		got, op := runDeviceWindow(t, rt, []*gpuexec.DeviceBatch{p}, funcs)
		p.Release()
		if wantHost := map[bool]int{false: 0, true: 1}[long]; op.hostOrders != wantHost {
			t.Errorf("long=%v: %d orderings on the host, want %d", long, op.hostOrders, wantHost)
		}
		if w, g := values(want[0]), values(got.Cols[1]); !reflect.DeepEqual(w, g) {
			t.Errorf("long=%v: GPU ROW_NUMBER differs from the CPU's", long)
		}
	}
}

// firstDifference is the first row where the vectors differ (-1 if none)
// with both values there. Every Value is comparable (bool, int64, float64,
// string, decimal.Int128), so rows compare with == rather than through
// reflect.DeepEqual, which took tens of seconds over 38 columns of 300,000
// rows on the GPU host.
func firstDifference(want, got *coldata.Vec) (int, any, any) {
	if want.Len != got.Len {
		return min(want.Len, got.Len), want.Len, got.Len
	}
	for r := 0; r < want.Len; r++ {
		if w, g := want.Value(r), got.Value(r); w != g {
			return r, w, g
		}
	}
	return -1, nil, nil
}

// runDeviceWindow computes funcs over the device batches parts (one
// column before the functions' outputs) with a DeviceOperator and returns
// its one output batch, downloaded, and the closed operator, whose
// counters the tests read.
func runDeviceWindow(t *testing.T, rt *operators.DeviceRuntime, parts []*gpuexec.DeviceBatch, funcs []winspec.Func) (*coldata.Batch, *DeviceOperator) {
	t.Helper()
	ctx := context.Background()
	op := &DeviceOperator{Input: &deviceParts{parts: parts}, RT: rt, NCols: 1, Funcs: funcs, Stats: &operators.Stats{}}
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := op.NextDevice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rt.Dev.Download(ctx, out)
	out.Release()
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	return got, op
}
