package planner_test

import (
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/planner"
)

// A join placed on the GPU computes its key expressions into extra input
// columns (ON f.id = e.id + 1): the origins of the join's output still
// come from the columns it outputs, left then right.
func TestOriginsThroughDeviceJoinWithComputedKeys(t *testing.T) {
	cat := catalog.New()
	createTable(t, cat, "CREATE TABLE emp (id BIGINT, name VARCHAR, dept VARCHAR, salary BIGINT)")
	n, err := plan(t, cat, "WITH h AS (SELECT 'hr' AS dept) SELECT e.name, f.name, e.dept FROM emp e LEFT JOIN emp f ON f.id = e.id + 1, h WHERE e.dept = h.dept")
	if err != nil {
		t.Fatal(err)
	}
	opts := planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice}
	if n, err = planner.Place(n, opts); err != nil {
		t.Fatal(err)
	}
	got := planner.Origins(n)
	want := []struct {
		alias, col string
		outerNull  bool
	}{{"e", "name", false}, {"f", "name", true}, {"e", "dept", false}}
	if len(got) != len(want) {
		t.Fatalf("%d origins, want %d", len(got), len(want))
	}
	for i, w := range want {
		o := got[i]
		if o.Table == nil || o.Alias != w.alias || o.Table.Columns[o.Col].Name != w.col || o.OuterNull != w.outerNull {
			t.Errorf("column %d: origin %+v, want %s.%s outer-null %v", i, o, w.alias, w.col, w.outerNull)
		}
	}
}
