package catalog_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/catalog"
)

func TestIndexChunkZones(t *testing.T) {
	c := catalog.New()
	n := catalog.ZoneChunkRows*2 + 10
	ids, names := seq(0, n)
	for i := range names {
		if i >= catalog.ZoneChunkRows && i < 2*catalog.ZoneChunkRows {
			names[i] = "" // the second chunk's names are all NULL
		}
	}
	rec := record(t, batch(ids, names))
	defer rec.Release()
	if _, err := c.Create("p", cols, []arrow.Record{rec}, false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateIndex("pi", "P", []string{"ID", "name"}, false); err != nil {
		t.Fatal(err)
	}
	ixs := c.Indexes("p")
	if len(ixs) != 1 || ixs[0].Name != "pi" || ixs[0].Table != "p" || len(ixs[0].Cols) != 2 || ixs[0].Cols[0] != 0 || ixs[0].Cols[1] != 1 {
		t.Fatalf("Indexes = %+v", ixs)
	}
	tbl, _ := c.Get("p")
	z := ixs[0].ChunkZones(tbl, 0)
	if len(z) != 3 {
		t.Fatalf("%d chunks, want 3", len(z))
	}
	for k, want := range [][2]int64{{0, catalog.ZoneChunkRows - 1}, {catalog.ZoneChunkRows, 2*catalog.ZoneChunkRows - 1}, {2 * catalog.ZoneChunkRows, int64(n) - 1}} {
		if z[k][0].MinI == nil || *z[k][0].MinI != want[0] || *z[k][0].MaxI != want[1] || z[k][0].Nulls != 0 {
			t.Errorf("chunk %d id zone %+v, want [%d, %d]", k, z[k][0], want[0], want[1])
		}
	}
	if z[1][1].Nulls != catalog.ZoneChunkRows || z[1][1].MinS != nil {
		t.Errorf("chunk 1 name zone %+v, want all NULL", z[1][1])
	}
	if again := ixs[0].ChunkZones(tbl, 0); &again[0][0] != &z[0][0] {
		t.Error("chunk zones recomputed for the same record")
	}

	for _, tc := range []struct {
		name, table string
		cols        []string
		ifNot       bool
		wantErr     bool
	}{
		{"pi", "p", []string{"id"}, false, true}, // exists
		{"pi", "p", []string{"id"}, true, false}, // IF NOT EXISTS
		{"q", "p", []string{"nope"}, false, true},
		{"q", "p", []string{"id", "Id"}, false, true},
		{"q", "nosuch", []string{"id"}, false, true},
	} {
		if err := c.CreateIndex(tc.name, tc.table, tc.cols, tc.ifNot); (err != nil) != tc.wantErr {
			t.Errorf("CreateIndex(%s, %s, %v): %v", tc.name, tc.table, tc.cols, err)
		}
	}
	if err := c.DropIndex("nope", "", false); err == nil {
		t.Error("DropIndex of an unknown index succeeded")
	}
	if err := c.DropIndex("nope", "", true); err != nil {
		t.Error(err)
	}
	if err := c.DropIndex("pi", "other", false); err == nil {
		t.Error("DropIndex ON the wrong table succeeded")
	}
	if _, err := c.Drop("p", false); err != nil {
		t.Fatal(err)
	}
	if len(c.Indexes("p")) != 0 {
		t.Error("DROP TABLE kept its index")
	}
	if err := c.DropIndex("pi", "", false); err == nil {
		t.Error("the dropped table's index is still there")
	}
}
