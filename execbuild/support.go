package execbuild

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/operators"
	"github.com/gsqlengine/gsql/opspec"
	"github.com/gsqlengine/gsql/planner"
)

// GPUSupport is the placement check of the fused-kernel generator: fused
// when the whole operator compiles into one kernel set; supported (library
// path) when every function call compiles on its own; otherwise an error
// naming the first function without a GPU implementation.
func GPUSupport(inputs []planner.Column, pred expr.Expr, exprs []expr.Expr) (fused bool, err error) {
	types := make([]coldata.Type, len(inputs))
	for i, c := range inputs {
		types[i] = c.Type
	}
	outs := exprs
	if outs == nil {
		outs = planner.PassThrough(inputs)
	}
	for i, t := range types {
		if t == coldata.Null {
			return false, fmt.Errorf("column %s has no type", inputs[i].Name)
		}
	}
	all := append([]expr.Expr(nil), outs...)
	if pred != nil {
		all = append(all, pred)
	}
	for _, e := range all {
		hostOnly := false
		expr.Walk(e, func(x expr.Expr) {
			if c, ok := x.(*expr.Call); ok && c.Fn.Volatile {
				hostOnly = true
			}
		})
		if hostOnly {
			return false, planner.ErrHostOnly
		}
	}
	if ferr := fuse.Check(types, pred, outs); ferr == nil {
		return true, nil
	}
	for _, e := range all {
		var bad error
		expr.Walk(e, func(x expr.Expr) {
			c, ok := x.(*expr.Call)
			if !ok || bad != nil {
				return
			}
			var kin []coldata.Type
			nc := *c
			nc.Args = make([]expr.Expr, len(c.Args))
			for i, a := range c.Args {
				if l, lit := a.(*expr.Literal); lit {
					nc.Args[i] = l
					continue
				}
				nc.Args[i] = &expr.ColumnRef{Index: len(kin), Name: "arg", T: a.Type()}
				kin = append(kin, a.Type())
			}
			if gerr := fuse.Check(kin, nil, []expr.Expr{&nc}); gerr != nil {
				bad = fmt.Errorf("function %s has no GPU implementation", strings.ToUpper(c.Fn.Name))
			}
		})
		if bad != nil {
			return false, bad
		}
	}
	return false, nil
}

// AggregatesOnDevice is planner.PlaceOptions.Aggregates for the device
// GROUP BY: nil when every aggregate of aggs has a device implementation.
func AggregatesOnDevice(aggs []opspec.AggSpec) error {
	_, err := operators.DeviceAggKinds(aggs)
	return err
}
