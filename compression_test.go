package gsql_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// TestCompressedStorage loads TPC-H SF0.01 into on-disk databases written
// with each codec: the segments on disk shrink, and after a reopen the 22
// queries give the answers of the plain database.
func TestCompressedStorage(t *testing.T) {
	ctx := context.Background()
	sizes := map[string]int64{}
	for _, codec := range []string{"none", "lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			db, err := gsql.Open(gsql.Options{Device: "cpu", Path: path, Compression: codec})
			if err != nil {
				t.Fatal(err)
			}
			if err := tpch.Load(ctx, db, 0.01); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			sizes[codec] = dirBytes(t, path)
			// Reopened without naming the codec: segments say theirs.
			db = openTestDB(t, gsql.Options{Device: "cpu", Path: path})
			for n := 1; n <= queries.Count; n++ {
				want, err := readAnswer(filepath.Join("testdata", "tpch", "sf0.01", fmt.Sprintf("q%02d.tsv", n)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := runTPCH(ctx, db, n)
				if err != nil {
					t.Fatalf("q%02d: %v", n, err)
				}
				if msg := compareAnswers(got, want); msg != "" {
					t.Errorf("q%02d: %s", n, msg)
				}
			}
			if _, _, err := db.Verify(ctx); err != nil {
				t.Errorf("Verify: %v", err)
			}
			// .stats: a plain segment is read from its map; a compressed
			// one keeps its compressed bytes mapped and the columns the
			// queries read decompressed in the heap.
			found := false
			for _, tm := range db.Stats().TableMemory {
				if tm.Name != "lineitem" {
					continue
				}
				found = true
				ok := tm.Rows == 60175 && tm.Mapped == tm.Bytes && tm.Bytes > 4_000_000
				if codec != "none" {
					heap := tm.Bytes - tm.Mapped
					ok = tm.Rows == 60175 && tm.Mapped > 0 && tm.Mapped < 4_000_000 && heap > 4_000_000
				}
				if !ok {
					t.Errorf("lineitem memory %+v", tm)
				}
			}
			if !found {
				t.Error("Stats has no lineitem")
			}
		})
	}
	t.Logf("database bytes: %v", sizes)
	for _, c := range []string{"lz4", "zstd"} {
		if sizes[c] >= sizes["none"] {
			t.Errorf("%s database of %d bytes, plain %d", c, sizes[c], sizes["none"])
		}
	}
	if _, err := gsql.Open(gsql.Options{Device: "cpu", Path: filepath.Join(t.TempDir(), "x"), Compression: "gzip"}); err == nil {
		t.Error("Compression gzip accepted")
	}
}
