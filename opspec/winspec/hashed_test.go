package winspec

import (
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
)

// TestPartitionAggregate: which functions are computed by hashing their
// partition keys, on the CPU and on the device.
func TestPartitionAggregate(t *testing.T) {
	col := func(i int, ty coldata.Type) expr.Expr { return &expr.ColumnRef{Index: i, Name: "c", T: ty} }
	key := []expr.Expr{col(0, coldata.String)}
	order := []Key{{Expr: col(1, coldata.Int64)}}
	whole := Frame{Unit: Rows, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: UnboundedFollowing}}
	running := DefaultFrame(true)
	peers := Frame{Unit: Range, Start: Bound{Kind: CurrentRow}, End: Bound{Kind: CurrentRow}}
	rowsCur := Frame{Unit: Rows, Start: Bound{Kind: UnboundedPreceding}, End: Bound{Kind: CurrentRow}}
	for _, tc := range []struct {
		name        string
		f           Func
		cpu, device bool
	}{
		{"count(*) by key", Func{Kind: CountStar, Partition: key, Frame: DefaultFrame(false)}, true, true},
		{"count(*) over ()", Func{Kind: CountStar, Frame: DefaultFrame(false)}, false, false},
		{"count(*) ordered whole", Func{Kind: CountStar, Partition: key, Order: order, Frame: whole}, true, true},
		{"count(*) ordered, running", Func{Kind: CountStar, Partition: key, Order: order, Frame: running}, false, false},
		{"count(*) ordered, no key, whole", Func{Kind: CountStar, Order: order, Frame: whole}, true, true},
		{"sum range current, unordered", Func{Kind: Sum, Args: []expr.Expr{col(1, coldata.Int64)}, Partition: key, Frame: peers}, true, true},
		{"sum rows to current, unordered", Func{Kind: Sum, Args: []expr.Expr{col(1, coldata.Int64)}, Partition: key, Frame: rowsCur}, false, false},
		{"sum double", Func{Kind: Sum, Args: []expr.Expr{col(2, coldata.Float64)}, Partition: key, Frame: DefaultFrame(false)}, true, true},
		{"sum double ordered", Func{Kind: Sum, Args: []expr.Expr{col(2, coldata.Float64)}, Partition: key, Order: order, Frame: whole}, false, false},
		{"max double ordered", Func{Kind: Max, Args: []expr.Expr{col(2, coldata.Float64)}, Partition: key, Order: order, Frame: whole}, false, false},
		{"min bigint ordered", Func{Kind: Min, Args: []expr.Expr{col(1, coldata.Int64)}, Partition: key, Order: order, Frame: whole}, true, true},
		{"avg decimal", Func{Kind: Avg, Args: []expr.Expr{col(3, coldata.DecimalOf(10, 2))}, Partition: key, Frame: whole}, true, false},
		{"min text", Func{Kind: Min, Args: []expr.Expr{col(4, coldata.String)}, Partition: key, Frame: whole}, true, false},
		{"count text", Func{Kind: Count, Args: []expr.Expr{col(4, coldata.String)}, Partition: key, Frame: whole}, true, true},
		{"sum boolean", Func{Kind: Sum, Args: []expr.Expr{col(5, coldata.Bool)}, Partition: key, Frame: whole}, true, true},
		{"max boolean", Func{Kind: Max, Args: []expr.Expr{col(5, coldata.Bool)}, Partition: key, Frame: whole}, true, false},
		{"max date", Func{Kind: Max, Args: []expr.Expr{col(6, coldata.Date)}, Partition: key, Frame: whole}, true, true},
		{"first_value", Func{Kind: FirstValue, Args: []expr.Expr{col(1, coldata.Int64)}, Partition: key, Frame: whole}, false, false},
		{"row_number", Func{Kind: RowNumber, Partition: key}, false, false},
		{"NULL-typed key", Func{Kind: CountStar, Partition: []expr.Expr{col(7, coldata.Null)}, Frame: whole}, true, false},
	} {
		if got := PartitionAggregate(&tc.f); got != tc.cpu {
			t.Errorf("%s: PartitionAggregate = %v, want %v", tc.name, got, tc.cpu)
		}
		if got := DeviceHashable(&tc.f); got != tc.device {
			t.Errorf("%s: DeviceHashable = %v, want %v", tc.name, got, tc.device)
		}
	}
}
