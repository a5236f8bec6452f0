package winspec

import (
	"fmt"

	"github.com/gsqlengine/gsql/coldata"
)

// DeviceKeyType reports whether a GPU window sorts keys of type t on the
// device: the fixed-width types the device's radix sort orders (BOOLEAN,
// BIGINT, DATE, TIMESTAMP, DOUBLE, DECIMAL of at most 18 digits) and text
// (packed whole up to 32 bytes a string; a longer one sends the ordering
// to the host at run time); a test in operators/window keeps this equal
// to gpuexec.WindowSortable.
func DeviceKeyType(t coldata.Type) bool {
	switch t.Physical() {
	case coldata.Bool, coldata.Int64, coldata.Float64, coldata.String:
		return t != coldata.Null
	case coldata.Decimal:
		return t.Precision() <= 18
	}
	return false
}

// TextKeys reports whether the ordering of funcs[i] has a text key (which
// the device sorts when its strings are at most 32 bytes).
func TextKeys(funcs []Func, i int) bool {
	f := &funcs[i]
	for _, e := range f.Partition {
		if t := e.Type(); t != coldata.Null && t.Physical() == coldata.String {
			return true
		}
	}
	for _, k := range f.Order {
		if t := k.Expr.Type(); t != coldata.Null && t.Physical() == coldata.String {
			return true
		}
	}
	return false
}

// DeviceFrame reports whether the device computes frame fr from the
// ordering's spans: ROWS with non-negative integer offsets, or RANGE
// without offsets (a RANGE offset compares key values).
func DeviceFrame(fr Frame) bool {
	for _, b := range []Bound{fr.Start, fr.End} {
		if b.Kind != Preceding && b.Kind != Following {
			continue
		}
		if k, ok := b.Offset.(int64); fr.Unit != Rows || !ok || k < 0 {
			return false
		}
	}
	return true
}

// HostSortReason says why a GPU window sorts the ordering of funcs[i]
// (shared by the later functions with its OrderIdentity) on the host, or
// returns "" when the device sorts it: a key of a type the device does not
// order, or a frame it does not compute.
func HostSortReason(funcs []Func, i int) string {
	f := &funcs[i]
	for _, e := range f.Partition {
		if !DeviceKeyType(e.Type()) {
			return fmt.Sprintf("a %s key", e.Type())
		}
	}
	for _, k := range f.Order {
		if !DeviceKeyType(k.Expr.Type()) {
			return fmt.Sprintf("a %s key", k.Expr.Type())
		}
	}
	id := OrderIdentity(f)
	for j := i; j < len(funcs); j++ {
		g := &funcs[j]
		if g.Kind.UsesFrame() && OrderIdentity(g) == id && !DeviceFrame(g.Frame) {
			return fmt.Sprintf("the frame %s", g.Frame)
		}
	}
	return ""
}
