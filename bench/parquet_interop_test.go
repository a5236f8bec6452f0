//go:build cgo && !noduckdb

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/fileio"
)

// TestParquetInterop: a Parquet file DuckDB writes, with DATE (date32),
// TIMESTAMP (timestamp[us]), DECIMAL (decimal128, 64-bit and 128-bit
// precisions) and BOOLEAN columns at their edges and NULLs, reads in gsql
// with the same values and types; the file gsql writes back from it reads
// in DuckDB with the same values (issue 18).
func TestParquetInterop(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	duck, err := openDuckDB()
	if err != nil {
		t.Skip(err)
	}
	defer duck.Close()
	g, err := openGSQL("gsql-cpu", "cpu", false)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	duckFile := filepath.Join(dir, "duck.parquet")
	gsqlFile := filepath.Join(dir, "gsql.parquet")
	create := `CREATE TABLE edge AS SELECT * FROM (VALUES
		(1, DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59.999999', 12345678901234.5678::DECIMAL(18,4), 12345678901234567890123456.0123456789::DECIMAL(38,10), true, 'a'),
		(2, DATE '0001-01-01', TIMESTAMP '0001-01-01 00:00:00', -99999999999999.9999::DECIMAL(18,4), -9999999999999999999999999999.9999999999::DECIMAL(38,10), false, ''),
		(3, DATE '9999-12-31', TIMESTAMP '9999-12-31 23:59:59.999999', 0.0001::DECIMAL(18,4), 0.0000000001::DECIMAL(38,10), NULL, 'é'),
		(4, NULL, NULL, NULL, NULL, NULL, NULL),
		(5, DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.5', -0.5::DECIMAL(18,4), 1::DECIMAL(38,10), true, 'x y')
	) AS v(id, d, ts, dec, big, b, s)`
	if err := duck.Exec(ctx, create); err != nil {
		t.Fatal(err)
	}
	if err := duck.Exec(ctx, fmt.Sprintf("COPY edge TO '%s' (FORMAT PARQUET)", duckFile)); err != nil {
		t.Fatal(err)
	}
	want := newChecksum(10)
	if _, err := duck.Run(ctx, "SELECT * FROM edge", want); err != nil {
		t.Fatal(err)
	}

	// gsql reads DuckDB's file: same values, and the Arrow types the
	// issue names.
	ge := g.(*gsqlEngine)
	got := newChecksum(10)
	read := fmt.Sprintf("SELECT * FROM read_parquet('%s')", duckFile)
	if _, err := g.Run(ctx, read, got); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("gsql read of DuckDB's Parquet differs:\ngsql   %v\nduckdb %v", got.sample, want.sample)
	}
	rdr, err := ge.db.Query(ctx, read)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, f := range rdr.Schema().Fields() {
		types[f.Name] = f.Type.String()
	}
	rdr.Release()
	for col, want := range map[string]string{"d": arrow.FixedWidthTypes.Date32.String(), "ts": "timestamp[us]", "dec": "decimal(18, 4)", "big": "decimal(38, 10)", "b": "bool"} {
		if !strings.HasPrefix(types[col], want) {
			t.Errorf("column %s read as %s, want %s", col, types[col], want)
		}
	}

	// gsql writes the table back; DuckDB reads the same values.
	rdr, err = ge.db.Query(ctx, read)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fileio.WriteParquet(ctx, gsqlFile, rdr, fileio.WriteOptions{})
	rdr.Release()
	if err != nil {
		t.Fatal(err)
	}
	back := newChecksum(10)
	if _, err := duck.Run(ctx, fmt.Sprintf("SELECT * FROM read_parquet('%s')", gsqlFile), back); err != nil {
		t.Fatal(err)
	}
	if back.String() != want.String() {
		t.Fatalf("DuckDB read of gsql's Parquet differs:\nback   %v\nduckdb %v", back.sample, want.sample)
	}
}
