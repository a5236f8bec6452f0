package memory

import (
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
)

// stressConfig is one pool shape for the randomized model test.
type stressConfig struct {
	name   string
	opts   Options
	capac  uint64 // upstream capacity (0 = unlimited)
	inject bool   // inject upstream alloc/free failures
}

var stressConfigs = []stressConfig{
	{name: "default-ish", opts: Options{SlabSize: 1 * mib}},
	{name: "tiny slabs", opts: Options{SlabSize: 16 * kib}},
	{name: "limit", opts: Options{SlabSize: 256 * kib, Limit: 3 * mib}},
	{name: "align 4096", opts: Options{SlabSize: 512 * kib, Alignment: 4096}},
	{name: "device full", opts: Options{SlabSize: 4 * mib}, capac: 10 * mib},
	{name: "failures", opts: Options{SlabSize: 256 * kib}, inject: true},
}

// randSize draws mostly small requests, some up to a slab, and a few larger
// than a slab (which get slabs of their own).
func randSize(r *rand.Rand, slab uint64) uint64 {
	switch x := r.Intn(100); {
	case x < 3:
		return 0
	case x < 60:
		return uint64(r.Intn(8 * kib))
	case x < 85:
		return uint64(r.Intn(64 * kib))
	case x < 96:
		return uint64(r.Int63n(int64(slab)) + 1)
	default:
		return slab + uint64(r.Int63n(int64(2*slab)))
	}
}

func runStress(t *testing.T, cfg stressConfig, seed int64, steps int) {
	r := rand.New(rand.NewSource(seed))
	up := NewHostUpstream(cfg.capac)
	p := NewPool(up, cfg.opts)
	m := newModel(p.align)
	var order []uint64 // live addresses, for picking one at random
	var freed []uint64 // recently freed addresses, for double-free probes
	injectErr := fmt.Errorf("injected: %w", ErrOutOfMemory)
	for step := 0; step < steps; step++ {
		switch x := r.Intn(100); {
		case x < 1:
			if _, err := p.Trim(); err != nil && !cfg.inject {
				t.Fatalf("seed %d step %d: Trim: %v", seed, step, err)
			}
		case x < 3 && len(freed) > 0:
			a := freed[r.Intn(len(freed))]
			if _, live := m.live[a]; !live {
				if err := p.Free(a); !errors.Is(err, ErrInvalidFree) {
					t.Fatalf("seed %d step %d: second Free(%#x) = %v", seed, step, a, err)
				}
			}
		case x < 5 && cfg.inject:
			if r.Intn(2) == 0 {
				up.FailNextAlloc(injectErr)
			} else {
				up.FailNextFree(errors.New("injected free failure"))
			}
		case x < 52 || len(order) == 0:
			size := randSize(r, p.slabSize)
			up.mu.Lock()
			pending := len(up.failNext)
			up.mu.Unlock()
			a, err := p.Alloc(size)
			if err != nil {
				if !errors.Is(err, ErrOutOfMemory) {
					t.Fatalf("seed %d step %d: Alloc(%d): %v", seed, step, size, err)
				}
				if cfg.opts.Limit == 0 && cfg.capac == 0 && pending == 0 {
					t.Fatalf("seed %d step %d: Alloc(%d) failed with no limit: %v", seed, step, size, err)
				}
				break
			}
			if _, dup := m.live[a]; dup {
				t.Fatalf("seed %d step %d: address %#x handed out twice", seed, step, a)
			}
			m.live[a] = size
			order = append(order, a)
		default:
			i := r.Intn(len(order))
			a := order[i]
			if err := p.Free(a); err != nil {
				// Only an upstream free failure after the block was freed
				// (Release) could do this; the stress test never releases.
				t.Fatalf("seed %d step %d: Free(%#x): %v", seed, step, a, err)
			}
			delete(m.live, a)
			order[i] = order[len(order)-1]
			order = order[:len(order)-1]
			if len(freed) < 64 {
				freed = append(freed, a)
			} else {
				freed[r.Intn(len(freed))] = a
			}
		}
		if err := m.check(p, up); err != nil {
			t.Fatalf("seed %d step %d: %v", seed, step, err)
		}
	}
	up.mu.Lock()
	up.failNext, up.failFree = nil, nil
	up.mu.Unlock()
	if err := m.drain(p, up); err != nil {
		t.Fatalf("seed %d: drain: %v", seed, err)
	}
}

func TestStressAgainstModel(t *testing.T) {
	steps, seeds := 8000, 3
	if !testing.Short() && !raceEnabled {
		steps, seeds = 20000, 8
	}
	for _, cfg := range stressConfigs {
		t.Run(cfg.name, func(t *testing.T) {
			for seed := int64(1); seed <= int64(seeds); seed++ {
				runStress(t, cfg, seed, steps)
			}
		})
	}
}

// TestConcurrent hammers one pool from many goroutines. The pool sits on a
// GoUpstream and each goroutine fills its blocks with its own byte and checks
// them before freeing: two goroutines given overlapping blocks would see each
// other's bytes (and the race detector would flag the writes).
func TestConcurrent(t *testing.T) {
	workers, iters := 8, 2000
	if testing.Short() {
		iters = 1000
	}
	g := NewGoUpstream(0)
	p := NewPool(g, Options{SlabSize: 256 * kib, Limit: 8 * mib})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			mark := byte(w + 1)
			type block struct {
				addr uint64
				buf  []byte
			}
			var held []block
			free := func(i int) error {
				b := held[i]
				for j, v := range b.buf {
					if v != mark {
						return fmt.Errorf("worker %d: block %#x byte %d is %d: shared with another goroutine", w, b.addr, j, v)
					}
				}
				held[i] = held[len(held)-1]
				held = held[:len(held)-1]
				return p.Free(b.addr)
			}
			for i := 0; i < iters; i++ {
				if len(held) > 0 && (len(held) > 16 || r.Intn(2) == 0) {
					if err := free(r.Intn(len(held))); err != nil {
						errs <- err
						return
					}
					continue
				}
				size := uint64(r.Intn(32*kib) + 1)
				a, err := p.Alloc(size)
				if errors.Is(err, ErrOutOfMemory) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				buf, err := g.Slice(a, size)
				if err != nil {
					errs <- err
					return
				}
				for j := range buf {
					buf[j] = mark
				}
				held = append(held, block{a, buf})
				if i%97 == 0 {
					_ = p.Stats()
					if _, err := p.Trim(); err != nil {
						errs <- err
						return
					}
				}
			}
			for len(held) > 0 {
				if err := free(0); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := newModel(p.align).drain(p, nil); err != nil {
		t.Fatal(err)
	}
	if g.InUse() != 0 {
		t.Fatalf("GoUpstream holds %d bytes", g.InUse())
	}
}
