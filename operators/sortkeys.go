package operators

import (
	"context"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/operators/sortkey"
	"github.com/gsqlengine/gsql/opspec"
)

// sortByNormalizedKeys returns the rows of b in the order of keys, ties in
// row order (a stable sort), by normalized keys (package sortkey). It
// reports ok=false for key types those cannot encode, leaving the caller
// to compare rows.
func sortByNormalizedKeys(ctx context.Context, b *coldata.Batch, keys []opspec.SortKey) (perm []int, ok bool, err error) {
	sk := make([]sortkey.Key, len(keys))
	for i, k := range keys {
		sk[i] = sortkey.Key{Vec: b.Cols[k.Col], Desc: k.Desc, Nulls: k.Nulls}
	}
	perm = make([]int, b.Len)
	// Millions of rows take long enough to fill (the pages fault in)
	// for a cancel to be looked at.
	for lo := 0; lo < len(perm); lo += 1 << 16 {
		if err := ctx.Err(); err != nil {
			return nil, true, err
		}
		for i := lo; i < min(lo+1<<16, len(perm)); i++ {
			perm[i] = i
		}
	}
	if ok, err = sortkey.Sort(ctx, sk, perm); !ok || err != nil {
		return nil, ok, err
	}
	return perm, true, nil
}
