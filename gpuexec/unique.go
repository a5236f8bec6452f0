package gpuexec

import (
	"context"
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// Unique-key checks on the device: whether rows added to a table would
// give two rows one value of a PRIMARY KEY or UNIQUE key. The new rows'
// key is hashed as a join's build side (gsql_join_insert, which flags a
// key met twice among them), and the table's rows probe it as a semi
// join: the host learns whether a key collides, never which row; the
// caller finds that row on the host, where its error names it. A key
// with a NULL never collides (SQL's UNIQUE), as a join key with a NULL
// never matches.

// KeyHashable reports whether the device hashes and compares values of
// type t (a key column of BuildKeyCheck).
func KeyHashable(t coldata.Type) bool { return groupableType(t) }

// BuildKeyCheck hashes the key columns keys of fresh, the rows to add,
// and says in the table's Repeats whether two of them share a key. Probe
// the table's rows with ProbeRows (semi): a row kept shares a key with a
// new row. Release the table.
func (d *Device) BuildKeyCheck(ctx context.Context, fresh *DeviceBatch, keys []int) (*JoinTable, error) {
	if len(keys) == 0 {
		return nil, invalidf("key check without key columns")
	}
	return d.buildJoinTable(ctx, fresh, keys, false, true)
}

// KeysCollide reports whether adding the rows of fresh to a table would
// break a unique key over columns keys of fresh: two new rows share a
// key, or a new row and a row of the table do. next hands out the
// table's batches (nil at the end; each released after its probe), whose
// columns exKeys hold the key, of the same types as fresh's.
func (d *Device) KeysCollide(ctx context.Context, fresh *DeviceBatch, keys []int, next func() (*DeviceBatch, error), exKeys []int) (bool, error) {
	if len(exKeys) != len(keys) {
		return false, invalidf("key check with %d table key columns for %d", len(exKeys), len(keys))
	}
	t, err := d.BuildKeyCheck(ctx, fresh, keys)
	if err != nil {
		return false, fmt.Errorf("key check: %w", err)
	}
	defer t.Release()
	if t.Repeats {
		return true, nil
	}
	for {
		b, err := next()
		if err != nil || b == nil {
			return false, err
		}
		hit, err := t.Collides(ctx, b, exKeys)
		b.Release()
		if hit || err != nil {
			return hit, err
		}
	}
}

// Collides reports whether a row of b holds, in columns keys, a key of
// the table t (a semi join probe; b's rows with a NULL key match none).
func (t *JoinTable) Collides(ctx context.Context, b *DeviceBatch, keys []int) (bool, error) {
	if b.Len == 0 {
		return false, nil
	}
	pairs, err := t.ProbeRows(ctx, b, keys, false)
	if err != nil {
		return false, fmt.Errorf("key check: %w", err)
	}
	n := pairs.Len
	pairs.Release()
	return n > 0, nil
}
