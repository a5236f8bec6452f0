package gpuexec_test

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
	"github.com/gsqlengine/gsql/memory"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
)

// A device join whose build side runs out of device memory, and then
// every partition's build too, joins on the host instead of failing:
// every kind answers as a nested-loop join, over left batches read ahead
// and streamed, and EXPLAIN's counters say so.
// Other build errors still fail the join.
func TestFakeJoinOnHostAfterOOM(t *testing.T) {
	defer operators.SetTinyRows(0)() // not the tiny inputs' host path
	dev, rt := tinyDevice(t)
	rng := rand.New(rand.NewSource(23))
	ltypes := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	rtypes := []coldata.Type{coldata.Int64, coldata.String, coldata.Int64}
	val := func(t coldata.Type) any {
		if rng.Intn(7) == 0 {
			return nil
		}
		if t == coldata.String {
			return []string{"", "a", "b", "ab"}[rng.Intn(4)]
		}
		return int64(rng.Intn(40))
	}
	left := tinyColumns(ltypes, 3000, func(c, r int) any { return val(ltypes[c]) })
	right := tinyColumns(rtypes, 2500, func(c, r int) any { return val(rtypes[c]) })
	var lparts, rparts []*coldata.Batch
	for lo := 0; lo < left.Len; lo += 700 {
		lparts = append(lparts, coldata.SliceBatch(left, lo, min(left.Len, lo+700)))
	}
	for lo := 0; lo < right.Len; lo += 900 {
		rparts = append(rparts, coldata.SliceBatch(right, lo, min(right.Len, lo+900)))
	}
	const nlOut, nrOut = 2, 2
	oom := func(context.Context, *gpuexec.Device, *gpuexec.DeviceBatch, []int, bool) (*gpuexec.JoinTable, error) {
		return nil, fmt.Errorf("join build: %w", &memory.OutOfMemoryError{Requested: 1 << 30, Limit: 1 << 20})
	}
	kc := tinyJoinCase{"bigint", []int{0}, []int{0}}
	for _, kind := range []opspec.JoinKind{opspec.InnerJoin, opspec.LeftJoin, opspec.SemiJoin, opspec.AntiJoin} {
		semi := kind == opspec.SemiJoin || kind == opspec.AntiJoin
		want := nestedJoin(left, right, kc, kind, nlOut, nrOut, func(int, int) bool { return true })
		j := &operators.DeviceHashJoin{
			Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
			Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
			RT:    rt, LeftKeys: kc.left, RightKeys: kc.right, Kind: kind,
			LeftTypes: ltypes[:nlOut], RightTypes: rtypes[:nrOut], RightInTypes: rtypes, Stats: &operators.Stats{},
			BuildOn: oom,
		}
		if semi {
			j.RightTypes = nil
		}
		got := runDevice(t, dev, j)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("kind %d: %d rows, want %d", kind, len(got), len(want))
		}
		if j.Stats.HostJoinOOM.Load() != 1 {
			t.Errorf("kind %d: the join did not say it moved to the host", kind)
		}
		// It was split first: every partition's build failed too.
		if n := j.Stats.OOMPartitions.Load(); n < 2 {
			t.Errorf("kind %d: oom_partitions=%d, want the join split first", kind, n)
		}
	}
	// An error other than out of memory stands.
	j := &operators.DeviceHashJoin{
		Left:  &operators.HostToDevice{Input: &operators.Materialized{Batches: lparts}, RT: rt},
		Right: &operators.HostToDevice{Input: &operators.Materialized{Batches: rparts}, RT: rt},
		RT:    rt, LeftKeys: kc.left, RightKeys: kc.right, Kind: opspec.InnerJoin,
		LeftTypes: ltypes[:nlOut], RightTypes: rtypes[:nrOut], RightInTypes: rtypes,
		BuildOn: func(context.Context, *gpuexec.Device, *gpuexec.DeviceBatch, []int, bool) (*gpuexec.JoinTable, error) {
			return nil, gpuexec.ErrClosed
		},
	}
	ctx := context.Background()
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.NextDevice(ctx); err == nil {
		t.Fatal("a failed build without memory shortage answered")
	}
}
