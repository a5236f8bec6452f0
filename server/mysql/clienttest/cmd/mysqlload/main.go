// Command mysqlload is a load generator for `gsql serve`: many concurrent
// MySQL clients (go-sql-driver/mysql) for a duration, each a loop over a
// weighted mix of the 22 TPC-H queries, point lookups by o_orderkey and
// small INSERTs into a side table. It reports p50/p99 latency and
// throughput per class and the errors, and at the end checks that every
// acknowledged insert is in the side table.
//
//	mysqlload prepare -data DIR -sf 1            # TPC-H SF1 into an on-disk database
//	gsql serve --data DIR --device gpu --mysql 127.0.0.1:3307 &
//	mysqlload run -addr 127.0.0.1:3307 -clients 64 -duration 60s -out gpu.json
//	mysqlload run -data DIR -device cpu ...      # or serve DIR in this process
//	mysqlload compare gpu.json cpu.json          # side by side
//
// scripts/serve-load.sh runs the whole comparison; docs/SERVER.md
// explains it.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "prepare":
		err = prepareCmd(os.Args[2:], os.Stdout)
	case "run":
		err = runCmd(os.Args[2:], os.Stdout)
	case "compare":
		err = compareCmd(os.Args[2:], os.Stdout)
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "mysqlload: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mysqlload:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  mysqlload prepare -data DIR [-sf 1]     generate TPC-H into an on-disk gsql database
  mysqlload run [flags]                   run the load, print and write its report
  mysqlload compare A.json B.json ...     print reports side by side
Run "mysqlload run -h" for the flags.
`)
}
