//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// TestCUDARadixSort sorts keys on the device and compares keys and rows
// with a stable sort on the host: random 64-bit keys, sign-flipped BIGINTs
// straddling zero, DOUBLE keys (negatives, -0.0, duplicates, both
// directions), few distinct keys, all equal; 0, 1, a tile and a bit, 2^20
// and 10M rows; with the identity rows and with given ones.
func TestCUDARadixSort(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(17))
	for _, c := range []struct {
		shape string
		n     int
	}{
		{"random", 0}, {"random", 1}, {"doubles", 1}, {"random", 4097}, {"random", 1 << 20}, {"small ints", 1 << 20},
		{"doubles", 1 << 20}, {"dups", 1 << 20}, {"equal", 100_000}, {"doubles", 10_000_000}, {"small ints", 10_000_000},
	} {
		for _, withRows := range []bool{false, true} {
			if withRows && c.n > 1<<20 {
				continue
			}
			keys := sortKeysCase(rng, c.shape, c.n)
			rows := make([]uint32, c.n)
			for i := range rows {
				rows[i] = uint32(i)
				if withRows {
					rows[i] = uint32(rng.Int31())
				}
			}
			kb := uploadWords(t, d, keys)
			var rb *Buffer
			var rp DevicePtr
			if withRows {
				rb = uploadRaw(t, d, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(rows))), 4*len(rows)))
				rp = rb.ptr
			}
			start := time.Now()
			got, err := d.RadixSort(ctx, kb.ptr, rp, c.n)
			took := time.Since(start)
			kb.Release()
			if rb != nil {
				rb.Release()
			}
			if err != nil {
				t.Fatalf("%s %d: %v", c.shape, c.n, err)
			}
			requireStableSort(t, d, got, keys, rows, fmt.Sprintf("%s %d rows %v", c.shape, c.n, withRows))
			t.Logf("%s, %d rows, given rows %v: %d passes, %d launches, %v (first call compiles)", c.shape, c.n, withRows, got.Passes, got.Launches, took)
			got.Release()
		}
	}
	requireNoLeak(t, d, "radix sort")
}

// TestCUDAOrderKeys checks the device's order keys (gsql_order_key, via
// gsql_q_keys) against OrderKey for BIGINT extremes, DOUBLE specials
// (±0, ±Inf, NaNs, subnormals), DECIMAL(18,2) and BOOL, both directions,
// with NULLs.
func TestCUDAOrderKeys(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(23))
	const n = 5000
	floats := []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0xfff8000000000001),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
	ints := []int64{math.MinInt64, math.MaxInt64, -1, 0, 1}
	types := []coldata.Type{coldata.Int64, coldata.Float64, coldata.DecimalOf(18, 2), coldata.Bool, coldata.Date}
	for _, ty := range types {
		b := coldata.NewBuilder(ty, n)
		vals := make([]uint64, n)
		null := make([]bool, n)
		for i := 0; i < n; i++ {
			if rng.Intn(9) == 0 {
				null[i] = true
				b.AppendNull()
				continue
			}
			switch ty.Physical() {
			case coldata.Float64:
				x := rng.NormFloat64() * 1e10
				if i < len(floats) {
					x = floats[i]
				}
				vals[i] = math.Float64bits(x)
				b.AppendFloat(x)
			case coldata.Decimal:
				x := rng.Int63n(2*999_999_999_999_999_999) - 999_999_999_999_999_999
				vals[i] = uint64(x)
				b.AppendDec(decimal.FromInt64(x))
			case coldata.Bool:
				vals[i] = uint64(rng.Intn(2))
				b.AppendBool(vals[i] == 1)
			default:
				x := rng.Int63() - rng.Int63()
				if i < len(ints) {
					x = ints[i]
				}
				if ty == coldata.Date {
					x %= 3_000_000
				}
				vals[i] = uint64(x)
				b.AppendInt(x)
			}
		}
		in, err := d.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{b.Finish()}, Len: n})
		if err != nil {
			t.Fatal(err)
		}
		for _, desc := range []bool{false, true} {
			var keys []uint64
			var rng2 [2]uint64
			err := d.Do(func() error {
				sc := &hashScratch{d: d}
				defer sc.release()
				key, err := sc.alloc(8 * n)
				if err != nil {
					return err
				}
				grp, err := sc.alloc(4 * n)
				if err != nil {
					return err
				}
				r, err := sc.upload([]uint64{math.MaxUint64, 0})
				if err != nil {
					return err
				}
				dv := int64(0)
				if desc {
					dv = 1
				}
				col := in.Cols[0]
				if err := d.launchGrid("gsql_q_keys", d.strided(n), int64(col.Type.Physical()), col.Nulls, int64(col.NullOffset), col.Data,
					dv, DevicePtr(0), DevicePtr(0), int64(1), int64(n), key.ptr, grp.ptr, r.ptr); err != nil {
					return err
				}
				keys = downloadWords(t, d, key.ptr, n)
				copy(rng2[:], downloadWords(t, d, r.ptr, 2))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := uint64(math.MaxUint64), uint64(0)
			for i := 0; i < n; i++ {
				if null[i] {
					continue
				}
				want := OrderKey(ty, vals[i], desc)
				if keys[i] != want {
					t.Fatalf("%s desc %v row %d (%#x): device key %#x, want %#x", ty, desc, i, vals[i], keys[i], want)
				}
				lo, hi = min(lo, want), max(hi, want)
			}
			if rng2 != [2]uint64{lo, hi} {
				t.Fatalf("%s desc %v: key range %#x, want [%#x %#x]", ty, desc, rng2, lo, hi)
			}
		}
		in.Release()
	}
}

// TestCUDAGroupQuantiles runs GroupBy with quantile aggregates beside
// COUNT(*) and SUM and compares every group with the host's stable-order
// reference: DOUBLE CONT bit for bit, DISC of DOUBLE, BIGINT (narrow:
// one packed sort; wide: two sorts) and DECIMAL; ascending and
// descending; about 1000 groups, about 500K groups (many of one row), no
// GROUP BY (both paths); NULLs and groups with no values.
func TestCUDAGroupQuantiles(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	r := rand.New(rand.NewSource(41))
	const n = 1 << 20
	dec := coldata.DecimalOf(15, 2)
	kb1, kb2 := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
	xb := coldata.NewBuilder(coldata.Float64, n)
	ib := coldata.NewBuilder(coldata.Int64, n)
	wb := coldata.NewBuilder(coldata.Int64, n)
	db := coldata.NewBuilder(dec, n)
	k1, k2 := make([]int64, n), make([]int64, n)
	xs := make([]float64, n)
	bitsOf := [4][]uint64{make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]uint64, n)}
	null := make([]bool, n)
	for i := 0; i < n; i++ {
		k1[i], k2[i] = int64(r.Intn(1000)), int64(r.Intn(500_000))
		kb1.AppendInt(k1[i])
		kb2.AppendInt(k2[i])
		// Key 7 of the first keys has no values; a tenth of the rest are
		// NULL.
		if k1[i] == 7 || r.Intn(10) == 0 {
			null[i] = true
			for _, b := range []*coldata.Builder{xb, ib, wb, db} {
				b.AppendNull()
			}
			continue
		}
		xs[i] = r.NormFloat64()*1e4 + 0.5
		if r.Intn(20) == 0 {
			xs[i] = float64(r.Intn(5)) + 0.25 // duplicates
		}
		iv, wv, dv := int64(r.Intn(100_001)-50_000), r.Int63()-r.Int63(), r.Int63n(2e12)-1e12
		xb.AppendFloat(xs[i])
		ib.AppendInt(iv)
		wb.AppendInt(wv)
		db.AppendDec(decimal.FromInt64(dv))
		bitsOf[0][i], bitsOf[1][i], bitsOf[2][i], bitsOf[3][i] = math.Float64bits(xs[i]), uint64(iv), uint64(wv), uint64(dv)
	}
	hb := coldata.NewBatch([]*coldata.Vec{kb1.Finish(), kb2.Finish(), xb.Finish(), ib.Finish(), wb.Finish(), db.Finish()}, n)
	in, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	argTypes := []coldata.Type{coldata.Float64, coldata.Int64, coldata.Int64, dec}
	// orderKeys[arg][desc]: every row's order key.
	var orderKeys [4][2][]uint64
	for a := range orderKeys {
		for dsc := range orderKeys[a] {
			ks := make([]uint64, n)
			for i := range ks {
				ks[i] = OrderKey(argTypes[a], bitsOf[a][i], dsc == 1)
			}
			orderKeys[a][dsc] = ks
		}
	}
	aggs := []GroupAgg{
		{Kind: GroupCountStar},
		{Kind: GroupQuantileCont, Arg: 2, Quantile: 0.5},
		{Kind: GroupQuantileCont, Arg: 2, Quantile: 0.3, Desc: true},
		{Kind: GroupQuantileDisc, Arg: 2, Quantile: 0.9},
		{Kind: GroupSumInt, Arg: 3},
		{Kind: GroupQuantileDisc, Arg: 3, Quantile: 0.25},
		{Kind: GroupQuantileDisc, Arg: 4, Quantile: 0.5, Desc: true},
		{Kind: GroupQuantileDisc, Arg: 5, Quantile: 1},
		{Kind: GroupQuantileCont, Arg: 2, Quantile: 1},
		{Kind: GroupQuantileDisc, Arg: 5, Quantile: 0, Desc: true},
	}
	defer func(f bool) { globalAggFast = f }(globalAggFast)
	for _, c := range []struct {
		name string
		keys []int
		of   []int64
		fast bool
	}{
		{"1000 groups", []int{0}, k1, true},
		{"500K groups", []int{1}, k2, true},
		{"no GROUP BY", nil, make([]int64, n), true},
		{"no GROUP BY, hash path", nil, make([]int64, n), false},
	} {
		globalAggFast = c.fast
		start := time.Now()
		p, err := d.GroupBy(ctx, in, c.keys, aggs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		took := time.Since(start)
		rowsOf := map[int64][]int{}
		for i, k := range c.of {
			if !null[i] {
				rowsOf[k] = append(rowsOf[k], i)
			}
		}
		for g := 0; g < p.Keys.Len; g++ {
			k := int64(0)
			if len(c.keys) > 0 {
				k = p.Keys.Cols[0].Int(g)
			}
			rows := rowsOf[k]
			for a, ag := range aggs {
				if !isQuantile(ag.Kind) {
					continue
				}
				st := &p.Aggs[a]
				if st.Count[g] != int64(len(rows)) {
					t.Fatalf("%s, key %d, aggregate %d: count %d, want %d", c.name, k, a, st.Count[g], len(rows))
				}
				if len(rows) == 0 {
					continue
				}
				dsc := 0
				if ag.Desc {
					dsc = 1
				}
				row, v := quantileRef(xs, orderKeys[ag.Arg-2][dsc], rows, ag.Quantile, ag.Kind == GroupQuantileDisc)
				if ag.Kind == GroupQuantileCont {
					if math.Float64bits(st.Float[g]) != math.Float64bits(v) {
						t.Fatalf("%s, key %d, aggregate %d (%d values): %v, want %v", c.name, k, a, len(rows), st.Float[g], v)
					}
					continue
				}
				want := hb.Cols[ag.Arg].Value(row)
				if got := st.Vals.Value(g); got != want {
					t.Fatalf("%s, key %d, aggregate %d (%d values): %v, want %v (row %d)", c.name, k, a, len(rows), got, want, row)
				}
			}
		}
		t.Logf("%s: %d groups, %d launches, %v", c.name, p.Keys.Len, p.Launches, took)
	}
	in.Release()
	requireNoLeak(t, d, "group quantiles")
}

// BenchmarkCUDARadixSort sorts 10M keys already on the device: random
// 64-bit keys (8 passes), sign-flipped BIGINTs below 2^20 (3 passes) and
// DOUBLE keys. Reports Mkeys/s.
func BenchmarkCUDARadixSort(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	const n = 10_000_000
	for _, shape := range []string{"random", "small ints", "doubles"} {
		b.Run(shape, func(b *testing.B) {
			keys := sortKeysCase(rand.New(rand.NewSource(1)), shape, n)
			kb := uploadWords(b, d, keys)
			defer kb.Release()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				got, err := d.RadixSort(ctx, kb.ptr, 0, n)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Synchronize(); err != nil {
					b.Fatal(err)
				}
				got.Release()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
		})
	}
}

// BenchmarkCUDAGroupMedian groups 10M rows of a DOUBLE by 1000 and by
// 1M BIGINT keys: COUNT alone (the hash pass), then with MEDIAN (the hash
// pass, the sort by group and value, the picks).
func BenchmarkCUDAGroupMedian(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	const n = 10_000_000
	r := rand.New(rand.NewSource(2))
	few, many, xs := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Float64, n)
	for i := 0; i < n; i++ {
		few.AppendInt(int64(r.Intn(1000)))
		many.AppendInt(int64(r.Intn(1_000_000)))
		xs.AppendFloat(r.NormFloat64() * 1e3)
	}
	in, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{few.Finish(), many.Finish(), xs.Finish()}, n))
	if err != nil {
		b.Fatal(err)
	}
	defer in.Release()
	for _, keys := range []struct {
		name string
		cols []int
	}{{"1000 groups", []int{0}}, {"1M groups", []int{1}}, {"no GROUP BY", nil}} {
		for _, aggs := range []struct {
			name string
			list []GroupAgg
		}{
			{"count", []GroupAgg{{Kind: GroupCount, Arg: 2}}},
			{"median", []GroupAgg{{Kind: GroupQuantileCont, Arg: 2, Quantile: 0.5}}},
		} {
			b.Run(keys.name+"/"+aggs.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := d.GroupBy(ctx, in, keys.cols, aggs.list); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
		}
	}
}
