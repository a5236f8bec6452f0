// Package gpuexec is gsql's CUDA runtime: the device and its context thread,
// streams and events, the pooled device allocator, run-time compilation of
// CUDA C kernels with NVRTC (cached in memory and on disk), and column
// batches resident in device memory in the same Arrow layout as coldata
// (validity bitmap, int32 offsets, data/chars; booleans one byte per row).
//
// # Builds
//
// With the build tag cuda the package talks to the GPU through
// gorgonia.org/cu and a little cgo of its own; NVRTC is loaded with dlopen at
// run time, so one binary runs against any CUDA 11+ installation. Without the
// tag (the default, and what CI runs) the package compiles to the same
// exported API whose entry points return ErrNoCUDA; the pure-Go parts (pack
// layout, split validation, bitmap arithmetic, the table cache bookkeeping)
// are the same code in both builds.
//
// # Threads
//
// A CUDA context is current on one OS thread at a time. A Device owns its
// context from one goroutine locked to its thread; every CUDA call runs
// there. Device.Do runs a closure on that thread; every exported method of
// this package may be called from any goroutine, including from inside a Do
// closure (the call then runs directly instead of being queued).
//
// # Memory
//
// Every device buffer comes from the pool in package memory, whose upstream
// is cuMemAlloc/cuMemFree; Options.NoPool replaces the pool with a
// pass-through for comparisons. Buffers are reference counted: views made by
// Split or Slice keep the memory of the batch they view alive, and memory
// goes back to the pool when the last holder calls Release.
//
// # Batches
//
// A DeviceVec views device buffers. Views made by Split and Slice do not copy:
// fixed-width data and string offsets pointers are advanced to the first row,
// the validity bitmap keeps a bit offset (NullOffset, 0..7), and string
// offsets keep their absolute values into the unchanged chars buffer, so the
// first offset of a view need not be zero (as in coldata.Slice). Kernels must
// therefore read chars[offsets[i]:offsets[i+1]] and the validity bit at
// NullOffset+i. ContiguousSplit, Pack, Concatenate and Download produce
// normalized buffers: bit offset 0, offsets starting at 0, trailing bitmap
// bits zero.
package gpuexec
