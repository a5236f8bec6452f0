package gsql_test

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
)

// The TPC-H test loads scale factor 0.01 (about 87,000 rows, made by
// datagen/tpch exactly as dbgen makes them) into a CPU database, runs the
// 22 queries and compares every answer with DuckDB's answer on the same
// data, checked in under testdata/tpch/sf0.01 (bench/tpchanswers writes
// them: cd bench && go run ./tpchanswers -sf 0.01 -out ../testdata/tpch/sf0.01).
// Outside short mode it does the same at scale factor 0.1.
//
// Values compare as text, except where both sides are numbers: there the
// engines legitimately differ in the last digits, so numbers match within
// 1e-4 absolute or 1e-9 relative. DuckDB answers AVG of a DECIMAL as a
// DOUBLE while gsql, like MySQL, answers a DECIMAL with 4 more digits of
// scale than its argument (Q1's averages, Q22's AVG(c_acctbal)); decimal
// division likewise rounds at scale+4 (Q8, Q14, Q17). Money sums are exact
// on both sides, and 1e-9 relative is far below a cent at these sizes.
const (
	tpchAbsTol = 1e-4
	tpchRelTol = 1e-9
)

var tpchDBs struct {
	mu  sync.Mutex
	dbs map[float64]*gsql.DB
}

// tpchDatabase returns the shared database of scale factor sf.
func tpchDatabase(t testing.TB, sf float64) *gsql.DB {
	t.Helper()
	tpchDBs.mu.Lock()
	defer tpchDBs.mu.Unlock()
	if db := tpchDBs.dbs[sf]; db != nil {
		return db
	}
	// GSQL_TPCH_DEVICE runs the suite on another device (gpu or auto, on
	// a GPU machine with -tags cuda); the answers are the same files.
	device := os.Getenv("GSQL_TPCH_DEVICE")
	if device == "" {
		device = "cpu"
	}
	db, err := gsql.Open(gsql.Options{Device: device})
	if err != nil {
		t.Fatal(err)
	}
	if err := tpch.Load(context.Background(), db, sf); err != nil {
		t.Fatal(err)
	}
	if tpchDBs.dbs == nil {
		tpchDBs.dbs = map[float64]*gsql.DB{}
	}
	tpchDBs.dbs[sf] = db
	return db
}

// TestTPCH runs the 22 queries at scale factor 0.01 and, outside short
// mode, at 0.1 (where Q8 and Q17, empty or NULL at 0.01, have answers).
func TestTPCH(t *testing.T) {
	for _, sf := range []float64{0.01, 0.1} {
		t.Run(fmt.Sprintf("sf%g", sf), func(t *testing.T) {
			if sf > 0.01 && testing.Short() {
				t.Skip("scale factor 0.1 in short mode")
			}
			db := tpchDatabase(t, sf)
			for n := 1; n <= queries.Count; n++ {
				t.Run(fmt.Sprintf("q%02d", n), func(t *testing.T) {
					want, err := readAnswer(filepath.Join("testdata", "tpch", fmt.Sprintf("sf%g", sf), fmt.Sprintf("q%02d.tsv", n)))
					if err != nil {
						t.Fatal(err)
					}
					got, err := runTPCH(context.Background(), db, n)
					if err != nil {
						t.Fatal(err)
					}
					if msg := compareAnswers(got, want); msg != "" {
						t.Error(msg)
					}
				})
			}
		})
	}
}

// sqlRunner runs statements: a DB, or one of its sessions.
type sqlRunner interface {
	Exec(ctx context.Context, text string, args ...any) (gsql.Result, error)
	Query(ctx context.Context, text string, args ...any) (array.RecordReader, error)
}

// runTPCH runs query n and renders its answer: a header of column names,
// then one tab-separated line per row.
func runTPCH(ctx context.Context, db sqlRunner, n int) ([][]string, error) {
	stmts, err := queries.Statements(n)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for i, s := range stmts {
		if i != queries.Answer(n) {
			if _, err := db.Exec(ctx, s); err != nil {
				return nil, fmt.Errorf("statement %d: %w", i+1, err)
			}
			continue
		}
		r, err := db.Query(ctx, s)
		if err != nil {
			return nil, err
		}
		sch := r.Schema()
		head := make([]string, sch.NumFields())
		for j, f := range sch.Fields() {
			head[j] = f.Name
		}
		out = append(out, head)
		for r.Next() {
			rec := r.Record()
			for row := 0; row < int(rec.NumRows()); row++ {
				line := make([]string, rec.NumCols())
				for c := range line {
					line[c] = answers.Value(rec.Column(c), row) // as the answer files render values
				}
				out = append(out, line)
			}
		}
		err = r.Err()
		r.Release()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readAnswer reads an answer file: tab-separated lines, the first the
// column names.
func readAnswer(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Split(sc.Text(), "\t"))
	}
	return out, sc.Err()
}

// compareAnswers says how got differs from want, or "" when they agree:
// the same rows in the same order, numbers within tolerance.
func compareAnswers(got, want [][]string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d (first got %v, want %v)", len(got)-1, len(want)-1, first(got), first(want))
	}
	for r := range want {
		if len(got[r]) != len(want[r]) {
			return fmt.Sprintf("row %d: %d columns, want %d", r, len(got[r]), len(want[r]))
		}
		for c := range want[r] {
			if r == 0 {
				if !strings.EqualFold(got[r][c], want[r][c]) {
					return fmt.Sprintf("column %d is named %q, want %q", c+1, got[r][c], want[r][c])
				}
				continue
			}
			if !sameValue(got[r][c], want[r][c]) {
				return fmt.Sprintf("row %d column %s: got %q, want %q\n got row %v\nwant row %v", r, want[0][c], got[r][c], want[r][c], got[r], want[r])
			}
		}
	}
	return ""
}

func first(rows [][]string) []string {
	if len(rows) > 1 {
		return rows[1]
	}
	return nil
}

func sameValue(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	d := math.Abs(g - w)
	return d <= tpchAbsTol || d <= tpchRelTol*math.Max(math.Abs(g), math.Abs(w))
}

// TestTPCHPublishedSF1 loads scale factor 1 (8.7 million rows) and checks
// the 22 answers against the answer sets published with the TPC-H kit
// (testdata/tpch/sf1-published). It runs only with TPCH_SF1=1: it takes
// about a minute and a few GB. The published files round numbers to two
// decimals and cut long strings, so numbers match within 0.01 or 1e-6
// relative and a published string may be a prefix of gsql's. Q17's
// published 348406.02 is 0.03 from the exact 348406.054 (DuckDB's answer
// too), within the specification's validation tolerance (clause 2.1.3.5:
// averages within 1%), hence the relative bound.
func TestTPCHPublishedSF1(t *testing.T) {
	if os.Getenv("TPCH_SF1") == "" {
		t.Skip("set TPCH_SF1=1 to run the queries at scale factor 1")
	}
	db := tpchDatabase(t, 1)
	for n := 1; n <= queries.Count; n++ {
		t.Run(fmt.Sprintf("q%02d", n), func(t *testing.T) {
			want, err := readPublished(filepath.Join("testdata", "tpch", "sf1-published", fmt.Sprintf("q%02d.out", n)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := runTPCH(context.Background(), db, n)
			if err != nil {
				t.Fatal(err)
			}
			got = got[1:] // the published header names differ in form
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for r := range want {
				if len(got[r]) != len(want[r]) {
					t.Fatalf("row %d: %d columns, want %d", r+1, len(got[r]), len(want[r]))
				}
				for c := range want[r] {
					g, w := strings.TrimSpace(got[r][c]), want[r][c]
					wf, err := strconv.ParseFloat(w, 64)
					if err != nil {
						if strings.HasPrefix(g, w) {
							continue
						}
					} else if gf, err := strconv.ParseFloat(g, 64); err == nil &&
						(math.Abs(gf-wf) <= 0.01+1e-9 || math.Abs(gf-wf) <= 1e-6*math.Abs(wf)) {
						continue
					}
					t.Errorf("row %d column %d: got %q, published %q", r+1, c+1, g, w)
				}
			}
		})
	}
}

// readPublished reads a published answer file: '|'-separated padded
// fields after a header line.
func readPublished(path string) ([][]string, error) {
	rows, err := readAnswer(path)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, r := range rows[1:] {
		line := strings.Join(r, "\t")
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) > 1 && strings.TrimSpace(f[len(f)-1]) == "" {
			f = f[:len(f)-1]
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		out = append(out, f)
	}
	return out, nil
}
