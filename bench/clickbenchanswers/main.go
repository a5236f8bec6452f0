//go:build cgo

// Command clickbenchanswers writes DuckDB's answers to the 43 ClickBench
// queries on the rows of datagen/clickbench, the expected results of
// gsql's ClickBench test:
//
//	cd bench && go run ./clickbenchanswers -rows 20000 -seed 1 -out ../testdata/clickbench/rows20000
//
// It appends the generated rows into an in-memory DuckDB table with the
// generator's column types (BIGINT, VARCHAR, DATE, TIMESTAMP), runs the
// queries as published (DuckDB reads ClickBench's PostgreSQL text as is)
// and writes one qNN.tsv per query: the column names, then the rows,
// tab-separated, NULL as NULL, doubles shortest, dates ISO, timestamps
// "YYYY-MM-DD hh:mm:ss". For the queries whose HAVING thresholds and
// OFFSETs are made for 100 million rows it also writes qNN-scaled.tsv,
// the answer of queries.Scale's version.
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/gsqlengine/gsql/bench/internal/duckrows"
	"github.com/gsqlengine/gsql/datagen/clickbench"
	"github.com/gsqlengine/gsql/datagen/clickbench/queries"
	"github.com/marcboeker/go-duckdb"
)

func main() {
	rows := flag.Int64("rows", 20000, "rows of hits")
	seed := flag.Uint64("seed", 1, "generator seed")
	out := flag.String("out", "", "directory for the qNN.tsv answers")
	flag.Parse()
	if *out == "" {
		log.Fatal("clickbenchanswers: -out is required")
	}
	if err := run(context.Background(), *rows, *seed, *out); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, nrows int64, seed uint64, out string) error {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return err
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, ddl()); err != nil {
		return fmt.Errorf("create hits: %w", err)
	}
	if err := load(ctx, connector, nrows, seed); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for n := 1; n <= queries.Count; n++ {
		q, err := queries.Published(n)
		if err != nil {
			return err
		}
		texts := map[string]string{fmt.Sprintf("q%02d.tsv", n): q}
		if s := queries.Scale(q); s != q {
			texts[fmt.Sprintf("q%02d-scaled.tsv", n)] = s
		}
		for name, q := range texts {
			rows, err := duckrows.Query(ctx, db, q)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			var sb strings.Builder
			for _, r := range rows {
				sb.WriteString(strings.Join(r, "\t"))
				sb.WriteByte('\n')
			}
			if err := os.WriteFile(filepath.Join(out, name), []byte(sb.String()), 0o644); err != nil {
				return err
			}
			log.Printf("%s: %d rows", name, len(rows)-1)
		}
	}
	return nil
}

// ddl is the CREATE TABLE of hits with the generator's columns.
func ddl() string {
	var cols []string
	for _, f := range clickbench.Schema().Fields() {
		typ := "VARCHAR"
		switch f.Type.ID() {
		case arrow.INT64:
			typ = "BIGINT"
		case arrow.DATE32:
			typ = "DATE"
		case arrow.TIMESTAMP:
			typ = "TIMESTAMP"
		}
		cols = append(cols, f.Name+" "+typ)
	}
	return fmt.Sprintf("CREATE TABLE %s (%s)", clickbench.TableName, strings.Join(cols, ", "))
}

// load appends the generated rows into hits.
func load(ctx context.Context, connector *duckdb.Connector, nrows int64, seed uint64) error {
	conn, err := connector.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	app, err := duckdb.NewAppenderFromConn(conn, "", clickbench.TableName)
	if err != nil {
		return err
	}
	g, err := clickbench.New(nrows, seed)
	if err != nil {
		return err
	}
	err = g.Generate(ctx, 0, func(rec arrow.Record) error {
		defer rec.Release()
		vals := make([]driver.Value, rec.NumCols())
		for i := 0; i < int(rec.NumRows()); i++ {
			for c := range vals {
				switch a := rec.Column(c).(type) {
				case *array.Int64:
					vals[c] = a.Value(i)
				case *array.String:
					vals[c] = a.Value(i)
				case *array.Date32:
					vals[c] = a.Value(i).ToTime()
				case *array.Timestamp:
					vals[c] = time.UnixMicro(int64(a.Value(i))).UTC()
				default:
					return fmt.Errorf("column %d: unexpected %s", c, a.DataType())
				}
			}
			if err := app.AppendRow(vals...); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := app.Close(); err == nil {
		err = cerr
	}
	return err
}

// answer runs q and renders its rows, the column names first.
