package memory

import (
	"fmt"
	"math/rand"
	"testing"
)

var benchSizes = []uint64{1 * kib, 64 * kib, 1 * mib, 64 * mib}

func benchName(size uint64) string {
	if size >= mib {
		return fmt.Sprintf("%dMiB", size/mib)
	}
	return fmt.Sprintf("%dKiB", size/kib)
}

// allocFree measures the steady state: one Alloc+Free pair per iteration
// after a warm-up pair has reserved the slab.
func allocFree(b *testing.B, a Allocator, size uint64) {
	b.Helper()
	if x, err := a.Alloc(size); err != nil || a.Free(x) != nil {
		b.Fatalf("warm-up: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x, err := a.Alloc(size)
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Free(x); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPoolAllocFree(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(benchName(size), func(b *testing.B) {
			allocFree(b, NewPool(NewHostUpstream(0), Options{}), size)
		})
	}
}

// BenchmarkDirectAllocFree is the no-pool baseline. On the host its upstream
// is a map update; on the GPU it is cuMemAlloc+cuMemFree, which is what
// the pool saves (docs/benchlog/2026-11-23-gpu-runtime.md).
func BenchmarkDirectAllocFree(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(benchName(size), func(b *testing.B) {
			allocFree(b, Direct(NewHostUpstream(0), 0), size)
		})
	}
}

// BenchmarkPoolAllocFreeFragmented runs the pair against a pool holding 2000
// live blocks of random sizes with 1000 free holes between them, so the free
// index is deep and best fit has to search.
func BenchmarkPoolAllocFreeFragmented(b *testing.B) {
	for _, size := range []uint64{1 * kib, 64 * kib} {
		b.Run(benchName(size), func(b *testing.B) {
			p := NewPool(NewHostUpstream(0), Options{})
			r := rand.New(rand.NewSource(1))
			var addrs []uint64
			for i := 0; i < 3000; i++ {
				a, err := p.Alloc(uint64(r.Intn(128*kib) + 1))
				if err != nil {
					b.Fatal(err)
				}
				addrs = append(addrs, a)
			}
			for i := 0; i < len(addrs); i += 3 {
				if err := p.Free(addrs[i]); err != nil {
					b.Fatal(err)
				}
			}
			allocFree(b, p, size)
		})
	}
}

// BenchmarkPoolParallel measures the pair with every core contending for the
// pool's mutex.
func BenchmarkPoolParallel(b *testing.B) {
	p := NewPool(NewHostUpstream(0), Options{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			x, err := p.Alloc(64 * kib)
			if err != nil {
				b.Error(err)
				return
			}
			if err := p.Free(x); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
