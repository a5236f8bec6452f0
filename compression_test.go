package gsql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestCorruptCompressedColumnFailsQuery: damage inside a compressed
// column passes Open (which decompresses nothing); the first query that
// reads the column fails with an error naming the table and the segment
// file, and queries of the table's other columns and of other tables
// still answer.
func TestCorruptCompressedColumnFailsQuery(t *testing.T) {
	ctx := context.Background()
	for _, codec := range []string{"lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db")
			db := openTestDB(t, gsql.Options{Device: "cpu", Path: path, Compression: codec},
				`CREATE TABLE other (x BIGINT)`,
				`INSERT INTO other VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)`,
				`CREATE TABLE t AS SELECT a, concat('a long and repetitive string value ', CAST(a * 7919 % 100003 AS VARCHAR)) AS s
				 FROM (SELECT d1.x * 10000 + d2.x * 1000 + d3.x * 100 + d4.x * 10 + d5.x AS a FROM other d1, other d2, other d3, other d4, other d5) q`)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			segs, _ := filepath.Glob(filepath.Join(path, "seg-*.arrow"))
			if len(segs) != 2 {
				t.Fatalf("segments %v", segs)
			}
			seg := segs[1] // t's, written second
			b, err := os.ReadFile(seg)
			if err != nil {
				t.Fatal(err)
			}
			// The body ends with the strings' bytes, then comes the
			// footer (a few hundred bytes).
			for i := len(b) - 3000; i < len(b)-2992; i++ {
				b[i] ^= 0x5a
			}
			if err := os.WriteFile(seg, b, 0o644); err != nil {
				t.Fatal(err)
			}
			db = openTestDB(t, gsql.Options{Device: "cpu", Path: path})
			if got := queryInt(t, db, `SELECT sum(a) FROM t`); got != 4999950000 {
				t.Errorf("sum(a) = %d", got)
			}
			err = queryError(ctx, db, `SELECT max(s) FROM t`)
			if err == nil || !strings.Contains(err.Error(), "table t") || !strings.Contains(err.Error(), filepath.Base(seg)) {
				t.Fatalf("query of the damaged column: %v", err)
			}
			if got := queryInt(t, db, `SELECT sum(x) FROM other`); got != 45 {
				t.Errorf("sum(x) of other = %d", got)
			}
		})
	}
}

func queryInt(t *testing.T, db *gsql.DB, q string) int64 {
	t.Helper()
	rows := rowsOf(t, db, q)
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows", q, len(rows))
	}
	n, err := strconv.ParseInt(rows[0], 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// queryError runs q to the end and returns its error.
func queryError(ctx context.Context, db *gsql.DB, q string) error {
	rdr, err := db.Query(ctx, q)
	if err != nil {
		return err
	}
	defer rdr.Release()
	for rdr.Next() {
	}
	return rdr.Err()
}

// TestCompressedImportKeepsColumnsCompressed: an import into a compressed
// on-disk database leaves the table's columns compressed until a query
// reads them. The table's zone maps come from the segments written
// during the import rather than from reading every column again, which
// decompressed (and kept) the whole table: 9.6 GB of heap for TPC-H SF10
// lineitem.
func TestCompressedImportKeepsColumnsCompressed(t *testing.T) {
	ctx := context.Background()
	var sb strings.Builder
	sb.WriteString("id,name,amount\n")
	for i := 0; i < 60_000; i++ {
		fmt.Fprintf(&sb, "%d,name %d,%d.%02d\n", i, i%977, i%5000, i%100)
	}
	csv := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(csv, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t, gsql.Options{Device: "cpu", Path: filepath.Join(t.TempDir(), "db"), Compression: "lz4"})
	if _, err := db.Import(ctx, csv, "t", gsql.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	heap := func() int64 {
		tm, err := db.TableMemory("t")
		if err != nil {
			t.Fatal(err)
		}
		return tm.Heap()
	}
	if h := heap(); h != 0 {
		t.Errorf("after the import %d bytes of the table are decompressed in the heap, want none", h)
	}
	// A query decompresses the columns it reads, and the zone maps taken
	// from the segments still answer as computed ones would.
	if got := strings.Join(rowsOf(t, db, "SELECT COUNT(*), MIN(id), MAX(name) FROM t WHERE id >= 59990"), "|"); got != "10|59990|name 402" {
		t.Errorf("got %q", got)
	}
	if h := heap(); h == 0 {
		t.Errorf("a query read the table's columns, yet none is decompressed")
	}
}
