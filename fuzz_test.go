package gsql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
	gsqlsql "github.com/gsqlengine/gsql/sql"
)

// FuzzExecute runs arbitrary SQL text through parse, bind and execute
// against a small table. It fails on a panic (reported as an InternalError)
// and on syntax errors without a position.
func FuzzExecute(f *testing.F) {
	seeds := []string{
		`SELECT * FROM people`,
		`SELECT CASE WHEN visibility = 'public' THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1)) ELSE 'X X' END AS redacted FROM people`,
		`SELECT SUBSTRING(name, -3, 2), LOCATE('o', name), n + 1 FROM people WHERE n BETWEEN 1 AND 3 ORDER BY 1 DESC LIMIT 2`,
		`SELECT DISTINCT visibility FROM people WHERE name LIKE 'J%' OR name IS NULL`,
		`INSERT INTO people VALUES ('x y', 'public', 5)`,
		`CREATE TABLE t2 AS SELECT UPPER(name) AS u FROM people`,
		`SELECT TRIM(LEADING 'x' FROM name), CAST(n AS DOUBLE) / 0, n DIV 2, n % 2 FROM people`,
		`SELECT REPLACE(name, 'o', '0'), LPAD(name, 10, '*'), REVERSE(name), REPEAT(name, 2) FROM people`,
		`SELECT 1 +`, `SELECT 'unterminated`, `DROP TABLE people; SELECT 1`,
		`WITH RECURSIVE t(k) AS (SELECT n FROM people UNION SELECT k + 1 FROM t WHERE k < 4) SELECT * FROM t, t AS u WHERE t.k = u.k`,
		`SELECT a.name FROM people a, people b, people c WHERE a.n = b.n AND b.n = c.n + 1`,
		`CREATE INDEX i ON people (n); SELECT name FROM people WHERE n > 1`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		db := openTestDB(t, gsql.Options{Device: "cpu"})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := db.Exec(ctx, `CREATE TABLE people (name VARCHAR, visibility VARCHAR, n BIGINT);
			INSERT INTO people VALUES ('John Smith', 'public', 1), ('Jane Doe', 'private', 2), (NULL, NULL, NULL), ('Émile Zola', 'public', 3), ('', 'public', -1)`); err != nil {
			t.Fatal(err)
		}
		rdr, err := db.Query(ctx, q)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
		var ie *gsql.InternalError
		if errors.As(err, &ie) {
			t.Fatalf("%q: %v\n%s", q, ie, ie.Stack)
		}
		var se *gsqlsql.Error
		if errors.As(err, &se) && (se.Line < 1 || se.Col < 1) {
			t.Fatalf("%q: syntax error without a position: %v", q, err)
		}
	})
}
