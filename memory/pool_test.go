package memory

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const (
	kib = 1 << 10
	mib = 1 << 20
)

// freeRanges lists the pool's free chunks in address order.
func freeRanges(p *Pool) []Range {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Range
	for _, s := range p.slabs {
		for c := s.first; c != nil; c = c.next {
			if c.free {
				out = append(out, Range{c.addr, c.size})
			}
		}
	}
	return out
}

func mustAlloc(t *testing.T, p Allocator, size uint64) uint64 {
	t.Helper()
	a, err := p.Alloc(size)
	if err != nil {
		t.Fatalf("Alloc(%d): %v", size, err)
	}
	return a
}

func mustFree(t *testing.T, p Allocator, addr uint64) {
	t.Helper()
	if err := p.Free(addr); err != nil {
		t.Fatalf("Free(%#x): %v", addr, err)
	}
}

func mustCheck(t *testing.T, p *Pool) {
	t.Helper()
	if err := checkPool(p); err != nil {
		t.Fatal(err)
	}
}

func TestRounding(t *testing.T) {
	tests := []struct {
		align, size, want uint64
	}{
		{0, 0, 512}, // zero-size: one alignment unit, distinct address
		{0, 1, 512},
		{0, 512, 512},
		{0, 513, 1024},
		{0, 1000, 1024},
		{0, 64 * kib, 64 * kib},
		{256, 1, 256},
		{1000, 1, 1024}, // not a power of two: rounded up to 1024
		{4096, 4097, 8192},
	}
	for _, tt := range tests {
		up := NewHostUpstream(0)
		p := NewPool(up, Options{SlabSize: 1 * mib, Alignment: tt.align})
		a := mustAlloc(t, p, tt.size)
		b := mustAlloc(t, p, tt.size)
		if st := p.Stats(); st.InUse != 2*tt.want {
			t.Errorf("align %d size %d: InUse %d, want %d", tt.align, tt.size, st.InUse, 2*tt.want)
		}
		if b-a != tt.want {
			t.Errorf("align %d size %d: second block %d bytes after the first, want %d", tt.align, tt.size, b-a, tt.want)
		}
		if a%p.align != 0 || b%p.align != 0 {
			t.Errorf("align %d: addresses %#x %#x not aligned to %d", tt.align, a, b, p.align)
		}
		mustCheck(t, p)
	}
}

func TestSplitKeepsRemainder(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	a := mustAlloc(t, p, 1000)
	if a != HostUpstreamBase {
		t.Fatalf("first block at %#x, want the slab start %#x", a, HostUpstreamBase)
	}
	got := freeRanges(p)
	want := []Range{{HostUpstreamBase + 1024, 64*kib - 1024}}
	if len(got) != 1 || got[0] != want[0] {
		t.Fatalf("free chunks %v, want %v", got, want)
	}
	if st := p.Stats(); st.LargestFree != 64*kib-1024 {
		t.Fatalf("LargestFree %d", st.LargestFree)
	}
	// An exact fit does not split.
	b := mustAlloc(t, p, 64*kib-1024)
	if b != HostUpstreamBase+1024 || len(freeRanges(p)) != 0 {
		t.Fatalf("exact fit at %#x, free %v", b, freeRanges(p))
	}
	mustCheck(t, p)
}

// holes allocates blocks of the given sizes back to back (with a guard block
// after each) and frees the ones marked, leaving free holes of known sizes.
func holes(t *testing.T, p *Pool, sizes []uint64, free []bool) []uint64 {
	t.Helper()
	addrs := make([]uint64, len(sizes))
	for i, s := range sizes {
		addrs[i] = mustAlloc(t, p, s)
		mustAlloc(t, p, 512) // guard: keeps holes from merging
	}
	for i, f := range free {
		if f {
			mustFree(t, p, addrs[i])
		}
	}
	return addrs
}

func TestBestFit(t *testing.T) {
	tests := []struct {
		name    string
		holes   []uint64
		request uint64
		want    int // index of the hole that must be chosen; -1 = the slab tail
	}{
		{"smallest that fits, not first", []uint64{3 * kib, 1 * kib, 2 * kib}, 1536, 2},
		{"exact size wins", []uint64{4 * kib, 2 * kib, 3 * kib}, 3 * kib, 2},
		{"lowest address among equals", []uint64{5 * kib, 2 * kib, 2 * kib}, 2 * kib, 1},
		{"too big for every hole", []uint64{1 * kib, 2 * kib}, 3 * kib, -1},
		{"zero size takes smallest", []uint64{1 * kib, 512, 2 * kib}, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPool(NewHostUpstream(0), Options{SlabSize: 256 * kib})
			free := make([]bool, len(tt.holes))
			for i := range free {
				free[i] = true
			}
			addrs := holes(t, p, tt.holes, free)
			tail := freeRanges(p)[len(tt.holes)].Addr
			hits := p.Stats().PoolHits
			got := mustAlloc(t, p, tt.request)
			want := tail
			if tt.want >= 0 {
				want = addrs[tt.want]
			}
			if got != want {
				t.Fatalf("request %d served at %#x, want %#x", tt.request, got, want)
			}
			if p.Stats().PoolHits != hits+1 {
				t.Fatalf("not counted as a pool hit")
			}
			mustCheck(t, p)
		})
	}
}

func TestCoalesce(t *testing.T) {
	// Blocks a, b, c back to back, then a guard block g; the free order
	// decides which merges happen.
	tests := []struct {
		name  string
		order []int // indexes into a, b, c
		want  []Range
	}{
		{"left", []int{0, 1}, []Range{{0, 3 * kib}}},
		{"right", []int{1, 0}, []Range{{0, 3 * kib}}},
		{"right neighbour only", []int{2, 1}, []Range{{1 * kib, 5 * kib}}},
		{"both", []int{0, 2, 1}, []Range{{0, 6 * kib}}},
		{"none", []int{1}, []Range{{1 * kib, 2 * kib}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPool(NewHostUpstream(0), Options{SlabSize: 64 * kib})
			base := uint64(HostUpstreamBase)
			addrs := []uint64{mustAlloc(t, p, 1*kib), mustAlloc(t, p, 2*kib), mustAlloc(t, p, 3*kib)}
			g := mustAlloc(t, p, 512)
			for _, i := range tt.order {
				mustFree(t, p, addrs[i])
				mustCheck(t, p)
			}
			got := freeRanges(p)
			tailAddr := g + 512
			if last := got[len(got)-1]; last.Addr != tailAddr {
				t.Fatalf("slab tail moved: %v", got)
			}
			got = got[:len(got)-1]
			if len(got) != len(tt.want) {
				t.Fatalf("free chunks %v, want %v (relative to %#x)", got, tt.want, base)
			}
			for i := range got {
				if got[i].Addr-base != tt.want[i].Addr || got[i].Size != tt.want[i].Size {
					t.Fatalf("free chunks %v, want %v (relative to %#x)", got, tt.want, base)
				}
			}
		})
	}
}

func TestNoCoalesceAcrossSlabs(t *testing.T) {
	// HostUpstream hands out adjacent ranges: two full slabs sit back to
	// back, and freeing both must leave two chunks, one per slab.
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	a := mustAlloc(t, p, 64*kib)
	b := mustAlloc(t, p, 64*kib)
	if b != a+64*kib {
		t.Fatalf("test premise: slabs not adjacent (%#x, %#x)", a, b)
	}
	mustFree(t, p, a)
	mustFree(t, p, b)
	mustCheck(t, p)
	if got := freeRanges(p); len(got) != 2 {
		t.Fatalf("free chunks %v: merged across slabs", got)
	}
	if st := p.Stats(); st.LargestFree != 64*kib || st.Slabs != 2 {
		t.Fatalf("stats %+v", st)
	}
	// A request for both slabs' bytes cannot use them.
	c := mustAlloc(t, p, 128*kib)
	if c == a || c == b {
		t.Fatalf("128 KiB block placed over two slabs at %#x", c)
	}
}

func TestLargeAllocGetsOwnSlab(t *testing.T) {
	tests := []struct {
		size, slab uint64
	}{
		{64*kib + 1, 2 * mib},
		{3 * mib, 4 * mib},
		{4 * mib, 4 * mib},
		{64 * kib, 64 * kib}, // exactly a slab: an ordinary slab
	}
	for _, tt := range tests {
		up := NewHostUpstream(0)
		p := NewPool(up, Options{SlabSize: 64 * kib})
		small := mustAlloc(t, p, 1*kib)
		big := mustAlloc(t, p, tt.size)
		st := p.Stats()
		if st.Slabs != 2 || st.Reserved != 64*kib+tt.slab || st.UpstreamAllocs != 2 {
			t.Errorf("size %d: stats %+v, want 2 slabs, %d reserved", tt.size, st, 64*kib+tt.slab)
		}
		if big == small+1*kib {
			t.Errorf("size %d: placed in the first slab", tt.size)
		}
		mustFree(t, p, big)
		mustFree(t, p, small)
		released, err := p.Trim()
		if err != nil || released != 64*kib+tt.slab {
			t.Errorf("size %d: Trim = %d, %v", tt.size, released, err)
		}
	}
}

func TestTrim(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	a := mustAlloc(t, p, 40*kib) // slab 1
	b := mustAlloc(t, p, 40*kib) // slab 2
	c := mustAlloc(t, p, 10*kib) // slab 1 (best fit: 24 KiB left there and in slab 2; lowest address)
	if released, err := p.Trim(); err != nil || released != 0 {
		t.Fatalf("Trim with all slabs used = %d, %v", released, err)
	}
	mustFree(t, p, b)
	released, err := p.Trim()
	if err != nil || released != 64*kib {
		t.Fatalf("Trim = %d, %v; want one slab", released, err)
	}
	st := p.Stats()
	if st.Slabs != 1 || st.Reserved != 64*kib || st.UpstreamFrees != 1 || st.InUse != 50*kib {
		t.Fatalf("after Trim: %+v", st)
	}
	if up.Stats().Live != 1 {
		t.Fatalf("upstream: %+v", up.Stats())
	}
	mustFree(t, p, a)
	mustFree(t, p, c)
	m := newModel(512)
	if err := m.drain(p, up); err != nil {
		t.Fatal(err)
	}
}

func TestTrimUpstreamFailureKeepsSlab(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	mustFree(t, p, mustAlloc(t, p, 1*kib))
	boom := errors.New("boom")
	up.FailNextFree(boom)
	released, err := p.Trim()
	if !errors.Is(err, boom) || released != 0 {
		t.Fatalf("Trim = %d, %v; want the upstream error", released, err)
	}
	mustCheck(t, p)
	// The slab is still usable and trimmable.
	mustFree(t, p, mustAlloc(t, p, 64*kib))
	if released, err := p.Trim(); err != nil || released != 64*kib {
		t.Fatalf("second Trim = %d, %v", released, err)
	}
}

func TestRelease(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	a := mustAlloc(t, p, 1*kib)
	mustAlloc(t, p, 64*kib) // second slab, freed below
	b := mustAlloc(t, p, 2*kib)
	mustFree(t, p, p.mustLiveAt(t, HostUpstreamBase+64*kib))

	err := p.Release()
	if !errors.Is(err, ErrBlocksInUse) || !strings.Contains(err.Error(), "2 blocks (3.0 KiB)") {
		t.Fatalf("Release with leaks = %v", err)
	}
	if st := p.Stats(); st.Slabs != 1 {
		t.Fatalf("free slab not released: %+v", st)
	}
	if _, err := p.Alloc(1); !errors.Is(err, ErrReleased) {
		t.Fatalf("Alloc after Release = %v", err)
	}
	// Freeing the leaks returns their slab at once.
	mustFree(t, p, a)
	if up.Stats().Live != 1 {
		t.Fatal("slab returned while a block was still live")
	}
	mustFree(t, p, b)
	if us := up.Stats(); us.Live != 0 || us.BadFrees != 0 {
		t.Fatalf("upstream after freeing leaks: %+v", us)
	}
	if err := p.Release(); err != nil {
		t.Fatalf("second Release = %v", err)
	}
	mustCheck(t, p)
}

// mustLiveAt returns addr after checking it is a live block.
func (p *Pool) mustLiveAt(t *testing.T, addr uint64) uint64 {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.live[addr]; !ok {
		t.Fatalf("no live block at %#x", addr)
	}
	return addr
}

func TestReleaseClean(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	for i := 0; i < 3; i++ {
		mustAlloc(t, p, 60*kib)
	}
	for _, a := range []uint64{HostUpstreamBase, HostUpstreamBase + 64*kib, HostUpstreamBase + 128*kib} {
		mustFree(t, p, a)
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	if us := up.Stats(); us.Live != 0 || us.Frees != 3 {
		t.Fatalf("upstream: %+v", us)
	}
}

func TestLimit(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib, Limit: 128 * kib})
	mustAlloc(t, p, 64*kib)
	mustAlloc(t, p, 64*kib)
	_, err := p.Alloc(1)
	var oom *OutOfMemoryError
	if !errors.As(err, &oom) || !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("Alloc over the limit = %v", err)
	}
	want := OutOfMemoryError{Requested: 1, Limit: 128 * kib, InUse: 128 * kib, Reserved: 128 * kib}
	if *oom != want {
		t.Fatalf("error fields %+v, want %+v", *oom, want)
	}
	if got := err.Error(); got != "out of memory: requested 1 B with 128.0 KiB of the 128.0 KiB pool limit in use" {
		t.Fatalf("message %q", got)
	}
	if _, err := p.Alloc(1 * mib); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("request over the whole limit = %v", err)
	}
	if _, err := p.Alloc(math.MaxUint64); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("overflowing request = %v", err)
	}
	mustCheck(t, p)
	if up.Stats().Allocs != 2 {
		t.Fatalf("upstream called after the limit: %+v", up.Stats())
	}
}

func TestLimitShrinksSlab(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib, Limit: 100 * kib})
	mustAlloc(t, p, 64*kib)
	mustAlloc(t, p, 1*kib)
	st := p.Stats()
	if st.Reserved != 100*kib || st.Slabs != 2 || st.LargestFree != 35*kib {
		t.Fatalf("stats %+v: want a 36 KiB second slab", st)
	}
	mustAlloc(t, p, 35*kib)
	if _, err := p.Alloc(1); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("full pool: %v", err)
	}
}

func TestLimitReleasesFreeSlabsForBigRequest(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib, Limit: 128 * kib})
	a := mustAlloc(t, p, 64*kib)
	b := mustAlloc(t, p, 64*kib)
	mustFree(t, p, a)
	// Not enough room even after releasing: the cache is kept.
	c := mustAlloc(t, p, 1*kib)
	if _, err := p.Alloc(100 * kib); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("want OOM, got %v", err)
	}
	if st := p.Stats(); st.Slabs != 2 || st.UpstreamFrees != 0 {
		t.Fatalf("slabs released for nothing: %+v", st)
	}
	mustFree(t, p, b)
	mustFree(t, p, c)
	// Now both slabs are free but each too small; releasing them makes room.
	big := mustAlloc(t, p, 100*kib)
	st := p.Stats()
	want := Stats{InUse: 100 * kib, Peak: 128 * kib, Reserved: 128 * kib, Allocs: 4, Frees: 3, PoolHits: 1,
		UpstreamAllocs: 3, UpstreamFrees: 2, LargestFree: 28 * kib, Slabs: 1}
	if st != want {
		t.Fatalf("stats\n got %+v\nwant %+v", st, want)
	}
	mustFree(t, p, big)
	if err := newModel(512).drain(p, up); err != nil {
		t.Fatal(err)
	}
}

func TestUpstreamFailure(t *testing.T) {
	deviceFull := errorWrap{"CUDA_ERROR_OUT_OF_MEMORY", ErrOutOfMemory}
	other := errors.New("CUDA_ERROR_ILLEGAL_ADDRESS")
	tests := []struct {
		name    string
		err     error
		wantOOM bool
	}{
		{"device full", deviceFull, true},
		{"other failure", other, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := NewHostUpstream(0)
			p := NewPool(up, Options{SlabSize: 64 * kib})
			up.FailNextAlloc(tt.err)
			_, err := p.Alloc(1 * kib)
			if err == nil || !errors.Is(err, tt.err) || errors.Is(err, ErrOutOfMemory) != tt.wantOOM {
				t.Fatalf("Alloc = %v; want wrapping %v, OOM %v", err, tt.err, tt.wantOOM)
			}
			if !strings.Contains(err.Error(), "upstream alloc of 64.0 KiB for a 1.0 KiB request") {
				t.Fatalf("message lacks context: %v", err)
			}
			mustCheck(t, p)
			mustAlloc(t, p, 1*kib) // the pool still works
		})
	}
}

type errorWrap struct {
	msg string
	err error
}

func (e errorWrap) Error() string { return e.msg }
func (e errorWrap) Unwrap() error { return e.err }

func TestDeviceFullRetries(t *testing.T) {
	// Upstream holds 12 MiB; slabs are 8 MiB.
	up := NewHostUpstream(12 * mib)
	p := NewPool(up, Options{SlabSize: 8 * mib})
	a := mustAlloc(t, p, 8*mib)
	// No 8 MiB slab fits; the pool retries with the smallest slab (2 MiB).
	b := mustAlloc(t, p, 1*kib)
	if st := p.Stats(); st.Reserved != 10*mib || st.Slabs != 2 {
		t.Fatalf("after fallback: %+v", st)
	}
	if _, err := p.Alloc(3 * mib); !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "host upstream") {
		t.Fatalf("want the upstream's out of memory, got %v", err)
	}
	mustFree(t, p, a)
	// The 8 MiB slab is free but too small for 10 MiB; upstream is full until
	// the pool gives it back.
	c := mustAlloc(t, p, 10*mib-kib)
	st := p.Stats()
	if st.Reserved != 12*mib || st.UpstreamFrees != 1 || st.Slabs != 2 {
		t.Fatalf("after trim-and-retry: %+v", st)
	}
	mustFree(t, p, b)
	mustFree(t, p, c)
	if err := newModel(512).drain(p, up); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidFree(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	a := mustAlloc(t, p, 2*kib)
	mustAlloc(t, p, 1*kib)
	mustFree(t, p, a)
	tests := []struct {
		name, msg string
		addr      uint64
	}{
		{"double free", "double free", a},
		{"interior", "not the start of a live block", a + 512},
		{"free chunk", "not the start of a live block", a + 3*kib},
		{"foreign", "not allocated by this pool", 0x1234},
		{"zero", "not allocated by this pool", 0},
		{"past the slab", "not allocated by this pool", HostUpstreamBase + 64*kib},
	}
	before := p.Stats()
	for _, tt := range tests {
		err := p.Free(tt.addr)
		if !errors.Is(err, ErrInvalidFree) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: Free(%#x) = %v", tt.name, tt.addr, err)
		}
	}
	if after := p.Stats(); after != before {
		t.Fatalf("bad frees changed stats: %+v -> %+v", before, after)
	}
	mustCheck(t, p)
}

func TestStatsExact(t *testing.T) {
	up := NewHostUpstream(0)
	p := NewPool(up, Options{SlabSize: 64 * kib})
	steps := []struct {
		op   string // "a" alloc size, "f" free the n-th allocation, "t" trim
		arg  uint64
		want Stats
	}{
		{"a", 1000, Stats{InUse: 1024, Peak: 1024, Reserved: 64 * kib, Allocs: 1, UpstreamAllocs: 1, LargestFree: 63 * kib, Slabs: 1}},
		{"a", 0, Stats{InUse: 1536, Peak: 1536, Reserved: 64 * kib, Allocs: 2, PoolHits: 1, UpstreamAllocs: 1, LargestFree: 62*kib + 512, Slabs: 1}},
		{"a", 100 * kib, Stats{InUse: 1536 + 100*kib, Peak: 1536 + 100*kib, Reserved: 64*kib + 2*mib, Allocs: 3, PoolHits: 1, UpstreamAllocs: 2, LargestFree: 2*mib - 100*kib, Slabs: 2}},
		{"f", 2, Stats{InUse: 1536, Peak: 1536 + 100*kib, Reserved: 64*kib + 2*mib, Allocs: 3, Frees: 1, PoolHits: 1, UpstreamAllocs: 2, LargestFree: 2 * mib, Slabs: 2}},
		{"t", 0, Stats{InUse: 1536, Peak: 1536 + 100*kib, Reserved: 64 * kib, Allocs: 3, Frees: 1, PoolHits: 1, UpstreamAllocs: 2, UpstreamFrees: 1, LargestFree: 62*kib + 512, Slabs: 1}},
		{"f", 0, Stats{InUse: 512, Peak: 1536 + 100*kib, Reserved: 64 * kib, Allocs: 3, Frees: 2, PoolHits: 1, UpstreamAllocs: 2, UpstreamFrees: 1, LargestFree: 62*kib + 512, Slabs: 1}},
		{"f", 1, Stats{Peak: 1536 + 100*kib, Reserved: 64 * kib, Allocs: 3, Frees: 3, PoolHits: 1, UpstreamAllocs: 2, UpstreamFrees: 1, LargestFree: 64 * kib, Slabs: 1}},
	}
	var addrs []uint64
	for i, s := range steps {
		switch s.op {
		case "a":
			addrs = append(addrs, mustAlloc(t, p, s.arg))
		case "f":
			mustFree(t, p, addrs[s.arg])
		case "t":
			if _, err := p.Trim(); err != nil {
				t.Fatal(err)
			}
		}
		if got := p.Stats(); got != s.want {
			t.Fatalf("step %d (%s %d):\n got %+v\nwant %+v", i, s.op, s.arg, got, s.want)
		}
		mustCheck(t, p)
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0 B"},
		{512, "512 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{96 * mib, "96.0 MiB"},
		{2 << 30, "2.0 GiB"},
		{1 << 40, "1.0 TiB"},
		{math.MaxUint64, "16.0 EiB"},
	}
	for _, tt := range tests {
		if got := FormatBytes(tt.n); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestOutOfMemoryErrorMessage(t *testing.T) {
	tests := []struct {
		err  OutOfMemoryError
		want string
	}{
		{OutOfMemoryError{Requested: 96 * mib, Limit: 2 << 30, InUse: 2040109466, Reserved: 2 << 30},
			"out of memory: requested 96.0 MiB with 1.9 GiB of the 2.0 GiB pool limit in use"},
		{OutOfMemoryError{Requested: math.MaxUint64, InUse: 512},
			"out of memory: requested 16.0 EiB with 512 B in use (no pool limit)"},
	}
	for _, tt := range tests {
		err := error(&tt.err)
		if got := err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		if !errors.Is(err, ErrOutOfMemory) {
			t.Errorf("%v does not match ErrOutOfMemory", err)
		}
	}
}

func TestDirect(t *testing.T) {
	up := NewHostUpstream(0)
	d := Direct(up, 4*kib)
	a := mustAlloc(t, d, 1000)
	b := mustAlloc(t, d, 0)
	if a == b {
		t.Fatal("zero-size block shares an address")
	}
	want := Stats{InUse: 1536, Peak: 1536, Reserved: 1536, Allocs: 2, UpstreamAllocs: 2, Slabs: 2}
	if st := d.Stats(); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if _, err := d.Alloc(3 * kib); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("over the limit: %v", err)
	}
	mustFree(t, d, a)
	if err := d.Free(a); !errors.Is(err, ErrInvalidFree) {
		t.Fatalf("double free: %v", err)
	}
	up.FailNextFree(errors.New("boom"))
	if err := d.Free(b); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("upstream free failure: %v", err)
	}
	mustFree(t, d, b) // still live after the failed free
	want = Stats{Peak: 1536, Allocs: 2, Frees: 2, UpstreamAllocs: 2, UpstreamFrees: 2}
	if st := d.Stats(); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	if us := up.Stats(); us.Live != 0 || us.BadFrees != 0 {
		t.Fatalf("upstream %+v", us)
	}
	up.FailNextAlloc(ErrOutOfMemory)
	if _, err := d.Alloc(1); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("upstream failure: %v", err)
	}
}

func TestHostUpstream(t *testing.T) {
	h := NewHostUpstream(1 * mib)
	a, err := h.Alloc(1000)
	if err != nil || a != HostUpstreamBase {
		t.Fatalf("Alloc = %#x, %v", a, err)
	}
	b, _ := h.Alloc(512 * kib)
	if b != a+1024 {
		t.Fatalf("second range at %#x, want %#x (256 B rounding)", b, a+1024)
	}
	if _, err := h.Alloc(600 * kib); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("over capacity: %v", err)
	}
	if _, err := h.Alloc(0); err == nil {
		t.Fatal("zero-size upstream alloc accepted")
	}
	tests := []struct {
		addr, size uint64
		msg        string
	}{
		{a, 999, "allocated with 1000"},
		{a + 256, 1000, "double free"},
		{0x10, 1000, "never allocated"},
	}
	for _, tt := range tests {
		if err := h.Free(tt.addr, tt.size); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Free(%#x, %d) = %v", tt.addr, tt.size, err)
		}
	}
	if err := h.Free(a, 1000); err != nil {
		t.Fatal(err)
	}
	if err := h.Free(a, 1000); err == nil || !strings.Contains(err.Error(), "double free") {
		t.Fatalf("double free: %v", err)
	}
	got := h.Stats()
	want := HostUpstreamStats{Allocs: 2, Frees: 1, BadFrees: 4, Live: 1, InUse: 512 * kib, Peak: 512*kib + 1000}
	if got != want {
		t.Fatalf("stats %+v, want %+v", got, want)
	}
	if live := h.Live(); len(live) != 1 || live[0] != (Range{b, 512 * kib}) {
		t.Fatalf("live %v", live)
	}
}

func TestGoUpstream(t *testing.T) {
	g := NewGoUpstream(4 * mib)
	p := NewPool(g, Options{SlabSize: 1 * mib})
	a := mustAlloc(t, p, 3000)
	b := mustAlloc(t, p, 5000)
	if a%512 != 0 || b%512 != 0 {
		t.Fatalf("addresses %#x %#x not 512-aligned", a, b)
	}
	ba, err := g.Slice(a, 3000)
	if err != nil {
		t.Fatal(err)
	}
	bb, err := g.Slice(b, 5000)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ba {
		ba[i] = 0xAA
	}
	for i := range bb {
		bb[i] = 0xBB
	}
	if cap(ba) != 3000 {
		t.Fatalf("slice capacity %d lets appends spill into the next block", cap(ba))
	}
	again, _ := g.Slice(a, 3000)
	if again[0] != 0xAA || again[2999] != 0xAA {
		t.Fatal("bytes not preserved")
	}
	bad := []struct {
		addr, size uint64
	}{
		{a, 2 * mib},        // runs past the slab
		{a + 1*mib, 1},      // past the slab
		{0x1000, 1},         // not from it
		{a, math.MaxUint64}, // overflow
	}
	for _, tt := range bad {
		if _, err := g.Slice(tt.addr, tt.size); err == nil {
			t.Errorf("Slice(%#x, %d) accepted", tt.addr, tt.size)
		}
	}
	if _, err := p.Alloc(8 * mib); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("over capacity: %v", err)
	}
	if err := g.Free(a, 1); err == nil {
		t.Fatal("GoUpstream freed a pool block that is not a range")
	}
	mustFree(t, p, a)
	mustFree(t, p, b)
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	if g.InUse() != 0 {
		t.Fatalf("GoUpstream holds %d bytes after Release", g.InUse())
	}
	if _, err := g.Slice(a, 1); err == nil {
		t.Fatal("Slice of a freed range accepted")
	}
	if err := g.Free(a, 1*mib); err == nil {
		t.Fatal("double free accepted")
	}
}

func TestNilUpstream(t *testing.T) {
	for name, a := range map[string]Allocator{"pool": NewPool(nil, Options{}), "direct": Direct(nil, 0)} {
		if _, err := a.Alloc(1); err == nil || !strings.Contains(err.Error(), "no upstream") {
			t.Errorf("%s: Alloc with nil upstream = %v", name, err)
		}
		if err := a.Free(1); !errors.Is(err, ErrInvalidFree) {
			t.Errorf("%s: Free = %v", name, err)
		}
	}
}

// brokenUpstream returns fixed addresses, to test that the pool refuses
// ranges it cannot use safely.
type brokenUpstream struct {
	addrs []uint64
	freed []Range
}

func (b *brokenUpstream) Alloc(size uint64) (uint64, error) {
	a := b.addrs[0]
	b.addrs = b.addrs[1:]
	return a, nil
}

func (b *brokenUpstream) Free(addr, size uint64) error {
	b.freed = append(b.freed, Range{addr, size})
	return nil
}

func TestBrokenUpstream(t *testing.T) {
	tests := []struct {
		name  string
		addrs []uint64
		msg   string
	}{
		{"wraps", []uint64{math.MaxUint64 - 1000}, "wraps the address space"},
		{"overlaps", []uint64{1 << 20, 1<<20 + 32*kib}, "overlapping slab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := &brokenUpstream{addrs: tt.addrs}
			p := NewPool(up, Options{SlabSize: 64 * kib})
			var err error
			for range tt.addrs {
				_, err = p.Alloc(64 * kib)
			}
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Alloc = %v, want %q", err, tt.msg)
			}
			last := tt.addrs[len(tt.addrs)-1]
			if len(up.freed) != 1 || up.freed[0] != (Range{last, 64 * kib}) {
				t.Fatalf("refused range not handed back: %v", up.freed)
			}
			mustCheck(t, p)
		})
	}
}
