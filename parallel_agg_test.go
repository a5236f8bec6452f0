package gsql_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen"
)

// parallelAggQueries compute their grouping keys and aggregate arguments,
// which a CPU aggregate over a large scan evaluates on all cores.
var parallelAggQueries = []string{
	"SELECT SPLIT_PART(name, ' ', 2) AS last, visibility, COUNT(*), COUNT(DISTINCT LOWER(name)), MAX(LENGTH(name)), SUM(CHAR_LENGTH(name) * 2) FROM people GROUP BY SPLIT_PART(name, ' ', 2), visibility ORDER BY 1, 2",
	"SELECT LEFT(name, 1) AS i, COUNT(*), MIN(UPPER(name)) FROM people WHERE visibility = 'public' GROUP BY LEFT(name, 1) ORDER BY 1",
	"SELECT COUNT(DISTINCT CONCAT(name, '/', visibility)), COUNT(DISTINCT SUBSTRING_INDEX(name, ' ', 1)), AVG(LENGTH(name)) FROM people",
	"SELECT visibility, GROUP_CONCAT(DISTINCT LEFT(name, 1) ORDER BY LEFT(name, 1) SEPARATOR '') FROM people GROUP BY visibility ORDER BY 1",
	"SELECT visibility, COUNT(*) FROM people GROUP BY visibility HAVING COUNT(DISTINCT REVERSE(name)) > 10 ORDER BY 1",
}

// TestParallelAggregateInputMatchesSerial runs aggregates over a table
// large enough for the parallel evaluation of their expressions and
// compares with the same queries on one core (GOMAXPROCS 1), including a
// query that fails in the middle of the table.
func TestParallelAggregateInputMatchesSerial(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: nothing runs in parallel")
	}
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	schema, recs := datagen.People(600_000, 3)
	if err := db.RegisterTable("people", schema, recs); err != nil {
		t.Fatal(err)
	}
	failing := "SELECT visibility, SUM(LENGTH(name) * 4611686018427387904) FROM people GROUP BY visibility"
	run := func() ([][]string, string) {
		var out [][]string
		for _, q := range parallelAggQueries {
			out = append(out, rowsOf(t, db, q))
		}
		_, err := db.Exec(context.Background(), failing)
		if err == nil {
			t.Fatalf("%s: no error", failing)
		}
		return out, err.Error()
	}
	par, parErr := run()
	prev := runtime.GOMAXPROCS(1)
	ser, serErr := run()
	runtime.GOMAXPROCS(prev)
	for i, q := range parallelAggQueries {
		if len(ser[i]) == 0 {
			t.Fatalf("%s: no rows", q)
		}
		if strings.Join(par[i], "\n") != strings.Join(ser[i], "\n") {
			t.Errorf("%s: parallel and serial results differ:\n%v\n%v", q, par[i], ser[i])
		}
	}
	if parErr != serErr {
		t.Errorf("errors differ: parallel %q, serial %q", parErr, serErr)
	}
}
