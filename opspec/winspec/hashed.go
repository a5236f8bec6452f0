package winspec

import "github.com/gsqlengine/gsql/coldata"

// A window aggregate whose frame is its whole partition gives every row
// of a partition the same value: its partition's aggregate. Such a
// function needs no sort: the window operators group the rows by the
// partition keys in a hash table, aggregate per group and scatter the
// results back to the rows. PartitionAggregate and DeviceHashable say
// which functions qualify (the planner's EXPLAIN and the operators ask
// the same questions); Hashed and DeviceHashed decide for a function
// among the functions of one window operator.

// PartitionAggregate reports whether f is COUNT(*), COUNT, SUM, AVG, MIN
// or MAX over its whole partition whose result does not depend on the
// order of the partition's rows, so that the CPU's hashed path gives what
// the sorted path gives: with an ORDER BY, DOUBLE sums (rounding follows
// the order of the additions) and DOUBLE MIN/MAX (which of -0 and 0
// wins) keep the sort.
func PartitionAggregate(f *Func) bool {
	if len(f.Partition)+len(f.Order) == 0 || !WholePartition(f) {
		return false // without keys nothing is sorted anyway
	}
	switch f.Kind {
	case CountStar, Count:
		return true
	case Sum, Avg, Min, Max:
	default:
		return false
	}
	if len(f.Args) != 1 {
		return false
	}
	switch t := f.Args[0].Type().Physical(); t {
	case coldata.Int64, coldata.Bool, coldata.Decimal:
		return true
	case coldata.Float64:
		return len(f.Order) == 0
	case coldata.String:
		return f.Kind == Min || f.Kind == Max
	}
	return false
}

// WholePartition reports whether every row's frame of f is its whole
// partition: from UNBOUNDED PRECEDING (or a RANGE's CURRENT ROW without
// ORDER BY, where every row is a peer) to UNBOUNDED FOLLOWING (or
// likewise CURRENT ROW).
func WholePartition(f *Func) bool {
	peersAll := f.Frame.Unit == Range && len(f.Order) == 0
	start := f.Frame.Start.Kind == UnboundedPreceding || peersAll && f.Frame.Start.Kind == CurrentRow
	end := f.Frame.End.Kind == UnboundedFollowing || peersAll && f.Frame.End.Kind == CurrentRow
	return start && end
}

// DeviceHashable reports whether the device computes f by hashing: a
// PartitionAggregate whose argument the device's GROUP BY states hold and
// finish per row (COUNT of anything, SUM/AVG of BIGINT-like, BOOLEAN or
// DOUBLE values, MIN/MAX of BIGINT-like or DOUBLE values) and whose
// partition keys it groups by (no NULL-typed key).
func DeviceHashable(f *Func) bool {
	if !PartitionAggregate(f) {
		return false
	}
	for _, p := range f.Partition {
		switch p.Type().Physical() {
		case coldata.Bool, coldata.Int64, coldata.Float64, coldata.String, coldata.Decimal:
		default:
			return false
		}
	}
	switch f.Kind {
	case CountStar, Count:
		return true
	}
	switch f.Args[0].Type().Physical() {
	case coldata.Int64, coldata.Float64:
		return true
	case coldata.Bool:
		return f.Kind == Sum || f.Kind == Avg
	}
	return false
}

// Hashed reports whether funcs[i] is computed by hashing on the CPU:
// it and every function sharing its window (OrderIdentity) are
// PartitionAggregates, so no sort is needed for that window.
func Hashed(funcs []Func, i int) bool { return sharing(funcs, i, PartitionAggregate) }

// DeviceHashed is Hashed for the device operator (DeviceHashable).
func DeviceHashed(funcs []Func, i int) bool { return sharing(funcs, i, DeviceHashable) }

func sharing(funcs []Func, i int, ok func(*Func) bool) bool {
	if !ok(&funcs[i]) {
		return false
	}
	key := OrderIdentity(&funcs[i])
	for j := range funcs {
		if j != i && OrderIdentity(&funcs[j]) == key && !ok(&funcs[j]) {
			return false
		}
	}
	return true
}

// AnyHashed reports whether some function of funcs is computed by hashing
// (device: on the device operator), for EXPLAIN.
func AnyHashed(funcs []Func, device bool) (some, all bool) {
	all = len(funcs) > 0
	for i := range funcs {
		h := Hashed(funcs, i)
		if device {
			h = DeviceHashed(funcs, i)
		}
		some = some || h
		all = all && h
	}
	return some, all
}
