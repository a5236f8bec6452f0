// Command sltload runs a sqllogictest corpus (such as SQLite's
// select1-5.test) as a load: one shard of its queries in one process
// against a gsql database on a chosen device, every answer checked and
// every query timed, with a JSON report; and it compares the reports of a
// loaded run (many processes at once) with those of the same shards run
// alone, with the processes' NVRTC compile log.
//
//	sltload run -device gpu -shard 3 -shards 16 -out r3.json select*.test
//	sltload report -loaded loaded/ -alone alone/ -compile-log compiles.log
//
// scripts/slt-load.sh drives both on a GPU host; docs/TESTING.md explains
// the whole run.
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
	case "run":
		err = runCmd(os.Args[2:], os.Stdout)
	case "report":
		err = reportCmd(os.Args[2:], os.Stdout)
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "sltload: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sltload:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  sltload run [flags] FILE.test...     run one shard of the files' queries, write a JSON report
  sltload report [flags]               compare loaded and alone reports, summarise a compile log
Run "sltload run -h" or "sltload report -h" for the flags.
`)
}
