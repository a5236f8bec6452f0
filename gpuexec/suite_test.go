package gpuexec

// The round-trip suite runs against any *Device: the fake (host memory) one
// in CI and the real one in the cuda build (cuda_test.go).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

var multibyte = []string{"", "a", "é", "日本語", "Привет", "🙂🙃", "naïve café", "x y", "ß", "\u0000nul"}

// randVec makes a random column of type t with n rows.
func randVec(r *rand.Rand, t coldata.Type, n int, nulls bool) *coldata.Vec {
	b := coldata.NewBuilder(t, n)
	for i := 0; i < n; i++ {
		if t == coldata.Null || (nulls && r.Intn(4) == 0) {
			b.AppendNull()
			continue
		}
		switch t {
		case coldata.Bool:
			b.AppendBool(r.Intn(2) == 0)
		case coldata.Int64:
			b.AppendInt(r.Int63() - r.Int63())
		case coldata.Float64:
			switch r.Intn(20) {
			case 0:
				b.AppendFloat(math.NaN())
			case 1:
				b.AppendFloat(math.Copysign(0, -1))
			case 2:
				b.AppendFloat(math.Inf(1))
			default:
				b.AppendFloat(r.NormFloat64() * 1e6)
			}
		case coldata.String:
			switch r.Intn(10) {
			case 0:
				b.AppendString("")
			case 1:
				b.AppendString(multibyte[r.Intn(len(multibyte))] + multibyte[r.Intn(len(multibyte))])
			default:
				k := r.Intn(24)
				s := make([]byte, k)
				for j := range s {
					s[j] = byte('a' + r.Intn(26))
				}
				b.AppendBytes(s)
			}
		}
	}
	v := b.Finish()
	if nulls && v.Nulls == nil && t != coldata.Null {
		v.Nulls = coldata.NewValidBitmap(n) // a bitmap with no NULL in it
	}
	return v
}

var allTypes = []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String, coldata.Null}

// randBatch makes a batch with one or two columns of every type, some with
// NULLs, one constant, one a zero-copy host slice (string offsets not
// starting at 0).
func randBatch(r *rand.Rand, n int) *coldata.Batch {
	if n > 1<<22 {
		return randBatchLight(r, n)
	}
	var cols []*coldata.Vec
	for _, t := range allTypes {
		cols = append(cols, randVec(r, t, n, r.Intn(2) == 0))
	}
	cols = append(cols, randVec(r, coldata.String, n, true))
	// A host slice at a multiple of 8 shares its parent's buffers.
	parent := randVec(r, coldata.String, n+16, true)
	cols = append(cols, coldata.Slice(parent, 16, 16+n))
	cols = append(cols, coldata.NewConst(coldata.Int64, int64(42), n))
	cols = append(cols, coldata.NewConst(coldata.String, "ünï", n))
	return coldata.NewBatch(cols, n)
}

// randBatchLight is randBatch for very large n: one column of each stored
// type, NULLs in two of them.
func randBatchLight(r *rand.Rand, n int) *coldata.Batch {
	cols := []*coldata.Vec{
		randVec(r, coldata.Int64, n, true),
		randVec(r, coldata.String, n, true),
		randVec(r, coldata.Bool, n, false),
		randVec(r, coldata.Float64, n, false),
	}
	return coldata.NewBatch(cols, n)
}

// requireEqualBatch checks got against want bit for bit: values, NULL bits
// of every row, string offsets (rebased) and chars, and whether each column
// has a validity bitmap.
func requireEqualBatch(t testing.TB, want, got *coldata.Batch, what string) {
	t.Helper()
	if want.Len != got.Len || len(want.Cols) != len(got.Cols) {
		t.Fatalf("%s: got %d rows x %d cols, want %d x %d", what, got.Len, len(got.Cols), want.Len, len(want.Cols))
	}
	for c := range want.Cols {
		w, g := want.Cols[c].Materialize(), got.Cols[c]
		n := want.Len
		if w.Type != g.Type || g.Len != n {
			t.Fatalf("%s col %d: got %v/%d, want %v/%d", what, c, g.Type, g.Len, w.Type, n)
		}
		if (w.Nulls == nil) != (g.Nulls == nil) && n > 0 {
			t.Fatalf("%s col %d: bitmap present %v, want %v", what, c, g.Nulls != nil, w.Nulls != nil)
		}
		for i := 0; i < n; i++ {
			if w.IsNull(i) != g.IsNull(i) {
				t.Fatalf("%s col %d row %d: null %v, want %v", what, c, i, g.IsNull(i), w.IsNull(i))
			}
		}
		if g.Nulls != nil && n&7 != 0 {
			if last := g.Nulls[coldata.BitmapLen(n)-1]; last>>(uint(n)&7) != 0 {
				t.Fatalf("%s col %d: trailing bitmap bits set: %08b", what, c, last)
			}
		}
		switch w.Type {
		case coldata.Bool:
			for i := 0; i < n; i++ {
				if w.Bools[i] != g.Bools[i] {
					t.Fatalf("%s col %d row %d: %d, want %d", what, c, i, g.Bools[i], w.Bools[i])
				}
			}
		case coldata.Int64:
			for i := 0; i < n; i++ {
				if w.Ints[i] != g.Ints[i] {
					t.Fatalf("%s col %d row %d: %d, want %d", what, c, i, g.Ints[i], w.Ints[i])
				}
			}
		case coldata.Float64:
			for i := 0; i < n; i++ {
				if math.Float64bits(w.Floats[i]) != math.Float64bits(g.Floats[i]) {
					t.Fatalf("%s col %d row %d: %v, want %v", what, c, i, g.Floats[i], w.Floats[i])
				}
			}
		case coldata.String:
			if g.Offsets[0] != 0 {
				t.Fatalf("%s col %d: offsets start at %d", what, c, g.Offsets[0])
			}
			base := w.Offsets[0]
			for i := 0; i <= n; i++ {
				if w.Offsets[i]-base != g.Offsets[i] {
					t.Fatalf("%s col %d: offset %d = %d, want %d", what, c, i, g.Offsets[i], w.Offsets[i]-base)
				}
			}
			if string(w.Bytes[base:w.Offsets[n]]) != string(g.Bytes[:g.Offsets[n]]) {
				t.Fatalf("%s col %d: chars differ", what, c)
			}
		}
	}
}

func requireNoLeak(t testing.TB, d *Device, what string) {
	t.Helper()
	if st := d.Stats().Memory; st.InUse != 0 {
		t.Fatalf("%s: pool has %d bytes in use after release (%+v)", what, st.InUse, st)
	}
}

// runRoundTrips is the device round-trip suite.
func runRoundTrips(t *testing.T, d *Device, sizes []int, seed int64) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed))
	for _, n := range sizes {
		hb := randBatch(r, n)
		db, err := d.Upload(ctx, hb)
		if err != nil {
			t.Fatalf("upload %d rows: %v", n, err)
		}
		got, err := d.Download(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, hb, got, "upload/download")

		// Split: zero-copy views, downloaded (packed on the device first).
		splits := randSplits(r, n)
		views, err := Split(db, splits)
		if err != nil {
			t.Fatal(err)
		}
		ranges, _ := SplitRanges(n, splits)
		for i, v := range views {
			want := coldata.SliceBatch(hb, ranges[i][0], ranges[i][1])
			got, err := d.Download(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			requireEqualBatch(t, want, got, "split")
		}
		// ContiguousSplit of a view (bit offsets and non-zero first offsets
		// in the source).
		lo := min(n, 3)
		view, err := Slice(db, lo, n)
		if err != nil {
			t.Fatal(err)
		}
		// One view concatenated alone: its rows, packed from bit 0.
		one, err := d.Concatenate([]*DeviceBatch{view})
		if err != nil {
			t.Fatal(err)
		}
		for c, col := range one.Cols {
			if col.NullOffset != 0 {
				t.Fatalf("concatenate one view: column %d starts at validity bit %d", c, col.NullOffset)
			}
		}
		if got, err := d.Download(ctx, one); err != nil {
			t.Fatal(err)
		} else {
			requireEqualBatch(t, coldata.SliceBatch(hb, lo, n), got, "concatenate one view")
		}
		one.Release()
		vs := randSplits(r, n-lo)
		parts, err := d.ContiguousSplit(view, vs)
		if err != nil {
			t.Fatal(err)
		}
		vr, _ := SplitRanges(n-lo, vs)
		for i, p := range parts {
			want := coldata.SliceBatch(hb, lo+vr[i][0], lo+vr[i][1])
			got, err := d.Download(ctx, p.DeviceBatch)
			if err != nil {
				t.Fatal(err)
			}
			requireEqualBatch(t, want, got, "contiguous split")
			// The metadata and buffer unpack to the same columns.
			u, err := Unpack(p.Metadata(), p.Data())
			if err != nil {
				t.Fatal(err)
			}
			for c := range u.Cols {
				if u.Cols[c] != p.Cols[c] {
					t.Fatalf("unpack col %d: %+v, want %+v", c, u.Cols[c], p.Cols[c])
				}
			}
		}
		// Concatenate the pieces of a Split back together (views in).
		cat, err := d.Concatenate(views)
		if err != nil {
			t.Fatal(err)
		}
		got, err = d.Download(ctx, cat)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, hb, got, "concatenate")
		// A concatenation is packed: its validity starts at bit 0, what
		// operators.DeviceCompute relies on to realign a bit-shifted view
		// for its kernels.
		for c, col := range cat.Cols {
			if col.NullOffset != 0 {
				t.Fatalf("concatenate: column %d starts at validity bit %d", c, col.NullOffset)
			}
		}
		// Concatenate the contiguous parts with the head rows.
		head, _ := Slice(db, 0, lo)
		all := []*DeviceBatch{head}
		for _, p := range parts {
			all = append(all, p.DeviceBatch)
		}
		cat2, err := d.Concatenate(all)
		if err != nil {
			t.Fatal(err)
		}
		got, err = d.Download(ctx, cat2)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, hb, got, "concatenate parts")

		// Chunked pack of a view through a 1 MiB bounce buffer.
		var packed []byte
		meta, err := d.ChunkedPack(ctx, view, MinBounceSize, func(c []byte) error {
			packed = append(packed, c...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err = UnpackHost(meta, packed)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, coldata.SliceBatch(hb, lo, n), got, "chunked pack")

		for _, b := range append(views, db, view, head, cat, cat2) {
			if err := b.Release(); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range parts {
			p.Release()
		}
		requireNoLeak(t, d, "round trip")
	}
}

func randSplits(r *rand.Rand, n int) []int {
	k := r.Intn(4)
	s := make([]int, k)
	for i := range s {
		s[i] = r.Intn(n + 1)
	}
	for i := 1; i < k; i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if n > 0 && r.Intn(3) == 0 {
		s = append([]int{0}, append(s, n)...) // empty first and last ranges
	}
	return s
}

// runErrorCases checks the seed's error contract on a device.
func runErrorCases(t *testing.T, d *Device) {
	ctx := context.Background()
	hb := randBatch(rand.New(rand.NewSource(1)), 10)
	db, err := d.Upload(ctx, hb)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	for _, bad := range [][]int{{11}, {-1}, {2, 11}} {
		if _, err := Split(db, bad); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Split %v: %v, want ErrOutOfRange", bad, err)
		}
		if _, err := d.ContiguousSplit(db, bad); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("ContiguousSplit %v: %v, want ErrOutOfRange", bad, err)
		}
	}
	if _, err := Split(db, []int{5, 2}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("decreasing splits: %v", err)
	}
	if _, err := d.ContiguousSplit(db, []int{5, 2}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("decreasing splits: %v", err)
	}
	if _, err := Slice(db, 4, 11); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("slice: %v", err)
	}
	if _, err := d.ChunkedPack(ctx, db, MinBounceSize-1, func([]byte) error { return nil }); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("small bounce: %v", err)
	}
	small, err := d.Alloc(1024)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewChunkedPacker(db, small); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("small bounce buffer: %v", err)
	}
	small.Release()
	other, err := d.Upload(ctx, coldata.NewBatch([]*coldata.Vec{coldata.NewVec(coldata.Int64, 3)}, 3))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Concatenate([]*DeviceBatch{db, other}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("concatenate mismatched: %v", err)
	}
	other.Release()
	if err := other.Release(); !errors.Is(err, ErrReleased) {
		t.Errorf("double release: %v", err)
	}
	if _, err := d.Download(ctx, other); !errors.Is(err, ErrReleased) {
		t.Errorf("download released: %v", err)
	}
	bad := coldata.NewBatch([]*coldata.Vec{{Type: coldata.Int64, Len: 5, Ints: []int64{1}}}, 5)
	if _, err := d.Upload(ctx, bad); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("short host vector: %v", err)
	}
	if _, err := Unpack([]byte("garbage"), 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("unpack garbage: %v", err)
	}
}

// runCompileCache checks the memory and disk caches of Compile.
func runCompileCache(t *testing.T, d *Device, reopen func() *Device) {
	src := Source{Name: "probe.cu", Code: `extern "C" __global__ void probe_add(long long* x, long long n) { long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) x[i] += i; }`}
	m1, err := d.Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	if m1.FromCache != "" {
		t.Fatalf("first compile from cache %q", m1.FromCache)
	}
	m2, err := d.Compile(src)
	if err != nil || m2.FromCache != "memory" {
		t.Fatalf("second compile: %v, from %q", err, m2.FromCache)
	}
	d2 := reopen()
	defer d2.Close()
	m3, err := d2.Compile(src)
	if err != nil || m3.FromCache != "disk" {
		t.Fatalf("compile on a new device: %v, from %q", err, m3.FromCache)
	}
	k, err := m3.Kernel("probe_add")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d2.Alloc(8 * 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Memset(buf.Ptr(), 0, buf.Size(), nil); err != nil {
		t.Fatal(err)
	}
	if err := k.Launch(Grid1D(100, 64), buf, int64(100)); err != nil {
		t.Fatal(err)
	}
	host := make([]byte, 800)
	if err := d2.CopyToHost(host, buf.Ptr(), nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if v := binary.LittleEndian.Uint64(host[8*i:]); v != uint64(i) {
			t.Fatalf("probe_add: x[%d] = %d", i, v)
		}
	}
	if d2.Stats().Launches == 0 {
		t.Fatal("no launch counted")
	}
	if _, err := m3.Kernel("no_such_kernel"); err == nil {
		t.Fatal("missing kernel found")
	}
	if err := k.Launch(Grid1D(1, 1), "a string"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("bad argument: %v", err)
	}
	buf.Release()
	if _, err := d.Compile(Source{Name: "bad.cu", Code: "#error nope\n"}); err == nil {
		t.Fatal("bad source compiled")
	}
}

// UploadBatches packs several host batches as one device batch: rows in
// order, each column's bitmap assembled across parts that start at any bit
// (some with NULLs, some without), string offsets shifted past the earlier
// parts' characters (sliced parents included), constants materialised.
func TestUploadBatchesConcatenates(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	r := rand.New(rand.NewSource(21))
	cases := []struct {
		name string
		rows []int
		make func(*rand.Rand, int) *coldata.Batch
	}{
		{"one", []int{100}, randBatch},
		{"unaligned", []int{13, 0, 8, 1, 3000, 7}, randBatch},
		{"empty parts", []int{0, 0}, randBatch},
		// Over the 16 MB at which packing goes parallel.
		{"parallel", []int{700_001, 5, 600_000}, randBatchLight},
	}
	for _, c := range cases {
		var parts []*coldata.Batch
		for _, n := range c.rows {
			parts = append(parts, c.make(r, n))
		}
		db, err := d.UploadBatches(ctx, parts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := d.Download(ctx, db)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		db.Release()
		requireEqualBatch(t, coldata.Concat(parts, len(parts[0].Cols)), got, c.name)
	}
	// Parts whose columns differ are refused, not packed.
	a, b := randBatchLight(r, 10), randBatchLight(r, 10)
	b.Cols[0], b.Cols[1] = b.Cols[1], b.Cols[0]
	if _, err := d.UploadBatches(ctx, []*coldata.Batch{a, b}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("mismatched column types: %v", err)
	}
	if _, err := d.UploadBatches(ctx, []*coldata.Batch{a, {Cols: a.Cols[:2], Len: 10}}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("mismatched column counts: %v", err)
	}
	if _, err := d.UploadBatches(ctx, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("no batches: %v", err)
	}
}

// A staged pack goes up in pieces of whole columns, each copy started as
// soon as its columns are packed: with pieces of one byte, one copy a
// column (the last one taking the padding after it), the same rows as one
// copy, and the whole pack counted once.
func TestUploadInPieces(t *testing.T) {
	defer func(p int64) { uploadPiece = p }(uploadPiece)
	ctx := context.Background()
	r := rand.New(rand.NewSource(25))
	parts := []*coldata.Batch{randBatch(r, 3000), randBatch(r, 0), randBatch(r, 77)}
	whole := coldata.Concat(parts, len(parts[0].Cols))
	size, err := PackedSize(whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, piece := range []int64{1, int64(size / 3), 1 << 40} {
		uploadPiece = piece
		d, f := newFakeDevice(t, Options{})
		before := f.h2dCalls()
		db, err := d.UploadBatches(ctx, parts)
		if err != nil {
			t.Fatal(err)
		}
		copies := f.h2dCalls() - before
		switch {
		case piece == 1 && copies != len(whole.Cols):
			t.Errorf("pieces of 1 byte: %d copies for %d columns", copies, len(whole.Cols))
		case piece > int64(size) && copies != 1:
			t.Errorf("one piece: %d copies", copies)
		}
		if got := d.Stats().BytesToDevice; got != uint64(size) {
			t.Errorf("piece %d: %d bytes counted for a pack of %d", piece, got, size)
		}
		got, err := d.Download(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, whole, got, fmt.Sprintf("uploaded in pieces of %d bytes", piece))
		db.Release()
		requireNoLeak(t, d, "upload in pieces")
		d.Close()
	}
}

// A pack over the staging limit goes up a column at a time through the
// staging buffer (a column over the limit through Go memory), with the
// same result as one staged copy.
func TestUploadByColumn(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(23))
	parts := []*coldata.Batch{randBatch(r, 4000), randBatch(r, 13), randBatch(r, 2500)}
	whole := coldata.Concat(parts, len(parts[0].Cols))
	size, err := PackedSize(whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []uint64{size / 3, 4 << 10} {
		d, _ := newFakeDevice(t, Options{StagingLimit: limit})
		db, err := d.UploadBatches(ctx, parts)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Stats().BytesToDevice; got >= uint64(size) {
			t.Errorf("staging limit %d: %d bytes sent for a pack of %d (padding sent too?)", limit, got, size)
		}
		got, err := d.Download(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		requireEqualBatch(t, whole, got, fmt.Sprintf("uploaded by column, staging limit %d", limit))
		db.Release()
		requireNoLeak(t, d, "upload by column")
		d.Close()
	}
}

// GroupByTop refuses a top over a term the device does not order by (a
// string MIN, an AVG of a MIN, a string key, one out of range) or that
// asks for no groups, with ErrInvalidArgument, before any work.
func TestGroupByTopRejectsBadTop(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	db, err := d.Upload(ctx, randBatchLight(rand.New(rand.NewSource(2)), 100))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Release()
	aggs := []GroupAgg{{Kind: GroupSumInt, Arg: 0}, {Kind: GroupCountStar}, {Kind: GroupMinString, Arg: 1}, {Kind: GroupMinInt, Arg: 0}}
	for _, top := range []GroupTop{{Agg: 2, K: 3}, {Agg: 3, Avg: true, K: 3}, {Agg: 0, Avg: true, AvgScale: 5, K: 3},
		{Agg: 4, K: 3}, {Agg: -2, K: 3}, {Agg: 1, K: 0}, {Agg: 1, Key: true, K: 3}, {Agg: 2, Key: true, K: 3}} {
		if _, err := d.GroupByTop(ctx, db, []int{0, 1}, aggs, &top); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("top %+v: %v", top, err)
		}
	}
}

// A batch that must be packed before it comes down, on a pool with no
// room for its packed copy, comes down in pieces with DownloadInPieces:
// the same rows as the whole, where Download runs out of memory.
func TestDownloadInPiecesUnderPoolLimit(t *testing.T) {
	ctx := context.Background()
	host := randBatchLight(rand.New(rand.NewSource(31)), 1<<16)
	size, err := PackedSize(host)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := newFakeDevice(t, Options{PoolLimit: uint64(size) * 3 / 2, SlabSize: 64 << 10})
	defer d.Close()
	db, err := d.Upload(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	view, err := Slice(db, 1, db.Len) // not packed: Download packs it first
	db.Release()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Download(ctx, view); !IsOutOfMemory(err) {
		t.Fatalf("Download of the view on a full pool: %v, want out of memory", err)
	}
	got, err := d.DownloadInPieces(ctx, view)
	if err != nil {
		t.Fatal(err)
	}
	view.Release()
	requireEqualBatch(t, coldata.SliceBatch(host, 1, host.Len), got, "downloaded in pieces")
	requireNoLeak(t, d, "download in pieces")
}
