package datagen

import (
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"
)

func TestPeople(t *testing.T) {
	schema, recs := People(3000, 7)
	_, again := People(3000, 7)
	if schema.NumFields() != 2 || len(recs) != 1 || recs[0].NumRows() != 3000 {
		t.Fatalf("shape %v %d", schema, len(recs))
	}
	names := recs[0].Column(0).(*array.String)
	vis := recs[0].Column(1).(*array.String)
	var public, private, nulls, single int
	for i := 0; i < names.Len(); i++ {
		if names.IsNull(i) {
			nulls++
		} else if !strings.Contains(names.Value(i), " ") {
			single++
		}
		if vis.IsNull(i) {
			continue
		}
		switch vis.Value(i) {
		case "public":
			public++
		case "private":
			private++
		default:
			t.Fatalf("visibility %q", vis.Value(i))
		}
		if again[0].Column(0).(*array.String).ValueStr(i) != names.ValueStr(i) {
			t.Fatal("not deterministic")
		}
	}
	if nulls == 0 || single == 0 || public < 1300 || private < 1300 {
		t.Fatalf("nulls %d single %d public %d private %d", nulls, single, public, private)
	}
	_, big := People(1<<20+5, 1)
	if len(big) != 2 || big[1].NumRows() != 5 {
		t.Fatalf("batches %d", len(big))
	}
}
