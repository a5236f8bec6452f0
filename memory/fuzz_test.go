package memory

import (
	"errors"
	"testing"
)

// FuzzPool reads the input as a pool shape followed by a sequence of 3-byte
// operations, runs them against a pool on a HostUpstream, and asserts the
// model invariants after every step and full coalescing at the end.
//
// Byte 0 picks the shape: slab size (bits 0-1), limit (bits 2-3), alignment
// (bits 4-5). Each operation is op, hi, lo with v = hi<<8|lo:
//
//	(op&0x7f)%12
//	0-4   Alloc(v), or Alloc(v*64) when op&0x80 (reaches past a slab)
//	5-6   Free the (v mod live)-th live block
//	7     Trim
//	8     Free an address that is not a live block (must fail)
//	9     Release (then Alloc must fail with ErrReleased)
//	10    make the next upstream Alloc fail (device full)
//	11    make the next upstream Free fail
func FuzzPool(f *testing.F) {
	f.Add([]byte{0x00, 0, 0, 200, 1, 0, 100, 5, 0, 0, 7, 0, 0})
	f.Add([]byte{0x05, 0x80, 0x10, 0, 0x80, 0x10, 0, 0x80, 0x10, 0, 5, 0, 1, 0x80, 0x20, 0})
	f.Add([]byte{0x3f, 1, 0, 1, 8, 0, 0, 10, 0, 0, 2, 0, 9, 9, 0, 0, 6, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		shape := data[0]
		opts := Options{
			SlabSize:  [...]uint64{8 * kib, 64 * kib, 256 * kib, 1 * mib}[shape&3],
			Limit:     [...]uint64{0, 256 * kib, 1 * mib, 100 * kib}[shape>>2&3],
			Alignment: [...]uint64{512, 256, 4096, 512}[shape>>4&3],
		}
		up := NewHostUpstream(0)
		if shape&0x40 != 0 {
			up = NewHostUpstream(2 * mib) // a small "device"
		}
		p := NewPool(up, opts)
		m := newModel(p.align)
		var order, freed []uint64
		released := false
		ops := data[1:]
		if len(ops) > 3*1500 {
			ops = ops[:3*1500]
		}
		for i := 0; i+3 <= len(ops); i += 3 {
			op, v := ops[i], uint64(ops[i+1])<<8|uint64(ops[i+2])
			up.mu.Lock()
			injected := len(up.failNext)+len(up.failFree) > 0
			up.mu.Unlock()
			switch (op & 0x7f) % 12 {
			case 0, 1, 2, 3, 4:
				size := v
				if op&0x80 != 0 {
					size *= 64
				}
				a, err := p.Alloc(size)
				switch {
				case released:
					if !errors.Is(err, ErrReleased) {
						t.Fatalf("op %d: Alloc after Release = %#x, %v", i/3, a, err)
					}
					continue
				case err != nil && (errors.Is(err, ErrOutOfMemory) || injected):
					if opts.Limit == 0 && shape&0x40 == 0 && !injected {
						t.Fatalf("op %d: Alloc(%d) failed without a limit: %v", i/3, size, err)
					}
					continue
				case err != nil:
					t.Fatalf("op %d: Alloc(%d): %v", i/3, size, err)
				}
				if _, dup := m.live[a]; dup {
					t.Fatalf("op %d: %#x handed out twice", i/3, a)
				}
				m.live[a] = size
				order = append(order, a)
			case 5, 6:
				if len(order) == 0 {
					continue
				}
				j := int(v % uint64(len(order)))
				a := order[j]
				// After Release a free may return the slab to upstream, whose
				// injected failure is reported; the block is free either way.
				if err := p.Free(a); err != nil && !(released && injected) {
					t.Fatalf("op %d: Free(%#x): %v", i/3, a, err)
				}
				delete(m.live, a)
				order[j] = order[len(order)-1]
				order = order[:len(order)-1]
				freed = append(freed, a)
			case 7:
				if _, err := p.Trim(); err != nil && !injected {
					t.Fatalf("op %d: Trim: %v", i/3, err)
				}
			case 8:
				var a uint64
				switch {
				case v&1 == 0 && len(freed) > 0:
					a = freed[int(v>>1)%len(freed)]
				case len(order) > 0:
					a = order[int(v>>1)%len(order)] + 1 + uint64(v>>8)
				default:
					a = v
				}
				if _, live := m.live[a]; live {
					continue
				}
				before := p.Stats()
				if err := p.Free(a); !errors.Is(err, ErrInvalidFree) {
					t.Fatalf("op %d: Free of non-block %#x = %v", i/3, a, err)
				}
				if after := p.Stats(); after != before {
					t.Fatalf("op %d: bad free changed stats", i/3)
				}
			case 9:
				err := p.Release()
				if len(m.live) > 0 && !errors.Is(err, ErrBlocksInUse) {
					t.Fatalf("op %d: Release with %d live blocks = %v", i/3, len(m.live), err)
				}
				if len(m.live) == 0 && err != nil && !injected {
					t.Fatalf("op %d: clean Release = %v", i/3, err)
				}
				released = true
			case 10:
				up.FailNextAlloc(errors.New("injected alloc failure"))
			case 11:
				up.FailNextFree(errors.New("injected free failure"))
			}
			if err := m.check(p, up); err != nil {
				t.Fatalf("op %d (%d, %d): %v", i/3, op, v, err)
			}
		}
		up.mu.Lock()
		up.failNext, up.failFree = nil, nil
		up.mu.Unlock()
		if err := m.drain(p, up); err != nil {
			t.Fatal(err)
		}
	})
}
