//go:build cuda

package gpuexec

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/gsqlengine/gsql/coldata"
)

// joinSide is one side of a join test: n rows whose key is drawn from
// [0, keys) (offset by base), NULL with probability nulls; as BIGINT or
// as VARCHAR ("k<value>").
type joinSide struct {
	n, keys int
	base    int64
	nulls   float64
}

// joinKeys draws a side's keys: nil for a NULL key.
func joinKeys(rng *rand.Rand, s joinSide) []*int64 {
	out := make([]*int64, s.n)
	for i := range out {
		if rng.Float64() < s.nulls {
			continue
		}
		v := s.base + int64(rng.Intn(s.keys))
		out[i] = &v
	}
	return out
}

func joinBatch(keys []*int64, str bool) *coldata.Batch {
	t := coldata.Int64
	if str {
		t = coldata.String
	}
	b := coldata.NewBuilder(t, len(keys))
	pos := coldata.NewBuilder(coldata.Int64, len(keys))
	for i, k := range keys {
		pos.AppendInt(int64(i))
		switch {
		case k == nil:
			b.AppendNull()
		case str:
			b.AppendString(fmt.Sprintf("k%d", *k))
		default:
			b.AppendInt(*k)
		}
	}
	return &coldata.Batch{Cols: []*coldata.Vec{pos.Finish(), b.Finish()}, Len: len(keys)}
}

// refPairs is the CPU's answer for a probe in mode: matched pairs in
// probe-row order, each row's matches in build-row order, then the
// unmatched (LEFT) or kept (semi, anti) rows.
func refPairs(probe, build []*int64, mode int64, nullRow int64) (lp, bp []int64) {
	rows := map[int64][]int64{}
	for r, k := range build {
		if k != nil {
			rows[*k] = append(rows[*k], int64(r))
		}
	}
	var ul []int64
	for i, k := range probe {
		var m []int64
		if k != nil {
			m = rows[*k]
		}
		switch mode {
		case probeSemi, probeAnti:
			if (len(m) > 0) == (mode == probeSemi) {
				ul = append(ul, int64(i))
			}
			continue
		}
		for _, r := range m {
			lp, bp = append(lp, int64(i)), append(bp, r)
		}
		if len(m) == 0 && mode == probeLeft {
			ul = append(ul, int64(i))
		}
	}
	for _, i := range ul {
		lp = append(lp, i)
		if mode == probeLeft {
			bp = append(bp, nullRow)
		} else {
			bp = append(bp, 0)
		}
	}
	return lp, bp
}

func downloadI64(t testing.TB, d *Device, b *Buffer, n int) []int64 {
	t.Helper()
	raw := make([]byte, 8*n)
	if n > 0 {
		if err := d.CopyToHost(raw, b.Ptr(), nil); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return out
}

// TestCUDAJoinDuplicateKeys compares the device join's pairs, in order,
// with the CPU's for build sides of many rows per key (one slot per key,
// a run of rows each: the probe's heavy rows write one thread per pair),
// unique keys, NULL keys on both sides and keys missing from either, in
// every probe mode, with BIGINT and VARCHAR keys.
func TestCUDAJoinDuplicateKeys(t *testing.T) {
	d := cudaDevice(t)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(40))
	for _, c := range []struct {
		name         string
		probe, build joinSide
		str          bool
	}{
		{"small probe, 1M build rows over 25 keys", joinSide{n: 30, keys: 30, nulls: 0.1}, joinSide{n: 1 << 20, keys: 25, nulls: 0.01}, false},
		{"small probe, 1M build rows over 25 VARCHAR keys", joinSide{n: 30, keys: 30, nulls: 0.1}, joinSide{n: 1 << 20, keys: 25, nulls: 0.01}, true},
		{"1M probe rows, 500 build rows over 25 keys", joinSide{n: 1 << 20, keys: 30, nulls: 0.05}, joinSide{n: 500, keys: 25, nulls: 0.05}, false},
		{"unique keys", joinSide{n: 200_000, keys: 400_000}, joinSide{n: 300_000, keys: 1 << 40, nulls: 0.01}, false},
		{"mixed light and heavy keys", joinSide{n: 100_000, keys: 2000, nulls: 0.01}, joinSide{n: 50_000, keys: 4000, nulls: 0.01}, false},
		{"one key", joinSide{n: 1000, keys: 1}, joinSide{n: 100_000, keys: 1}, false},
		{"all NULL build", joinSide{n: 1000, keys: 5}, joinSide{n: 1000, keys: 5, nulls: 1}, false},
		{"empty build", joinSide{n: 1000, keys: 5}, joinSide{n: 0, keys: 5}, false},
		{"empty probe", joinSide{n: 0, keys: 5}, joinSide{n: 1000, keys: 5}, false},
	} {
		pk, bk := joinKeys(rng, c.probe), joinKeys(rng, c.build)
		// A LEFT join's build side ends with an all-NULL row.
		bk = append(bk, nil)
		nullRow := int64(len(bk) - 1)
		pb, err := d.Upload(ctx, joinBatch(pk, c.str))
		if err != nil {
			t.Fatal(err)
		}
		bb, err := d.Upload(ctx, joinBatch(bk, c.str))
		if err != nil {
			t.Fatal(err)
		}
		for _, semi := range []bool{false, true} {
			build := d.BuildJoin
			if semi {
				build = d.BuildSemiJoin
			}
			start := time.Now()
			tab, err := build(ctx, bb, []int{1})
			if err != nil {
				t.Fatalf("%s: build: %v", c.name, err)
			}
			built := time.Since(start)
			modes := []int64{probeInner, probeLeft, probeSemi, probeAnti}
			if semi {
				modes = modes[2:]
			}
			for _, mode := range modes {
				start := time.Now()
				pairs, err := tab.probe(ctx, pb, []int{1}, mode, nullRow)
				if err != nil {
					t.Fatalf("%s mode %d: %v", c.name, mode, err)
				}
				took := time.Since(start)
				gl := downloadI64(t, d, pairs.Probe, pairs.Len)
				gb := downloadI64(t, d, pairs.Build, pairs.Len)
				wl, wb := refPairs(pk, bk, mode, nullRow)
				if !slices.Equal(gl, wl) || (mode < probeSemi && !slices.Equal(gb, wb)) {
					t.Errorf("%s (semi table %v) mode %d: %d pairs, want %d; first difference at %d",
						c.name, semi, mode, len(gl), len(wl), firstDiff(gl, gb, wl, wb))
				}
				t.Logf("%s (semi table %v) mode %d: %d pairs, %d launches, build %v, probe %v (first calls compile)",
					c.name, semi, mode, pairs.Len, pairs.Launches, built, took)
				pairs.Release()
			}
			tab.Release()
		}
		pb.Release()
		bb.Release()
	}
	requireNoLeak(t, d, "join")
}

func firstDiff(gl, gb, wl, wb []int64) int {
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] || (len(gb) > i && len(wb) > i && gb[i] != wb[i]) {
			return i
		}
	}
	return min(len(gl), len(wl))
}

// BenchmarkDeviceJoinDuplicateKeys times build and probe of a device join
// whose build side has many rows per key (TPC-H's nation probing a large
// input on its nation key: 25 keys) and of one with unique keys, for
// comparison: probe rows, build rows, distinct build keys.
func BenchmarkDeviceJoinDuplicateKeys(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(41))
	for _, c := range []struct{ probe, build, keys int }{
		{25, 1_170_000, 25},
		{1_170_000, 25, 25},
		{1_000_000, 1_000_000, 1_000_000},
		{6_000_000, 1_500_000, 1_500_000},
	} {
		b.Run(fmt.Sprintf("probe=%d/build=%d/keys=%d", c.probe, c.build, c.keys), func(b *testing.B) {
			pk := joinKeys(rng, joinSide{n: c.probe, keys: c.keys})
			if c.probe == c.keys {
				for i := range pk {
					v := int64(i)
					pk[i] = &v
				}
			}
			bk := joinKeys(rng, joinSide{n: c.build, keys: c.keys})
			pb, err := d.Upload(ctx, joinBatch(pk, false))
			if err != nil {
				b.Fatal(err)
			}
			defer pb.Release()
			bb, err := d.Upload(ctx, joinBatch(bk, false))
			if err != nil {
				b.Fatal(err)
			}
			defer bb.Release()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tab, err := d.BuildJoin(ctx, bb, []int{1})
				if err != nil {
					b.Fatal(err)
				}
				pairs, err := tab.Probe(ctx, pb, []int{1}, false, 0)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Synchronize(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(pairs.Len), "pairs")
				pairs.Release()
				tab.Release()
			}
		})
	}
}
