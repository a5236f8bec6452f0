package sql_test

import (
	"errors"
	"fmt"

	"github.com/xwb1989/sqlparser"

	"github.com/gsqlengine/gsql/sql"
)

// Parse a script: DDL comes back as gsql's own statements, queries as
// sqlparser ASTs in which the dialect's special forms are plain calls.
func ExampleParse() {
	stmts, err := sql.Parse(`
		CREATE TABLE people (name VARCHAR(40) NOT NULL, public BOOLEAN);
		SELECT SUBSTRING(UPPER(name) FROM 2 FOR 3), TRIM(LEADING 'x' FROM name)
		FROM people WHERE public = ?;`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range stmts {
		switch st := st.(type) {
		case *sql.CreateTable:
			for _, c := range st.Columns {
				fmt.Println(st.Name, c.Name, c.Type, c.NotNull)
			}
		case *sql.Select:
			fmt.Println(sqlparser.String(st.Stmt))
		}
	}
	// Output:
	// people name VARCHAR true
	// people public BOOLEAN false
	// select substring(UPPER(name), 2, 3), ltrim(name, 'x') from people where public = :v1
}

// Errors carry the line and column of the user's text and a caret snippet.
func ExampleError() {
	_, err := sql.Parse("SELECT 1;\nSELECT * FORM t")
	var e *sql.Error
	if errors.As(err, &e) {
		fmt.Println(e.Line, e.Col)
	}
	fmt.Println(err)
	// Output:
	// 2 10
	// syntax error at line 2, column 10: near 'FORM'
	//   SELECT * FORM t
	//            ^
}

// Split cuts a script at the semicolons outside strings and comments and
// tells a shell whether to show its continuation prompt.
func ExampleSplit() {
	stmts, complete := sql.Split("SELECT 'a;b'; SELECT 2 -- more;\n")
	fmt.Printf("%q %v\n", stmts, complete)
	// Output:
	// ["SELECT 'a;b'" "SELECT 2 -- more;"] false
}
