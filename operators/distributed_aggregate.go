package operators

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/exchange"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/opspec"
)

// A GROUP BY over a table spread over several GPUs (issue 37): not yet
// placed by the planner; this is the executor a distributed plan will
// call, tested over fake and real devices against the CPU's answer.

// SpreadRoundRobin places host batches over devs, batch k on device
// k mod len(devs), each with an Int64 column appended that numbers its
// rows in the whole input: the distributed GROUP BY orders its groups by
// it (first appearance, as HashAggregate's). The caller releases the parts.
func SpreadRoundRobin(ctx context.Context, devs []*gpuexec.Device, batches []*coldata.Batch) (exchange.Parts, error) {
	if len(devs) == 0 {
		return nil, fmt.Errorf("spread over devices: %w: no device", gpuexec.ErrInvalidArgument)
	}
	out := make(exchange.Parts, len(devs))
	var base int64
	for k, b := range batches {
		rows := coldata.NewVec(coldata.Int64, b.Len)
		for i := range rows.Ints {
			rows.Ints[i] = base + int64(i)
		}
		base += int64(b.Len)
		cols := append(slices.Clip(b.Cols), rows)
		db, err := devs[k%len(devs)].Upload(ctx, coldata.NewBatch(cols, b.Len))
		if err != nil {
			out.Release()
			return nil, fmt.Errorf("spread over devices: batch %d to device %d: %w", k, k%len(devs), err)
		}
		out[k%len(devs)] = append(out[k%len(devs)], db)
	}
	return out, nil
}

// GroupFunc groups one device's rows: gpuexec.Device.GroupBy's shape.
type GroupFunc func(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg) (*gpuexec.GroupPartial, error)

// DistributedAggregate is a GROUP BY over batches spread over the devices
// of Group (SpreadRoundRobin: every batch ends with its rows' numbers in
// the input). Two plans:
//
//   - repartition (the default): rows go to the device their keys hash to
//     (exchange.Group.Repartition), each device groups its share at once,
//     so its groups are final and no other device has them, and the host
//     puts the groups in first-appearance order;
//   - Merge (few groups, or no keys): each device groups the rows it has
//     and the host merges the partial states by key; no row moves.
//
// The answer is HashAggregate's, row for row (float sums may differ in
// their last bits, adding in another order). DISTINCT aggregates and
// quantiles, which have no mergeable partial state here, are refused.
type DistributedAggregate struct {
	Group       *exchange.Group
	Keys        []int
	KeyTypes    []coldata.Type
	Aggs        []opspec.AggSpec
	Merge       bool
	MemoryLimit uint64
	// GroupOn groups one device's batch (nil: the device's GroupBy).
	// Tests over the fake driver, which runs no generated kernels, pass
	// a host twin.
	GroupOn GroupFunc
}

func deviceGroupBy(ctx context.Context, d *gpuexec.Device, b *gpuexec.DeviceBatch, keys []int, aggs []gpuexec.GroupAgg) (*gpuexec.GroupPartial, error) {
	return d.GroupBy(ctx, b, keys, aggs)
}

// Run aggregates in (in[i] on Group.Devices[i]; in stays the caller's).
func (a *DistributedAggregate) Run(ctx context.Context, in exchange.Parts) (*coldata.Batch, error) {
	kinds, err := DeviceAggKinds(a.Aggs)
	if err != nil {
		return nil, err
	}
	for i, s := range a.Aggs {
		if s.Distinct || kinds[i].Kind == gpuexec.GroupQuantileCont || kinds[i].Kind == gpuexec.GroupQuantileDisc {
			return nil, fmt.Errorf("distributed GROUP BY: aggregate %d has no partial state to distribute (DISTINCT or a quantile)", i)
		}
	}
	if a.Group == nil || len(in) != len(a.Group.Devices) {
		return nil, fmt.Errorf("distributed GROUP BY: %w: batches for %d devices", gpuexec.ErrInvalidArgument, len(in))
	}
	width := -1
	for _, bs := range in {
		for _, b := range bs {
			if width >= 0 && len(b.Cols) != width || len(b.Cols) == 0 || b.Cols[len(b.Cols)-1].Type != coldata.Int64 {
				return nil, fmt.Errorf("distributed GROUP BY: %w: batches must share their columns and end with row numbers", gpuexec.ErrInvalidArgument)
			}
			width = len(b.Cols)
		}
	}
	// The extra MIN over the row numbers gives each group its first row.
	first := opspec.AggSpec{Kind: opspec.AggMin, Arg: &expr.ColumnRef{Index: width - 1, Name: "row", T: coldata.Int64}, Type: coldata.Int64}
	withFirst := append(slices.Clip(kinds), gpuexec.GroupAgg{Kind: gpuexec.GroupMinInt, Arg: width - 1})
	h := &DeviceHashAggregate{Keys: a.Keys, KeyTypes: a.KeyTypes, Aggs: a.Aggs, MemoryLimit: a.MemoryLimit}
	if width < 0 {
		return h.mergeParts(nil, kinds) // no rows: one row without keys, none with
	}
	groupOn := a.GroupOn
	if groupOn == nil {
		groupOn = deviceGroupBy
	}
	if a.Merge || len(a.Keys) == 0 {
		parts, err := a.groupEach(ctx, in, groupOn, withFirst)
		if err != nil {
			return nil, err
		}
		hm := &DeviceHashAggregate{Keys: a.Keys, KeyTypes: a.KeyTypes, Aggs: append(slices.Clip(a.Aggs), first), MemoryLimit: a.MemoryLimit}
		out, err := hm.mergeParts(parts, withFirst)
		if err != nil {
			return nil, err
		}
		return byFirstRow(out), nil
	}
	moved, err := a.Group.Repartition(ctx, in, a.Keys)
	if err != nil {
		return nil, fmt.Errorf("distributed GROUP BY: %w", err)
	}
	defer moved.Release()
	parts, err := a.groupEach(ctx, moved, groupOn, withFirst)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return h.mergeParts(nil, kinds)
	}
	return h.finishPartial(combinePartitions(parts, withFirst, nil), kinds)
}

// groupEach groups every device's batches (concatenated on it) at once,
// one goroutine per device; devices without rows give no partial.
func (a *DistributedAggregate) groupEach(ctx context.Context, in exchange.Parts, groupOn GroupFunc, aggs []gpuexec.GroupAgg) ([]*gpuexec.GroupPartial, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parts := make([]*gpuexec.GroupPartial, len(in))
	errs := make([]error, len(in))
	var wg sync.WaitGroup
	for i, bs := range in {
		if len(bs) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := a.Group.Devices[i]
			b := bs[0]
			if len(bs) > 1 {
				c, err := d.Concatenate(bs)
				if err != nil {
					errs[i] = fmt.Errorf("distributed GROUP BY on device %d: %w", d.Info().Ordinal, err)
					cancel()
					return
				}
				defer c.Release()
				b = c
			}
			if parts[i], errs[i] = groupOn(ctx, d, b, a.Keys, aggs); errs[i] != nil {
				errs[i] = fmt.Errorf("distributed GROUP BY on device %d: %w", d.Info().Ordinal, errs[i])
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return slices.DeleteFunc(parts, func(p *gpuexec.GroupPartial) bool { return p == nil }), nil
}

// byFirstRow orders merged groups by their first row (the last column)
// and drops that column.
func byFirstRow(b *coldata.Batch) *coldata.Batch {
	last := b.Cols[len(b.Cols)-1]
	idx := make([]int, b.Len)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		if last.IsNull(x) || last.IsNull(y) {
			return 0
		}
		return int(min(max(last.Int(x)-last.Int(y), -1), 1))
	})
	return coldata.GatherBatch(&coldata.Batch{Cols: b.Cols[:len(b.Cols)-1], Len: b.Len}, idx)
}
