//go:build cgo

// Command tpchanswers writes DuckDB's answers to the 22 TPC-H queries on
// the data of datagen/tpch, the expected results of gsql's TPC-H test:
//
//	cd bench && go run ./tpchanswers -sf 0.01 -out ../testdata/tpch/sf0.01
//
// It writes the generated tables as dbgen .tbl files into a temporary
// directory, loads them into an in-memory DuckDB with the specification's
// column types (DECIMAL(15,2), DATE), runs datagen/tpch/queries and writes
// one qNN.tsv per query: the column names, then the rows, tab-separated,
// NULL as NULL, decimals with all their digits, doubles shortest, dates
// ISO.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/gsqlengine/gsql/bench/internal/duckrows"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

func main() {
	sf := flag.Float64("sf", 0.01, "TPC-H scale factor")
	out := flag.String("out", "", "directory for the qNN.tsv answers")
	flag.Parse()
	if *out == "" {
		log.Fatal("tpchanswers: -out is required")
	}
	if err := run(context.Background(), *sf, *out); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, sf float64, out string) error {
	g, err := tpch.New(sf)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "tpchanswers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: the view of Q15 lives in it
	for _, t := range tpch.Tables {
		path := filepath.Join(tmp, t.String()+".tbl")
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		err = g.WriteTbl(ctx, t, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, ddl(t)); err != nil {
			return fmt.Errorf("create %s: %w", t, err)
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY %s FROM '%s' (DELIMITER '|', HEADER false)", t, path)); err != nil {
			return fmt.Errorf("copy %s: %w", t, err)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for n := 1; n <= queries.Count; n++ {
		rows, err := answer(ctx, db, n)
		if err != nil {
			return fmt.Errorf("q%d: %w", n, err)
		}
		var sb strings.Builder
		for _, r := range rows {
			sb.WriteString(strings.Join(r, "\t"))
			sb.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("q%02d.tsv", n)), []byte(sb.String()), 0o644); err != nil {
			return err
		}
		log.Printf("q%02d: %d rows", n, len(rows)-1)
	}
	return nil
}

// ddl is t's CREATE TABLE with the columns of tpch.Schema. The .tbl files
// end every line with '|', which DuckDB reads as one more, empty column.
func ddl(t tpch.Table) string {
	var cols []string
	for _, f := range tpch.Schema(t).Fields() {
		var typ string
		switch f.Type.ID() {
		case arrow.INT64:
			typ = "BIGINT"
		case arrow.DECIMAL128:
			d := f.Type.(*arrow.Decimal128Type)
			typ = fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
		case arrow.DATE32:
			typ = "DATE"
		default:
			typ = "VARCHAR"
		}
		cols = append(cols, f.Name+" "+typ)
	}
	cols = append(cols, "dbgen_end VARCHAR")
	return fmt.Sprintf("CREATE TABLE %s (%s)", t, strings.Join(cols, ", "))
}

// answer runs query n and renders its rows, the column names first.
func answer(ctx context.Context, db *sql.DB, n int) ([][]string, error) {
	stmts, err := queries.Statements(n)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for i, s := range stmts {
		if i != queries.Answer(n) {
			if _, err := db.ExecContext(ctx, s); err != nil {
				return nil, err
			}
			continue
		}
		rows, err := duckrows.Query(ctx, db, s)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}
