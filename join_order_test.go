package gsql_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql"
)

// chainDB holds n tables c1..cn of ten rows each: id 0..9, nxt = id+1 mod
// 10 in odd tables and id in even ones, so the chain ci.nxt = c(i+1).id
// has one path per c1 row and cn.id = (c1.id + n/2) % 10.
func chainDB(t testing.TB, n int) *gsql.DB {
	t.Helper()
	ctx := context.Background()
	db := openTestDB(t, gsql.Options{Device: "cpu"})
	for i := 1; i <= n; i++ {
		if _, err := db.Exec(ctx, fmt.Sprintf("CREATE TABLE c%d (id BIGINT, nxt BIGINT, v BIGINT)", i)); err != nil {
			t.Fatal(err)
		}
		var rows []string
		for k := 0; k < 10; k++ {
			nxt := k
			if i%2 == 1 {
				nxt = (k + 1) % 10
			}
			rows = append(rows, fmt.Sprintf("(%d, %d, %d)", k, nxt, i*100+k))
		}
		if _, err := db.Exec(ctx, fmt.Sprintf("INSERT INTO c%d VALUES %s", i, strings.Join(rows, ", "))); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// chainQuery lists the n tables and the chain's equalities in a shuffled
// order.
func chainQuery(n int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	tabs := make([]string, n)
	for i := range tabs {
		tabs[i] = fmt.Sprintf("c%d", i+1)
	}
	var eqs []string
	for i := 1; i < n; i++ {
		eqs = append(eqs, fmt.Sprintf("c%d.nxt = c%d.id", i, i+1))
	}
	r.Shuffle(len(tabs), func(i, j int) { tabs[i], tabs[j] = tabs[j], tabs[i] })
	r.Shuffle(len(eqs), func(i, j int) { eqs[i], eqs[j] = eqs[j], eqs[i] })
	return fmt.Sprintf("SELECT c1.id, c%d.id FROM %s WHERE %s", n, strings.Join(tabs, ", "), strings.Join(eqs, " AND "))
}

// queryStrings runs q and returns each row's values joined by spaces.
func queryStrings(t testing.TB, db *gsql.DB, q string) []string {
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
			var vals []string
			for c := 0; c < int(rec.NumCols()); c++ {
				vals = append(vals, rec.Column(c).ValueStr(i))
			}
			out = append(out, strings.Join(vals, " "))
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkJoinChain20 plans and runs a 20-table chain of equi-joins
// written as a shuffled comma list; its plans and answers are checked in
// tests/sql/optimizer/reorder_joins_chain.test.
func BenchmarkJoinChain20(b *testing.B) {
	db := chainDB(b, 20)
	q := chainQuery(20, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rows := queryStrings(b, db, q); len(rows) != 10 {
			b.Fatalf("%d rows", len(rows))
		}
	}
}
