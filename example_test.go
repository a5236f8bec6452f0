package gsql_test

import (
	"context"
	"fmt"

	gsql "github.com/gsqlengine/gsql"
)

// Run the redact transform of the libcudf strings post from plain SQL.
func Example() {
	ctx := context.Background()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.Exec(ctx, `CREATE TABLE people (name VARCHAR, visibility VARCHAR)`)
	db.Exec(ctx, `INSERT INTO people VALUES ('John Smith', 'public'), ('Jane Doe', 'private')`)
	rdr, err := db.Query(ctx, `SELECT CASE WHEN visibility = 'public'
		THEN CONCAT(LEFT(SPLIT_PART(name, ' ', 2), 1), ' ', SPLIT_PART(name, ' ', 1))
		ELSE 'X X' END AS redacted FROM people`)
	if err != nil {
		panic(err)
	}
	defer rdr.Release()
	for rdr.Next() {
		col := rdr.Record().Column(0)
		for i := 0; i < col.Len(); i++ {
			fmt.Println(col.ValueStr(i))
		}
	}
	// Output:
	// S John
	// X X
}

// Placeholders take Go values.
func ExampleDB_Query() {
	ctx := context.Background()
	db, _ := gsql.Open(gsql.Options{Device: "cpu"})
	defer db.Close()
	db.Exec(ctx, `CREATE TABLE t (id BIGINT, tag VARCHAR)`)
	db.Exec(ctx, `INSERT INTO t VALUES (1, 'red'), (2, 'green'), (3, 'blue')`)
	rdr, _ := db.Query(ctx, `SELECT id, UPPER(tag) FROM t WHERE id >= ? ORDER BY id DESC`, 2)
	defer rdr.Release()
	for rdr.Next() {
		rec := rdr.Record()
		for i := 0; i < int(rec.NumRows()); i++ {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i))
		}
	}
	// Output:
	// 3 BLUE
	// 2 GREEN
}

// A table's memory: its Arrow buffers on the host (in the heap, or mapped
// from an on-disk database's files) and on the GPU where it is resident.
func ExampleDB_TableMemory() {
	ctx := context.Background()
	db, _ := gsql.Open(gsql.Options{Device: "cpu"})
	defer db.Close()
	db.Exec(ctx, `CREATE TABLE t (id BIGINT NOT NULL)`)
	db.Exec(ctx, `INSERT INTO t VALUES (1), (2), (3), (4)`)
	tm, err := db.TableMemory("t")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d rows, %d bytes (%d heap, %d mapped, %d on the device)\n", tm.Name, tm.Rows, tm.Bytes, tm.Heap(), tm.Mapped, tm.Device)
	// Output:
	// t: 4 rows, 32 bytes (32 heap, 0 mapped, 0 on the device)
}
