package gpuexec

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

func TestRadixPasses(t *testing.T) {
	for _, c := range []struct {
		name            string
		lo, hi, and, or uint64
		sub             uint64
		shifts          []int
	}{
		{"all equal", 77, 77, 77, 77, 0, nil},
		{"one low byte", 0, 200, 0, 0xff, 0, []int{0}},
		// Keys 0x100 and 0x200: only byte 1 differs; the range needs 2
		// bytes' worth (0x100) only after subtracting: one pass either way.
		{"byte 1", 0x100, 0x200, 0, 0x300, 0, []int{8}},
		// Sign-flipped small integers straddling zero: every bit differs,
		// but the range is 16 bits wide.
		{"straddling zero", 1<<63 - 1000, 1<<63 + 50000, 0, math.MaxUint64, 1<<63 - 1000, []int{0, 8}},
		{"high byte only", 1 << 56, 3 << 56, 1 << 56, 3 << 56, 0, []int{56}},
		{"full range", 0, math.MaxUint64, 0, math.MaxUint64, 0, []int{0, 8, 16, 24, 32, 40, 48, 56}},
	} {
		sub, shifts := radixPasses(c.lo, c.hi, c.and, c.or)
		if sub != c.sub || !slices.Equal(shifts, c.shifts) {
			t.Errorf("%s: sub %#x shifts %v, want %#x %v", c.name, sub, shifts, c.sub, c.shifts)
		}
	}
}

func TestQuantilePacking(t *testing.T) {
	for _, c := range []struct {
		kmin, kmax uint64
		groups     int64
		vbits      int
		packed     bool
	}{
		{5, 5, 1, 0, true},
		{1 << 63, 1<<63 + 1000, 1000, 10, true},
		{0, math.MaxUint64, 1, 64, false},
		{0, 1<<54 - 1, 1023, 54, true},
		{0, 1<<54 - 1, 1024, 54, false}, // 1024 (the NULL group) needs 11 bits
	} {
		vbits, packed := quantilePacking(c.kmin, c.kmax, c.groups)
		if vbits != c.vbits || packed != c.packed {
			t.Errorf("%+v: vbits %d packed %v", c, vbits, packed)
		}
	}
}

// TestOrderKey: keys order as the CPU compares values (operators'
// CompareValues), reversed for DESC; -0.0 and 0.0 are one key; NaN sorts
// after +Inf.
func TestOrderKey(t *testing.T) {
	floats := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -2.5, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 1e-300, 0.5, 1, 2.5, 1e300, math.MaxFloat64, math.Inf(1)}
	ints := []int64{math.MinInt64, -1 << 40, -2, -1, 0, 1, 2, 1 << 40, math.MaxInt64}
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 2000; i++ {
		floats = append(floats, rng.NormFloat64()*math.Pow(10, float64(rng.Intn(40)-20)))
		ints = append(ints, rng.Int63()-rng.Int63())
	}
	for _, desc := range []bool{false, true} {
		for i := range floats {
			for j := range floats {
				x, y := floats[i], floats[j]
				want := cmp.Compare(x, y) // no NaN among these
				if x == y {
					want = 0 // -0.0 == 0.0
				}
				if desc {
					want = -want
				}
				got := cmp.Compare(OrderKey(coldata.Float64, math.Float64bits(x), desc), OrderKey(coldata.Float64, math.Float64bits(y), desc))
				if got != want {
					t.Fatalf("desc %v: %v vs %v: key order %d, want %d", desc, x, y, got, want)
				}
			}
		}
		for _, x := range ints {
			for _, y := range ints[:50] {
				want := cmp.Compare(x, y)
				if desc {
					want = -want
				}
				for _, ty := range []coldata.Type{coldata.Int64, coldata.Date, coldata.DecimalOf(18, 3)} {
					if got := cmp.Compare(OrderKey(ty, uint64(x), desc), OrderKey(ty, uint64(y), desc)); got != want {
						t.Fatalf("%s desc %v: %d vs %d: key order %d, want %d", ty, desc, x, y, got, want)
					}
				}
			}
		}
		f, tr := OrderKey(coldata.Bool, 0, desc), OrderKey(coldata.Bool, 1, desc)
		if (f < tr) == desc {
			t.Errorf("desc %v: FALSE key %#x, TRUE key %#x", desc, f, tr)
		}
	}
	nan := OrderKey(coldata.Float64, math.Float64bits(math.NaN()), false)
	negNaN := OrderKey(coldata.Float64, math.Float64bits(math.NaN())|1<<63, false)
	if inf := OrderKey(coldata.Float64, math.Float64bits(math.Inf(1)), false); nan <= inf || negNaN != nan {
		t.Errorf("NaN keys %#x %#x, +Inf %#x", nan, negNaN, inf)
	}
}

// sortKeysCase makes n keys of a shape.
func sortKeysCase(rng *rand.Rand, shape string, n int) []uint64 {
	keys := make([]uint64, n)
	for i := range keys {
		switch shape {
		case "random":
			keys[i] = rng.Uint64()
		case "dups":
			keys[i] = uint64(rng.Intn(7)) << 60
		case "small ints":
			keys[i] = OrderKey(coldata.Int64, uint64(int64(rng.Intn(20001)-10000)), false)
		case "doubles":
			x := rng.NormFloat64() * 1e6
			switch rng.Intn(20) {
			case 0:
				x = math.Copysign(0, -1)
			case 1:
				x = 0
			case 2:
				x = float64(rng.Intn(5))
			}
			keys[i] = OrderKey(coldata.Float64, math.Float64bits(x), i%2 == 0)
		case "equal":
			keys[i] = 0xdeadbeef
		}
	}
	return keys
}

// TestFakeRadixSort runs the sort's host side over the kernels' Go twins
// and checks it against a stable sort: tiles, the scan's carries, the
// passes skipped, given rows.
func TestFakeRadixSort(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(11))
	for _, c := range []struct {
		shape  string
		n      int
		passes int // -1: not checked
	}{
		{"random", 0, 0}, {"random", 1, 0}, {"random", 4097, 8}, {"random", 40000, 8},
		{"dups", 40000, 1}, {"small ints", 9000, 2}, {"doubles", 40000, -1}, {"equal", 5000, 0},
	} {
		for _, withRows := range []bool{false, true} {
			keys := sortKeysCase(rng, c.shape, c.n)
			rows := make([]uint32, c.n)
			for i := range rows {
				rows[i] = uint32(i)
				if withRows {
					rows[i] = uint32(c.n - i + 7)
				}
			}
			kb := uploadWords(t, d, keys)
			var rp DevicePtr
			var rb *Buffer
			if withRows {
				rb = uploadRaw(t, d, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(rows))), 4*len(rows)))
				rp = rb.ptr
			}
			got, err := d.RadixSort(ctx, kb.ptr, rp, c.n)
			kb.Release()
			if rb != nil {
				rb.Release()
			}
			if err != nil {
				t.Fatalf("%s %d: %v", c.shape, c.n, err)
			}
			requireStableSort(t, d, got, keys, rows, fmt.Sprintf("%s %d rows %v", c.shape, c.n, withRows))
			if c.passes >= 0 && got.Passes != c.passes {
				t.Errorf("%s %d: %d passes, want %d", c.shape, c.n, got.Passes, c.passes)
			}
			got.Release()
		}
	}
	if _, err := d.RadixSort(ctx, 0, 0, 5); err == nil {
		t.Error("a sort without keys ran")
	}
	if _, err := d.RadixSort(ctx, 0, 0, -1); err == nil {
		t.Error("a sort of -1 rows ran")
	}
	requireNoLeak(t, d, "radix sort")
}

func uploadRaw(t testing.TB, d *Device, raw []byte) *Buffer {
	t.Helper()
	b, err := d.Alloc(uint64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 0 {
		if err := d.CopyToDevice(b.ptr, raw, nil); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func uploadWords(t testing.TB, d *Device, w []uint64) *Buffer {
	raw := make([]byte, 8*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint64(raw[8*i:], x)
	}
	return uploadRaw(t, d, raw)
}

func downloadWords(t testing.TB, d *Device, p DevicePtr, n int) []uint64 {
	t.Helper()
	raw := make([]byte, 8*n)
	if n > 0 {
		if err := d.CopyToHost(raw, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return out
}

// quantileRef is the host's quantile of group values (rows in input
// order, no NULLs), as operators.quantileInto computes it over a stable
// order: DISC the row picked, CONT the value.
func quantileRef(vals []float64, keys []uint64, rows []int, q float64, disc bool) (row int, v float64) {
	idx := slices.Clone(rows)
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	n := len(idx)
	if disc {
		k := max(int(math.Ceil(q*float64(n)))-1, 0)
		return idx[k], 0
	}
	pos := q * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	x, y := vals[idx[lo]], vals[idx[hi]]
	if lo == hi {
		return 0, x
	}
	return 0, x + (pos-float64(lo))*(y-x)
}

// TestFakeQuantiles runs the grouped quantile's host side (group ranks,
// keys, the packed or two-sort order, runs, picks) over the kernels' Go
// twins against a stable sort per group: DOUBLE CONT (bit for bit) and
// DISC of DOUBLE, BIGINT, DECIMAL and BOOL, ascending and descending,
// with NULLs, all-NULL and one-row groups, one group and many.
func TestFakeQuantiles(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(3))
	dec := coldata.DecimalOf(18, 2)
	for _, c := range []struct {
		name   string
		ty     coldata.Type
		n      int
		groups int // 0: no GROUP BY (one group, no slots)
		wide   bool
	}{
		{"double one group", coldata.Float64, 9000, 0, true},
		{"double 7 groups", coldata.Float64, 40000, 7, true},
		{"double many groups", coldata.Float64, 6000, 3000, true},
		{"bigint narrow", coldata.Int64, 20000, 100, false},
		{"bigint wide", coldata.Int64, 5000, 50, true},
		{"decimal", dec, 8000, 300, false},
		{"bool", coldata.Bool, 3000, 40, false},
	} {
		groups := max(c.groups, 1)
		grp := make([]int, c.n)
		vb := coldata.NewBuilder(c.ty, c.n)
		vals := make([]float64, c.n)
		bitsOf := make([]uint64, c.n)
		null := make([]bool, c.n)
		for i := range grp {
			grp[i] = rng.Intn(groups)
			if groups > 3 {
				switch grp[i] % 4 {
				case 1:
					grp[i] = 1 // group 1: every value NULL
				case 3:
					if groups > 3 && rng.Intn(8) != 0 {
						grp[i] = 3 // group 3: mostly rows of its own
					}
				}
			}
			if rng.Intn(10) == 0 || (groups > 3 && grp[i] == 1) {
				null[i] = true
				vb.AppendNull()
				continue
			}
			switch c.ty.Physical() {
			case coldata.Float64:
				x := rng.NormFloat64() * 1e3
				if rng.Intn(10) == 0 {
					x = float64(rng.Intn(3)) // duplicates
				}
				vals[i], bitsOf[i] = x, math.Float64bits(x)
				vb.AppendFloat(x)
			case coldata.Int64:
				x := int64(rng.Intn(2001) - 1000)
				if c.wide {
					x = rng.Int63() - rng.Int63()
				}
				bitsOf[i] = uint64(x)
				vb.AppendInt(x)
			case coldata.Decimal:
				x := int64(rng.Intn(2_000_000) - 1_000_000)
				bitsOf[i] = uint64(x)
				vb.AppendDec(decimal.FromInt64(x))
			case coldata.Bool:
				bitsOf[i] = uint64(rng.Intn(2))
				vb.AppendBool(bitsOf[i] == 1)
			}
		}
		in, err := d.Upload(ctx, &coldata.Batch{Cols: []*coldata.Vec{vb.Finish()}, Len: c.n})
		if err != nil {
			t.Fatal(err)
		}
		// Slots: group g at slot perm[g] of a table of groups+5 slots.
		cap := int64(groups + 5)
		perm := rng.Perm(int(cap))[:groups]
		slotRaw := make([]byte, 4*c.n)
		for i, g := range grp {
			binary.LittleEndian.PutUint32(slotRaw[4*i:], uint32(perm[g]))
		}
		occRaw := make([]byte, 4*groups)
		for g, s := range perm {
			binary.LittleEndian.PutUint32(occRaw[4*g:], uint32(s))
		}
		slotOf, occ := uploadRaw(t, d, slotRaw), uploadRaw(t, d, occRaw)
		for _, desc := range []bool{false, true} {
			keys := make([]uint64, c.n)
			byGroup := make([][]int, groups)
			for i := range keys {
				keys[i] = OrderKey(c.ty, bitsOf[i], desc)
				if !null[i] {
					byGroup[grp[i]] = append(byGroup[grp[i]], i)
				}
			}
			for _, q := range []float64{0, 0.25, 0.5, 0.9, 1} {
				for _, disc := range []bool{false, true} {
					if !disc && c.ty != coldata.Float64 {
						continue
					}
					var got []uint64
					err := d.Do(func() error {
						sc := &hashScratch{d: d}
						defer sc.release()
						var slots, rank DevicePtr
						if c.groups > 0 {
							r, err := sc.alloc(uint64(4 * cap))
							if err != nil {
								return err
							}
							if err := d.launchGrid("gsql_q_rank", d.strided(int64(groups)), occ.ptr, int64(groups), r.ptr); err != nil {
								return err
							}
							slots, rank = slotOf.ptr, r.ptr
						}
						res := &GroupPartial{}
						qr, err := d.quantileSortOn(ctx, sc, in.Cols[0], desc, slots, rank, int64(groups), int64(c.n), res)
						if err != nil {
							return err
						}
						out, err := sc.alloc(uint64(8 * groups))
						if err != nil {
							return err
						}
						isDisc := int64(0)
						if disc {
							isDisc = 1
						}
						if err := d.launchGrid("gsql_q_pick", d.strided(int64(groups)), in.Cols[0].Data, isDisc, q, qr.start.ptr, qr.end.ptr,
							qr.rows, int64(groups), out.ptr, out.ptr); err != nil {
							return err
						}
						got = downloadWords(t, d, out.ptr, groups)
						return nil
					})
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					for g := 0; g < groups; g++ {
						if len(byGroup[g]) == 0 {
							if got[g] != 0 {
								t.Fatalf("%s desc %v q %v: empty group %d picked %#x", c.name, desc, q, g, got[g])
							}
							continue
						}
						row, v := quantileRef(vals, keys, byGroup[g], q, disc)
						if disc && got[g] != uint64(row) {
							t.Fatalf("%s desc %v q %v disc: group %d (%d values) picked row %d, want %d", c.name, desc, q, g, len(byGroup[g]), got[g], row)
						}
						if !disc && got[g] != math.Float64bits(v) {
							t.Fatalf("%s desc %v q %v cont: group %d got %v, want %v", c.name, desc, q, g, math.Float64frombits(got[g]), v)
						}
					}
				}
			}
		}
		slotOf.Release()
		occ.Release()
		in.Release()
	}
	requireNoLeak(t, d, "quantiles")
}

// requireStableSort checks a RadixSort result against a stable sort of
// keys on the host: at every position the key and the row it came from.
func requireStableSort(t *testing.T, d *Device, got *SortedPairs, keys []uint64, rows []uint32, what string) {
	t.Helper()
	n := len(keys)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	gk := downloadWords(t, d, got.Keys.ptr, n)
	gr := make([]uint32, n)
	if n > 0 {
		if err := d.CopyToHost(unsafe.Slice((*byte)(unsafe.Pointer(&gr[0])), 4*n), got.Rows.ptr, nil); err != nil {
			t.Fatal(err)
		}
	}
	for j, i := range idx {
		if gk[j] != keys[i] || gr[j] != rows[i] {
			t.Fatalf("%s: position %d holds key %#x row %d, want %#x row %d", what, j, gk[j], gr[j], keys[i], rows[i])
		}
	}
}
