package operators

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// groupRowsChunk is how many rows GroupRows hashes between checks of its
// context: large enough that a chunk still probes in parallel parts.
const groupRowsChunk = 1 << 20

// groupRowsFirst is GroupRows' first chunk.
const groupRowsFirst = 1 << 12

// GroupRows numbers the rows of the key columns keys (n rows each) by
// group with GROUP BY's hash table: ids[r] is row r's group, numbered 0,
// 1, 2, ... in order of first appearance, and groups the number of
// groups. Keys group as GROUP BY groups them: NULLs form one group, -0.0
// equals 0.0, strings compare their bytes, DECIMALs their values. Without
// keys every row is group 0.
func GroupRows(ctx context.Context, keys []*coldata.Vec, n int) (ids []uint32, groups int, err error) {
	ids = make([]uint32, n)
	if len(keys) == 0 {
		return ids, min(n, 1), nil
	}
	types := make([]coldata.Type, len(keys))
	for i, v := range keys {
		if v.Len != n && !v.Const {
			return nil, 0, fmt.Errorf("internal error: group key %d has %d rows, want %d", i, v.Len, n)
		}
		types[i] = v.Type
	}
	t := newHashTable(types)
	defer t.release()
	kv := make([]keyVec, len(keys))
	defer func() {
		for i := range kv {
			kv[i].release()
		}
	}()
	for i, v := range keys {
		kv[i].prepare(v, n)
	}
	// Chunks grow from small: a chunk's rows probe the table before any
	// of its new keys are inserted, and each row that misses takes the
	// slow insertion path, so the first chunk (all misses) stays small.
	for lo, step := 0, groupRowsFirst; lo < n; lo, step = lo+step, min(2*step, groupRowsChunk) {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if err := t.findOrInsert(kv, lo, min(lo+step, n), ids, nil, nil); err != nil {
			return nil, 0, fmt.Errorf("grouping rows: %w", err)
		}
	}
	return ids, t.n, nil
}
