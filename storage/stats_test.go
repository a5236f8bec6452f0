package storage

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
)

// TestStatsPersisted: a table's column statistics are written to the
// manifest with every commit and read back at Open, INSERTs included, and
// a table made of staged compressed segments takes the statistics Stage
// computed without decompressing a column.
func TestStatsPersisted(t *testing.T) {
	for _, codec := range []Codec{CodecNone, CodecLZ4} {
		t.Run(string(codec), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			s, err := Open(dir)
			must(t, err)
			s.SetCodec(codec)
			cat := catalog.New()
			cat.SetPersister(s)
			// Sizes the commit's tail compaction leaves apart (merging
			// would read the segments back).
			var recs []arrow.Record
			for i, n := range []int{3000, 1000} {
				rec, err := s.Stage("t", testRecord(n, int64(i)*3000))
				must(t, err)
				recs = append(recs, rec)
			}
			if _, err := cat.Create("t", testCols, recs, false); err != nil {
				t.Fatal(err)
			}
			if codec != CodecNone {
				for _, r := range recs {
					if heap, _ := r.(*lazyRecord).memory(); heap != 0 {
						t.Errorf("creating the table decompressed %d bytes", heap)
					}
				}
			}
			more, err := coldata.RecordToBatch(testRecord(10, 100000))
			must(t, err)
			must(t, cat.Append("t", more))
			before, err := cat.Get("t")
			must(t, err)
			want := []float64{4010, 5, 2000, 2}
			for c, w := range want {
				if d, ok := before.Distinct(c); !ok || math.Abs(d-w) > 0.05*w {
					t.Errorf("column %d: %g distinct (%v), want about %g", c, d, ok, w)
				}
			}
			must(t, s.Close())
			s, err = Open(dir)
			must(t, err)
			defer s.Close()
			tabs := s.Tables()
			if len(tabs) != 1 || len(tabs[0].Stats) != len(testCols) {
				t.Fatalf("reopened: %d tables, statistics %d", len(tabs), len(tabs[0].Stats))
			}
			for c := range testCols {
				if tabs[0].Stats[c] != before.Stats[c] {
					t.Errorf("column %d: statistics differ after reopening", c)
				}
			}
			if lo, hi, ok := tabs[0].Range(0); !ok || lo != 0 || hi != 100009 {
				t.Errorf("range of id after reopening %g..%g (%v)", lo, hi, ok)
			}
		})
	}
}
