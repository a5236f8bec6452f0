package operators

import (
	"math/bits"
	"runtime"
	"sync"
)

// keyParts is a set of keys split over hash tables by the top bits of the
// keys' hashes, so that a batch's new keys insert in parallel, one
// goroutine per table. It serves COUNT(DISTINCT) without GROUP BY, whose
// result does not depend on the order keys arrive in.
type keyParts struct {
	tables []*hashTable
	shift  uint
	hashes []uint64
	parts  []keyPart
}

// keyPart is one table's scratch: its rows of the batch, their keys
// gathered, ids, the rows that inserted their key and how many counted.
type keyPart struct {
	sel     []int32
	keys    []keyVec
	ids     []uint32
	created []int32
	n       int
	err     error
}

// newKeyParts returns a keyParts holding the keys of src (which it leaves
// alone), with one table per CPU rounded up to a power of two.
func newKeyParts(src *hashTable) (*keyParts, error) {
	np := 1 << bits.Len(uint(min(max(runtime.GOMAXPROCS(0), 1), 64)-1))
	kp := &keyParts{shift: uint(64 - bits.TrailingZeros(uint(np))), parts: make([]keyPart, np)}
	for p := 0; p < np; p++ {
		t := newHashTable(src.types)
		t.seed = src.seed    // the routing hash is the table's hash
		t.partRows = 1 << 30 // the tables already run in parallel
		kp.tables = append(kp.tables, t)
		kp.parts[p].keys = make([]keyVec, len(src.types))
	}
	if src.n == 0 {
		return kp, nil
	}
	keys := make([]keyVec, len(src.types))
	for i := range keys {
		v, err := src.column(i)
		if err != nil {
			return nil, err
		}
		if err := keys[i].prepareAs(v, src.n, src.types[i]); err != nil {
			return nil, err
		}
	}
	if _, err := kp.insert(keys, src.n, nil); err != nil {
		return nil, err
	}
	return kp, nil
}

// insert adds rows [0, n) of keys and returns how many rows inserted a key
// not seen before and pass count (all of them when count is nil). count is
// called concurrently.
func (kp *keyParts) insert(keys []keyVec, n int, count func(r int32) bool) (int, error) {
	if cap(kp.hashes) < n {
		kp.hashes = make([]uint64, n)
	}
	hs := kp.hashes[:n]
	kp.tables[0].hashRows(keys, hs)
	for p := range kp.parts {
		kp.parts[p].sel = kp.parts[p].sel[:0]
	}
	for r, x := range hs {
		p := &kp.parts[x>>kp.shift]
		p.sel = append(p.sel, int32(r))
	}
	var wg sync.WaitGroup
	for p := range kp.parts {
		kp.parts[p].n, kp.parts[p].err = 0, nil
		if len(kp.parts[p].sel) == 0 {
			continue
		}
		wg.Add(1)
		go func(t *hashTable, kpp *keyPart) {
			defer wg.Done()
			m := len(kpp.sel)
			for i := range keys {
				kpp.keys[i].gather(&keys[i], kpp.sel)
			}
			if cap(kpp.ids) < m {
				kpp.ids = make([]uint32, m)
			}
			kpp.created = kpp.created[:0]
			if err := t.findOrInsert(kpp.keys, 0, m, kpp.ids[:m], nil, &kpp.created); err != nil {
				kpp.err = err
				return
			}
			for _, i := range kpp.created {
				if count == nil || count(kpp.sel[i]) {
					kpp.n++
				}
			}
		}(kp.tables[p], &kp.parts[p])
	}
	wg.Wait()
	total := 0
	for p := range kp.parts {
		if err := kp.parts[p].err; err != nil {
			return 0, err
		}
		total += kp.parts[p].n
	}
	return total, nil
}
