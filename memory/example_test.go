package memory_test

import (
	"errors"
	"fmt"

	"github.com/gsqlengine/gsql/memory"
)

// A pool over a synthetic upstream: the second allocation is served from the
// slab the first one reserved, and a request past the limit fails with a
// typed error.
func ExampleNewPool() {
	up := memory.NewHostUpstream(0)
	pool := memory.NewPool(up, memory.Options{SlabSize: 4 << 20, Limit: 8 << 20})

	a, _ := pool.Alloc(1000) // rounded to 1 KiB; reserves one 4 MiB slab
	b, _ := pool.Alloc(3000) // rounded to 3 KiB; a pool hit
	fmt.Println("b follows a:", b == a+1024)

	_, err := pool.Alloc(16 << 20)
	var oom *memory.OutOfMemoryError
	fmt.Println(errors.Is(err, memory.ErrOutOfMemory), errors.As(err, &oom))
	fmt.Println(err)

	_ = pool.Free(a)
	_ = pool.Free(b)
	st := pool.Stats()
	fmt.Printf("in use %d, peak %d, reserved %s, hits %d, upstream allocs %d\n",
		st.InUse, st.Peak, memory.FormatBytes(st.Reserved), st.PoolHits, st.UpstreamAllocs)

	fmt.Println(pool.Release(), up.Stats().Live)
	// Output:
	// b follows a: true
	// true true
	// out of memory: requested 16.0 MiB with 4.0 KiB of the 8.0 MiB pool limit in use
	// in use 0, peak 4096, reserved 4.0 MiB, hits 1, upstream allocs 1
	// <nil> 0
}

// GoUpstream backs a pool with Go memory for host scratch buffers.
func ExampleGoUpstream() {
	host := memory.NewGoUpstream(64 << 20)
	pool := memory.NewPool(host, memory.Options{SlabSize: 1 << 20})
	addr, _ := pool.Alloc(5)
	buf, _ := host.Slice(addr, 5)
	copy(buf, "hello")
	again, _ := host.Slice(addr, 5)
	fmt.Println(string(again))
	_ = pool.Free(addr)
	fmt.Println(pool.Release(), host.InUse())
	// Output:
	// hello
	// <nil> 0
}
