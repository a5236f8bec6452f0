package planner_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/execbuild"
	"github.com/gsqlengine/gsql/planner"
	"github.com/gsqlengine/gsql/sql"
)

// regressionFile reads a regression file (tests/README.md's format): the
// SQL of its query records, less those skipped for gsql, and a catalog of
// the tables its CREATE TABLE statements make.
func regressionFile(t *testing.T, path string) (*catalog.Catalog, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cat := catalog.New()
	var out, cur []string
	query, statement, skip := false, false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case query && line == "----":
			if !skip {
				out = append(out, strings.Join(cur, "\n"))
			}
			query, skip, cur = false, false, nil
		case query:
			cur = append(cur, line)
		case statement && strings.HasPrefix(line, "CREATE TABLE"):
			createTable(t, cat, line)
		case line == "skipif gsql", line == "skipif gsql-gpu":
			// Records a GPU run skips (warnings, SHOW statements).
			skip = true
		case strings.HasPrefix(line, "query "):
			query = true
		case line == "statement ok":
			statement = true
		case line == "":
			skip, statement = false, false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cat, out
}

func createTable(t *testing.T, cat *catalog.Catalog, q string) {
	t.Helper()
	st, err := sql.ParseOne(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	ct, ok := st.(*sql.CreateTable)
	if !ok {
		t.Fatalf("%q is a %T", q, st)
	}
	var cols []catalog.Column
	for _, c := range ct.Columns {
		cols = append(cols, catalog.Column{Name: c.Name, Type: c.Type})
	}
	if _, err := cat.Create(ct.Name, cols, nil, false); err != nil {
		t.Fatal(err)
	}
}

// TestPlaceMySQLDatesOnGPU: every query of issue 38's date and number
// regression files (MySQL's TIME functions, periods, week modes,
// composite INTERVAL and EXTRACT units, STR_TO_DATE, DATETIME(n), exact
// values, bad input) places whole on the GPU in strict mode with the real
// device-support check.
func TestPlaceMySQLDatesOnGPU(t *testing.T) {
	opts := planner.PlaceOptions{GPU: true, Strict: true, Fusion: true, Supported: execbuild.GPUSupport, Aggregates: execbuild.AggregatesOnDevice}
	for _, file := range []string{"mysql_dates", "mysql_str_to_date", "mysql_numbers", "mysql_datetime_fsp", "mysql_bad_input", "mysql_window_avg", "mysql_time_func"} {
		cat, qs := regressionFile(t, "../tests/sql/"+file+".test")
		if len(qs) < 8 {
			t.Fatalf("read %d queries from %s.test", len(qs), file)
		}
		for _, q := range qs {
			n, err := plan(t, cat, q)
			if err != nil {
				t.Errorf("%s: %s: %v", file, q, err)
				continue
			}
			if n, err = planner.Place(n, opts); err != nil {
				t.Errorf("%s: %s: %v", file, q, err)
				continue
			}
			lines := planner.Explain(n)
			if !strings.Contains(strings.Join(lines, "\n"), "[gpu]") {
				// Nothing to compute (a sorted scan of a small table):
				// the rows stay on the host, which strict mode allows.
				continue
			}
			for _, line := range lines {
				if strings.HasSuffix(line, "[cpu]") && !strings.Contains(line, "DeviceToHost") && !strings.Contains(line, "hash table on the gpu") {
					t.Errorf("%s: %s: %q stays on the CPU", file, q, line)
				}
			}
		}
	}
}
