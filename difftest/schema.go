package difftest

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
)

// kind is the type of a column or expression as the generator tracks it.
// Both engines must agree on it: kInt is BIGINT in gsql and INTEGER in
// SQLite, kReal DOUBLE and REAL, kText VARCHAR and TEXT. kBool is only
// ever an expression (a predicate).
type kind int

const (
	kInt kind = iota
	kReal
	kText
	kBool
)

func (k kind) numeric() bool { return k == kInt || k == kReal }

// column is one column of a generated table.
type column struct {
	name string
	kind kind
}

// table is one generated table with its rows. Column 0 is always id, a
// unique non-NULL integer, so queries can order ties away.
type table struct {
	name string
	cols []column
	rows [][]value
}

// value is one cell of generated data: NULL, or an int, real or text.
type value struct {
	null bool
	i    int64
	f    float64
	s    string
}

// dataset is a generated schema with its data.
type dataset struct {
	seed   int64
	tables []*table
}

// The value pools are small so that joins, IN lists and GROUP BY keys
// match often; reals are multiples of 0.25 so that every sum of them is
// exact in float64 whatever order an engine adds them in. Texts include a
// trailing space (significant in both engines' binary comparison) and
// LIKE's wildcards as data.
var (
	realPool = []float64{-1, -0.5, 0, 0.25, 0.5, 1, 1.5, 2, 3}
	textPool = []string{"a", "b", "c", "ab", "B", "", "ba", "a ", "_%"}
	colPool  = []column{{"a", kInt}, {"b", kInt}, {"c", kInt}, {"r", kReal}, {"x", kReal}, {"s", kText}, {"u", kText}}
)

// genDataset makes 2 to 4 tables of 0 to 12 rows each from seed.
func genDataset(seed int64) *dataset { return genSized(seed, false) }

// genLarge makes 2 tables of 65,537 to 70,000 rows: more than one CPU
// batch (opspec.BatchSize, 65,536 rows) each.
func genLarge(seed int64) *dataset { return genSized(seed, true) }

func genSized(seed int64, large bool) *dataset {
	rng := rand.New(rand.NewSource(seed))
	d := &dataset{seed: seed}
	nt := 2 + rng.Intn(3)
	if large {
		nt = 2
	}
	for ti := 0; ti < nt; ti++ {
		t := &table{name: fmt.Sprintf("t%d", ti+1), cols: []column{{"id", kInt}}}
		// Every table has a and s, so every table can join on an integer
		// and every query has a text column to hand; the rest vary.
		t.cols = append(t.cols, colPool[0], colPool[5])
		for _, c := range colPool {
			if c.name != "a" && c.name != "s" && rng.Intn(2) == 0 {
				t.cols = append(t.cols, c)
			}
		}
		nrows := rng.Intn(13)
		if rng.Intn(8) == 0 {
			nrows = 0
		}
		if large {
			nrows = 65537 + rng.Intn(70000-65537)
		}
		for r := 0; r < nrows; r++ {
			row := []value{{i: int64(r + 1)}}
			for _, c := range t.cols[1:] {
				row = append(row, randValue(rng, c.kind))
			}
			t.rows = append(t.rows, row)
		}
		d.tables = append(d.tables, t)
	}
	return d
}

func randValue(rng *rand.Rand, k kind) value {
	if rng.Intn(5) == 0 {
		return value{null: true}
	}
	switch k {
	case kInt:
		return value{i: int64(rng.Intn(8) - 2)}
	case kReal:
		return value{f: realPool[rng.Intn(len(realPool))]}
	default:
		return value{s: textPool[rng.Intn(len(textPool))]}
	}
}

// literal renders v as an SQL literal both engines read alike.
func (v value) literal(k kind) string {
	if v.null {
		return "NULL"
	}
	switch k {
	case kInt:
		return strconv.FormatInt(v.i, 10)
	case kReal:
		return realLiteral(v.f)
	default:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	}
}

// realLiteral writes f with a decimal point, so SQLite stores it as REAL
// and gsql reads it as a number with a fraction.
func realLiteral(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// typeName is the column type each engine is given for k.
func typeName(k kind, d dialect) string {
	switch k {
	case kInt:
		if d == dGSQL {
			return "BIGINT"
		}
		return "INTEGER"
	case kReal:
		if d == dGSQL {
			return "DOUBLE"
		}
		return "REAL"
	default:
		if d == dGSQL {
			return "VARCHAR"
		}
		return "TEXT"
	}
}

// statements is the DDL and INSERTs that build d in dialect dl.
func (d *dataset) statements(dl dialect) []string {
	var out []string
	for _, t := range d.tables {
		var cols []string
		for _, c := range t.cols {
			cols = append(cols, c.name+" "+typeName(c.kind, dl))
		}
		out = append(out, fmt.Sprintf("CREATE TABLE %s (%s)", t.name, strings.Join(cols, ", ")))
		if len(t.rows) == 0 {
			continue
		}
		var rows []string
		for _, r := range t.rows {
			var vals []string
			for i, v := range r {
				vals = append(vals, v.literal(t.cols[i].kind))
			}
			rows = append(rows, "("+strings.Join(vals, ", ")+")")
		}
		out = append(out, fmt.Sprintf("INSERT INTO %s VALUES %s", t.name, strings.Join(rows, ", ")))
	}
	return out
}

// clone copies d so a reducer can drop rows without touching the original.
func (d *dataset) clone() *dataset {
	c := &dataset{seed: d.seed}
	for _, t := range d.tables {
		nt := &table{name: t.name, cols: t.cols}
		for _, r := range t.rows {
			nt.rows = append(nt.rows, append([]value(nil), r...))
		}
		c.tables = append(c.tables, nt)
	}
	return c
}
