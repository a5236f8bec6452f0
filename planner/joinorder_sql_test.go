package planner_test

import (
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
)

// sizedCatalog holds (the join-order plans over such tables are checked
// from SQL in tests/sql/optimizer/reorder_joins.test) tables of one BIGINT column k and the given row counts.
func sizedCatalog(t *testing.T, sizes map[string]int) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	for name, n := range sizes {
		cols := []catalog.Column{{Name: "k", Type: coldata.Int64}, {Name: "j", Type: coldata.Int64}}
		if _, err := cat.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
		k, j := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.Int64, n)
		for i := 0; i < n; i++ {
			k.AppendValue(int64(i))
			j.AppendValue(int64(i % 7))
		}
		if err := cat.Append(name, coldata.NewBatch([]*coldata.Vec{k.Finish(), j.Finish()}, n)); err != nil {
			t.Fatal(err)
		}
	}
	return cat
}
