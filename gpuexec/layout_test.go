package gpuexec

import (
	"errors"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
)

func TestPackLayout(t *testing.T) {
	l, err := NewPackLayout(10, []ColumnSpec{
		{Type: coldata.Int64, HasNulls: true},
		{Type: coldata.String, Chars: 33},
		{Type: coldata.Bool},
		{Type: coldata.Null},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ColumnLayout{
		{Type: coldata.Int64, Len: 10, Nulls: Region{0, 2}, Offsets: absent, Data: Region{256, 80}},
		{Type: coldata.String, Len: 10, Nulls: absent, Offsets: Region{512, 44}, Data: Region{768, 33}},
		{Type: coldata.Bool, Len: 10, Nulls: absent, Offsets: absent, Data: Region{1024, 10}},
		{Type: coldata.Null, Len: 10, Nulls: Region{1280, 2}, Offsets: absent, Data: absent},
	}
	for i := range want {
		if l.Cols[i] != want[i] {
			t.Errorf("col %d: %+v, want %+v", i, l.Cols[i], want[i])
		}
	}
	if l.Size != 1536 {
		t.Errorf("size %d", l.Size)
	}
	meta, _ := l.MarshalBinary()
	back, err := UnmarshalPackLayout(meta)
	if err != nil {
		t.Fatal(err)
	}
	if back.Size != l.Size || back.Rows != l.Rows || len(back.Cols) != 4 || back.Cols[1] != l.Cols[1] {
		t.Fatalf("round trip: %+v", back)
	}
	if _, err := NewPackLayout(1, []ColumnSpec{{Type: coldata.String, Chars: 1 << 31}}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("chars over int32: %v", err)
	}
	if _, err := NewPackLayout(-1, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative rows: %v", err)
	}
}

// Corrupt metadata is an error, never a panic.
func TestPackMetadataCorrupt(t *testing.T) {
	l, _ := NewPackLayout(100, []ColumnSpec{{Type: coldata.String, HasNulls: true, Chars: 500}, {Type: coldata.Float64}})
	meta, _ := l.MarshalBinary()
	for n := 0; n < len(meta); n++ {
		if _, err := UnmarshalPackLayout(meta[:n]); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		m := append([]byte(nil), meta...)
		for k := 0; k < 1+r.Intn(3); k++ {
			m[r.Intn(len(m))] ^= byte(1 << r.Intn(8))
		}
		if got, err := UnmarshalPackLayout(m); err == nil {
			// Whatever passes validation must describe regions inside Size.
			for _, c := range got.Cols {
				if c.validate(got.Size) != nil {
					t.Fatalf("accepted invalid layout %+v", got)
				}
			}
			// and unpack on the host without panicking.
			if got.Size < 1<<20 {
				UnpackHost(m, make([]byte, got.Size))
			}
		}
	}
}

func FuzzUnpackHost(f *testing.F) {
	l, _ := NewPackLayout(9, []ColumnSpec{{Type: coldata.String, HasNulls: true, Chars: 20}, {Type: coldata.Int64}})
	meta, _ := l.MarshalBinary()
	f.Add(meta, make([]byte, l.Size))
	f.Fuzz(func(t *testing.T, meta, data []byte) {
		UnpackHost(meta, data) // must not panic
	})
}

func TestValidateSplits(t *testing.T) {
	// The seed's example: 10 rows, splits {2, 5, 9} -> 4 ranges.
	r, err := SplitRanges(10, []int{2, 5, 9})
	if err != nil || len(r) != 4 || r[0] != [2]int{0, 2} || r[1] != [2]int{2, 5} || r[2] != [2]int{5, 9} || r[3] != [2]int{9, 10} {
		t.Fatalf("%v %v", r, err)
	}
	if r, _ := SplitRanges(10, nil); len(r) != 1 || r[0] != [2]int{0, 10} {
		t.Fatalf("no splits: %v", r)
	}
	if r, _ := SplitRanges(0, []int{0, 0}); len(r) != 3 {
		t.Fatalf("empty: %v", r)
	}
	cases := []struct {
		splits []int
		want   error
	}{
		{[]int{11}, ErrOutOfRange}, {[]int{-1}, ErrOutOfRange}, {[]int{3, 2}, ErrInvalidArgument},
		{[]int{2, 2, 10}, nil}, {[]int{0, 10}, nil},
	}
	for _, c := range cases {
		err := ValidateSplits(10, c.splits)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%v: %v, want %v", c.splits, err, c.want)
		}
		var se *SplitError
		if err != nil && !errors.As(err, &se) {
			t.Errorf("%v: not a *SplitError", c.splits)
		}
	}
}

// naiveCopyBits is the bit-at-a-time definition of CopyBits.
func naiveCopyBits(dst []byte, dstBit int64, src []byte, srcBit, n int64) {
	if n <= 0 {
		return
	}
	for i := int64(0); i < n; i++ {
		v := src == nil || src[(srcBit+i)>>3]&(1<<uint((srcBit+i)&7)) != 0
		p := dstBit + i
		if v {
			dst[p>>3] |= 1 << uint(p&7)
		} else {
			dst[p>>3] &^= 1 << uint(p&7)
		}
	}
	end := dstBit + n
	if end&7 != 0 {
		dst[end>>3] &= byte(1)<<uint(end&7) - 1
	}
}

func TestCopyBits(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 20000; i++ {
		n := int64(r.Intn(70))
		srcBit, dstBit := int64(r.Intn(20)), int64(r.Intn(20))
		src := make([]byte, (srcBit+n+7)/8+1)
		r.Read(src)
		if r.Intn(10) == 0 {
			src = nil
		}
		a := make([]byte, (dstBit+n+7)/8+1)
		r.Read(a)
		b := append([]byte(nil), a...)
		CopyBits(a, dstBit, src, srcBit, n)
		naiveCopyBits(b, dstBit, src, srcBit, n)
		if string(a) != string(b) {
			t.Fatalf("n=%d src@%d dst@%d: %08b, want %08b", n, srcBit, dstBit, a, b)
		}
	}
}

func TestCacheKey(t *testing.T) {
	s := Source{Code: "x", Options: []string{"-a"}}
	k := CacheKey(s, 90, "13.0")
	if k != CacheKey(s, 90, "13.0") || k == CacheKey(s, 80, "13.0") || k == CacheKey(s, 90, "12.8") ||
		k == CacheKey(Source{Code: "x"}, 90, "13.0") || k == CacheKey(Source{Code: "x-a"}, 90, "13.0") {
		t.Fatal("cache keys collide")
	}
}

func TestUploadRejectsBadHostBatch(t *testing.T) {
	bad := []*coldata.Batch{
		nil,
		{Len: 3, Cols: []*coldata.Vec{{Type: coldata.String, Len: 3, Offsets: []int32{0, 5, 2, 3}, Bytes: []byte("abcdef")}}},
		{Len: 3, Cols: []*coldata.Vec{{Type: coldata.String, Len: 3, Offsets: []int32{0, 1}}}},
		{Len: 3, Cols: []*coldata.Vec{{Type: coldata.Int64, Len: 2, Ints: []int64{1, 2}}}},
		{Len: 9, Cols: []*coldata.Vec{{Type: coldata.Bool, Len: 9, Bools: make([]byte, 9), Nulls: []byte{1}}}},
		{Len: 1, Cols: []*coldata.Vec{{Type: coldata.Type(99), Len: 1}}},
	}
	for i, b := range bad {
		if _, _, err := hostColumns(b); !errors.Is(err, ErrInvalidArgument) {
			// Decreasing offsets inside the range are caught on unpack;
			// the host check sees only the ends.
			if i != 1 {
				t.Errorf("batch %d: %v", i, err)
			}
		}
	}
}
