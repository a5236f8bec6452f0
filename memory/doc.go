// Package memory is gsql's pooled allocator of address ranges.
//
// The pool knows nothing about CUDA. It carves allocations out of large
// ranges ("slabs") obtained from an Upstream: cuMemAlloc/cuMemFree in
// gpuexec, HostUpstream (synthetic addresses) in tests, GoUpstream (real Go
// byte slices) for host scratch memory. The point is the one the Cumo talk
// and RMM make: cuMemAlloc/cuMemFree are slow (tens of microseconds) and
// synchronise host and device, so the engine asks upstream for memory
// rarely, in big slabs, and recycles it itself.
//
// # Algorithm
//
// The pool is a best-fit allocator with coalescing (BFC):
//
//   - Request sizes are rounded up to Options.Alignment (512 B by default),
//     so every chunk is a multiple of it and offsets inside a slab keep the
//     upstream's alignment up to that value. A zero-size request is served
//     as a 512 B block with its own distinct address, so callers may key
//     maps by address and Free it like any other block.
//   - Free chunks of all slabs sit in one ordered index keyed by
//     (size, address): a treap threaded through the chunk records, so the
//     steady state allocates no Go memory. Alloc takes the smallest free
//     chunk that fits (lowest address among equals), splits it and puts the
//     remainder back.
//   - Each slab's chunks form an address-ordered doubly linked list. Free
//     merges a block with its free left and right neighbours in that list,
//     which never crosses a slab boundary: slabs are separate upstream
//     allocations and must be returned to upstream whole.
//   - Live blocks are found by address through a map, so Free(addr) of an
//     unknown address or a second Free is an error, never corruption.
//   - When nothing fits, the pool grows by one slab of Options.SlabSize; a
//     request larger than a slab gets a slab of its own, rounded up to 2 MiB.
//     Near Options.Limit the new slab shrinks to what fits, and if even the
//     request does not fit, wholly free slabs are returned to upstream first
//     when that makes room. If upstream itself fails (device full), the pool
//     returns its wholly free slabs and retries, then retries with the
//     smallest slab that holds the request.
//   - Trim returns wholly free slabs to upstream; Release does so at
//     shutdown and reports blocks still in use.
//
// # Errors
//
// Exceeding the limit returns *OutOfMemoryError, which satisfies
// errors.Is(err, ErrOutOfMemory). An upstream failure is wrapped with %w, so
// errors.Is(err, ErrOutOfMemory) holds exactly when it holds for the
// upstream's error: an Upstream reports "device full" by returning an error
// that wraps ErrOutOfMemory (gpuexec wraps CUDA_ERROR_OUT_OF_MEMORY so). A
// bad Free wraps ErrInvalidFree; Alloc after Release wraps ErrReleased.
//
// # Concurrency
//
// A Pool is safe for concurrent use. One mutex guards it; Alloc and Free do
// O(log free chunks) work under it and allocate nothing in the steady state.
// Upstream methods are called with the mutex held (growth is rare and keeps
// the limit exact), so an Upstream must not call back into the pool, nor
// wait for a goroutine that may itself be blocked in the pool.
package memory
