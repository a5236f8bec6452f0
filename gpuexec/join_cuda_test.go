//go:build cuda

package gpuexec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
)

// TestCUDAJoinDuplicateKeys compares the device join's pairs, in order,
// with the CPU's for build sides of many rows per key (one slot per key,
// a run of rows each: the probe's heavy rows write one thread per pair),
// unique keys, NULL keys on both sides and keys missing from either, in
// every probe mode, with BIGINT and VARCHAR keys.
func TestCUDAJoinDuplicateKeys(t *testing.T) {
	runJoinCases(t, cudaDevice(t), []joinCase{
		{"small probe, 1M build rows over 25 keys", joinSide{n: 30, keys: 30, nulls: 0.1}, joinSide{n: 1 << 20, keys: 25, nulls: 0.01}, false},
		{"small probe, 1M build rows over 25 VARCHAR keys", joinSide{n: 30, keys: 30, nulls: 0.1}, joinSide{n: 1 << 20, keys: 25, nulls: 0.01}, true},
		{"1M probe rows, 500 build rows over 25 keys", joinSide{n: 1 << 20, keys: 30, nulls: 0.05}, joinSide{n: 500, keys: 25, nulls: 0.05}, false},
		{"unique keys", joinSide{n: 200_000, keys: 400_000}, joinSide{n: 300_000, keys: 1 << 40, nulls: 0.01}, false},
		{"mixed light and heavy keys", joinSide{n: 100_000, keys: 2000, nulls: 0.01}, joinSide{n: 50_000, keys: 4000, nulls: 0.01}, false},
		{"one key", joinSide{n: 1000, keys: 1}, joinSide{n: 100_000, keys: 1}, false},
		{"all NULL build", joinSide{n: 1000, keys: 5}, joinSide{n: 1000, keys: 5, nulls: 1}, false},
		{"empty build", joinSide{n: 1000, keys: 5}, joinSide{n: 0, keys: 5}, false},
		{"empty probe", joinSide{n: 0, keys: 5}, joinSide{n: 1000, keys: 5}, false},
	}, 40)
}

// BenchmarkDeviceJoinDuplicateKeys times build and probe of a device join
// whose build side has many rows per key (TPC-H's nation probing a large
// input on its nation key: 25 keys) and of one with unique keys, for
// comparison: probe rows, build rows, distinct build keys.
func BenchmarkDeviceJoinDuplicateKeys(b *testing.B) {
	d := cudaDevice(b)
	ctx := context.Background()
	rng := rand.New(rand.NewSource(41))
	for _, c := range []struct {
		probe, build, keys int
		uniqueBuild        bool // the build side holds keys 0..build-1 once each
	}{
		{25, 1_170_000, 25, false},
		{1_170_000, 25, 25, false},
		{1_000_000, 1_000_000, 1_000_000, false},
		{6_000_000, 1_500_000, 1_500_000, false},
		// A fact table probing a filtered dimension (SSB's lineorder
		// against a fifth of its suppliers): 60M probe rows, a fifth of
		// them matched once.
		{60_000_000, 20_000, 100_000, true},
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
			if c.uniqueBuild {
				for i := range bk {
					v := int64(i)
					bk[i] = &v
				}
			}
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
