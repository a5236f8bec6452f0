package memory

// chunk is one contiguous piece of a slab, free or handed out. Chunk records
// are recycled through Pool.spare so that splitting and merging in the steady
// state allocate no Go memory.
type chunk struct {
	addr, size uint64
	slab       *slab
	// prev and next link the chunks of one slab in address order; they are
	// nil at the slab's ends, which is what keeps coalescing inside a slab.
	prev, next *chunk
	// left, right and prio place a free chunk in the free index.
	left, right *chunk
	prio        uint32
	free        bool
}

// freeIndex orders free chunks by (size, addr): a treap threaded through the
// chunks themselves. Best fit is a lower-bound search; the address tiebreak
// makes the choice deterministic (lowest address among equal sizes), which
// keeps tests exact and packs blocks towards the start of slabs.
type freeIndex struct {
	root *chunk
	n    int
	rng  uint32
}

func chunkLess(a, b *chunk) bool {
	return a.size < b.size || (a.size == b.size && a.addr < b.addr)
}

func (t *freeIndex) insert(c *chunk) {
	// xorshift32: priorities only need to be unpredictable relative to the
	// insertion order, not cryptographically random.
	if t.rng == 0 {
		t.rng = 0x9e3779b9
	}
	t.rng ^= t.rng << 13
	t.rng ^= t.rng >> 17
	t.rng ^= t.rng << 5
	c.left, c.right, c.prio = nil, nil, t.rng
	t.root = treapInsert(t.root, c)
	t.n++
}

func treapInsert(root, c *chunk) *chunk {
	if root == nil {
		return c
	}
	if chunkLess(c, root) {
		root.left = treapInsert(root.left, c)
		if root.left.prio > root.prio {
			l := root.left
			root.left, l.right = l.right, root
			return l
		}
		return root
	}
	root.right = treapInsert(root.right, c)
	if root.right.prio > root.prio {
		r := root.right
		root.right, r.left = r.left, root
		return r
	}
	return root
}

// remove takes c out of the index; c must be in it (the key is unique).
func (t *freeIndex) remove(c *chunk) {
	t.root = treapRemove(t.root, c)
	c.left, c.right = nil, nil
	t.n--
}

func treapRemove(root, c *chunk) *chunk {
	if root == nil {
		return nil
	}
	if root == c {
		return treapMerge(root.left, root.right)
	}
	if chunkLess(c, root) {
		root.left = treapRemove(root.left, c)
	} else {
		root.right = treapRemove(root.right, c)
	}
	return root
}

// treapMerge joins two treaps whose keys are all smaller in a than in b.
func treapMerge(a, b *chunk) *chunk {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	if a.prio > b.prio {
		a.right = treapMerge(a.right, b)
		return a
	}
	b.left = treapMerge(a, b.left)
	return b
}

// bestFit returns the smallest free chunk of at least size bytes, or nil.
func (t *freeIndex) bestFit(size uint64) *chunk {
	var best *chunk
	for cur := t.root; cur != nil; {
		if cur.size >= size {
			best, cur = cur, cur.left
		} else {
			cur = cur.right
		}
	}
	return best
}

// largest returns the biggest free chunk, or nil.
func (t *freeIndex) largest() *chunk {
	cur := t.root
	for cur != nil && cur.right != nil {
		cur = cur.right
	}
	return cur
}
