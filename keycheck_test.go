package gsql

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// keyCheckSetup and keyCheckCases are large inserts into keyed tables:
// the device's key check (keycheck.go) must give the host's answers:
// the same error text, affected rows, warnings and table afterwards.
// rows(lo, n, f) are n VALUES rows (a, b, c, d, x) from a = lo, with b,
// c and d spread by f so that UNIQUE (b, d) collides or not.
func keyRowsSQL(lo, n int, f func(i int) string) string {
	var sb strings.Builder
	for i := lo; i < lo+n; i++ {
		if i > lo {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d, %s, %d.%02d, DATE '2024-01-01' + INTERVAL %d DAY, %d)", i, f(i), i%1000, i%100, i%3000, i%7)
	}
	return sb.String()
}

func distinctB(i int) string { return fmt.Sprintf("'b%d'", i) }

type keyCheckCase struct {
	name, stmt string
	// device: the device answers "no collision" (the statement is
	// checked there and appends); otherwise the host decides.
	device bool
}

func keyCheckCases() (setup []string, cases []keyCheckCase) {
	setup = []string{
		"CREATE TABLE kc (a BIGINT PRIMARY KEY, b VARCHAR(20), c DECIMAL(12,2), d DATE, x INT, UNIQUE (b, d))",
		"INSERT INTO kc VALUES " + keyRowsSQL(0, 3000, distinctB),
		"CREATE TABLE kf (f DOUBLE PRIMARY KEY, s VARCHAR(10))",
		"INSERT INTO kf VALUES (0.0, 'zero'), (1.5, 'one')",
	}
	nullB := func(i int) string {
		if i%2 == 0 {
			return "NULL"
		}
		return distinctB(i)
	}
	sameB := func(i int) string { return "'same'" }
	floats := func(lo, n int, neg bool) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			f := fmt.Sprintf("%d.25", lo+i)
			if neg && i == n/2 {
				f = "-0.0"
			}
			fmt.Fprintf(&sb, "(%s, 'f')", f)
		}
		return sb.String()
	}
	cases = []keyCheckCase{
		{"clean", "INSERT INTO kc VALUES " + keyRowsSQL(3000, 2500, distinctB), true},
		{"NULLs never collide", "INSERT INTO kc VALUES " + keyRowsSQL(6000, 2500, nullB), true},
		{"primary key taken", "INSERT INTO kc VALUES " + keyRowsSQL(9000, 2000, distinctB) + ", (17, 'fresh', 1.00, DATE '2000-01-01', 1)", false},
		{"unique key twice among the new rows", "INSERT INTO kc VALUES " + keyRowsSQL(12000, 2000, distinctB) + ", (90001, 'twin', 0.00, DATE '2000-01-01', 0), (90002, 'twin', 1.00, DATE '2000-01-01', 1)", false},
		{"same b, other days", "INSERT INTO kc VALUES " + keyRowsSQL(12000, 2000, sameB), true},
		{"unique key of an old row", "INSERT INTO kc VALUES " + keyRowsSQL(15000, 2000, distinctB) + ", (99999, 'b5', 0.00, DATE '2024-01-06', 0)", false},
		{"ignore", "INSERT IGNORE INTO kc VALUES " + keyRowsSQL(4800, 2000, distinctB), false},
		{"replace, clean", "REPLACE INTO kc VALUES " + keyRowsSQL(20000, 2000, distinctB), true},
		{"replace", "REPLACE INTO kc VALUES " + keyRowsSQL(21000, 2000, distinctB), false},
		{"on duplicate key update", "INSERT INTO kc VALUES " + keyRowsSQL(22500, 2000, distinctB) + " ON DUPLICATE KEY UPDATE x = x + 100", false},
		{"on duplicate key update, clean", "INSERT INTO kc VALUES " + keyRowsSQL(30000, 2000, distinctB) + " ON DUPLICATE KEY UPDATE x = x + 100", true},
		{"select", "INSERT INTO kc SELECT a + 100000, CONCAT(b, 's'), c, d, x FROM kc", true},
		{"select, taken", "INSERT INTO kc SELECT a + 100000, b, c, d, x FROM kc WHERE a < 2000", false},
		{"-0.0 is 0.0", "INSERT INTO kf VALUES " + floats(10, 1500, true), false},
		{"doubles, clean", "INSERT INTO kf VALUES " + floats(10, 1500, false), true},
	}
	return setup, cases
}

// keyCheckOutcome runs stmt and renders what a client sees: the error,
// or the affected rows and warnings, then the tables' digests.
func keyCheckOutcome(t *testing.T, db *DB, stmt string) string {
	t.Helper()
	ctx := context.Background()
	var out string
	if res, err := db.Exec(ctx, stmt); err != nil {
		out = "error: " + err.Error()
	} else {
		out = fmt.Sprintf("affected %d, warnings %d", res.RowsAffected, res.WarningCount)
		for _, w := range res.Warnings {
			out += fmt.Sprintf("; %d %s", w.Code, w.Msg)
		}
	}
	for _, q := range []string{
		"SELECT COUNT(*), SUM(a), SUM(x), SUM(c), COUNT(b), COUNT(DISTINCT b), MIN(d), MAX(d) FROM kc",
		"SELECT COUNT(*), SUM(f), MIN(f) FROM kf",
	} {
		out += "\n" + strings.Join(queryStrings(t, db, q), "\n")
	}
	return out
}

// queryStrings renders a query's rows as "v1|v2|...".
func queryStrings(t *testing.T, db *DB, q string) []string {
	t.Helper()
	rdr, err := db.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rdr.Release()
	var out []string
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				if col := rec.Column(c); col.IsNull(i) {
					parts[c] = "NULL"
				} else {
					parts[c] = strings.Clone(col.ValueStr(i))
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// runKeyCheckCases runs the cases on db and on a CPU database, from the
// same setup, and fails where their outcomes differ. On a GPU database
// the cases marked device must be checked there (Stats.DeviceKeyChecks)
// and the others not.
func runKeyCheckCases(t *testing.T, db *DB) {
	defer func(n int) { deviceKeyCheckMinRows = n }(deviceKeyCheckMinRows)
	deviceKeyCheckMinRows = 1000
	ctx := context.Background()
	cpu, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	setup, cases := keyCheckCases()
	for _, d := range []*DB{db, cpu} {
		for _, q := range setup {
			if _, err := d.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q[:min(len(q), 80)], err)
			}
		}
	}
	onGPU := db.Device() == "gpu"
	for _, c := range cases {
		before := db.Stats().DeviceKeyChecks
		got := keyCheckOutcome(t, db, c.stmt)
		want := keyCheckOutcome(t, cpu, c.stmt)
		if got != want {
			t.Errorf("%s: %s\nthe CPU: %s", c.name, got, want)
		}
		checked := db.Stats().DeviceKeyChecks - before
		if onGPU && checked != map[bool]uint64{true: 1, false: 0}[c.device] {
			t.Errorf("%s: %d inserts checked on the device, want device %v", c.name, checked, c.device)
		}
		if !onGPU && checked != 0 {
			t.Errorf("%s: a CPU database checked keys on the device", c.name)
		}
		first := strings.SplitN(got, "\n", 2)[0]
		t.Logf("%s: %s", c.name, first[:min(len(first), 160)])
	}
}

// TestKeyCheckCPU: on the CPU backend large inserts keep the host's
// checks (nothing asks a device), with the answers the cases expect of
// the host: the errors name the first row and key as MySQL does.
func TestKeyCheckCPU(t *testing.T) {
	db, err := Open(Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runKeyCheckCases(t, db)
	for _, c := range []struct{ stmt, err string }{
		{"INSERT INTO kc VALUES (17, 'n', 1.00, DATE '2000-01-01', 1)", "Duplicate entry '17' for key 'kc.PRIMARY'"},
		{"INSERT INTO kf VALUES (-0.0, 'n')", "Duplicate entry '0' for key 'kf.PRIMARY'"},
	} {
		if _, err := db.Exec(context.Background(), c.stmt); err == nil || err.Error() != c.err {
			t.Errorf("%s: %v, want %s", c.stmt, err, c.err)
		}
	}
}
