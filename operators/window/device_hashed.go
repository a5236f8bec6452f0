package window

import (
	"context"
	"errors"

	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec/winspec"
)

// hashed computes, without a sort, the functions sharing funcs[i]'s
// window when winspec.DeviceHashed says they are all aggregates over
// whole partitions the device finishes per row: GROUP BY's hash table on
// the partition keys, then each row's partition value
// (gpuexec.WindowHashed). It marks them done, sets their results and
// returns the batch that owns them; nil (and nothing marked) when an
// integer sum may pass BIGINT, which the sorted path then computes
// exactly on the host.
func (o *DeviceOperator) hashed(ctx context.Context, all *gpuexec.DeviceBatch, i int, done []bool, results []gpuexec.DeviceVec) (*gpuexec.DeviceBatch, error) {
	f := &o.Funcs[i]
	keys := make([]int, len(f.Partition))
	for k, e := range f.Partition {
		keys[k] = colIndex(e)
	}
	key := winspec.OrderIdentity(f)
	var group []int
	var aggs []gpuexec.WindowHashAgg
	for j := i; j < len(o.Funcs); j++ {
		g := &o.Funcs[j]
		if done[j] || winspec.OrderIdentity(g) != key {
			continue
		}
		a := gpuexec.WindowHashAgg{CountStar: g.Kind == winspec.CountStar, Kind: aggKinds[g.Kind], Out: g.Type}
		if !a.CountStar {
			a.Arg = colIndex(g.Args[0])
		}
		group = append(group, j)
		aggs = append(aggs, a)
	}
	o.launched(int64(3 + 3*len(aggs)))
	b, err := o.RT.Dev.WindowHashed(ctx, all, keys, aggs)
	if errors.Is(err, gpuexec.ErrWindowOverflow) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for k, j := range group {
		done[j] = true
		results[j] = b.Cols[k]
	}
	return b, nil
}
