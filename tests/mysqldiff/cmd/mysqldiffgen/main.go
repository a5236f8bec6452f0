// Command mysqldiffgen prints the differential test's setup statements
// and queries for scripts/mysqlref/diff.py: "S|<statement>" and
// "Q|<columns>|<query>", one a line, where columns lists the result
// columns (0-based, comma-separated) that are date arithmetic on text.
//
//	go run ./tests/mysqldiff/cmd/mysqldiffgen -seed 1 -n 300
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/tests/mysqldiff"
)

func main() {
	seed := flag.Int64("seed", mysqldiff.Seed, "seed of the queries")
	n := flag.Int("n", mysqldiff.Count, "number of queries")
	ntz := flag.Int("tz", mysqldiff.TZCount, "number of CONVERT_TZ queries after them")
	ntime := flag.Int("time", mysqldiff.TimeCount, "number of TIME_FORMAT and CAST AS TIME queries after those")
	ntimefn := flag.Int("timefunc", mysqldiff.TimeFuncCount, "number of TIME(expr) queries after those")
	nnum := flag.Int("numdate", mysqldiff.NumDateCount, "number of queries of numbers read as dates after those")
	nmore := flag.Int("more", mysqldiff.MoreCount, "number of aggregate, big-integer and date-text queries after those")
	nbetween := flag.Int("between", mysqldiff.BetweenCount, "number of text BETWEEN date queries after those")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	for _, s := range mysqldiff.Setup {
		fmt.Fprintf(w, "S|%s\n", s)
	}
	queries := append(mysqldiff.Generate(*seed, *n), mysqldiff.GenerateTZ(*seed, *ntz)...)
	queries = append(queries, mysqldiff.GenerateTime(*seed, *ntime)...)
	queries = append(queries, mysqldiff.GenerateTimeFunc(*seed, *ntimefn)...)
	queries = append(queries, mysqldiff.GenerateNumDate(*seed, *nnum)...)
	queries = append(queries, mysqldiff.GenerateMore(*seed, *nmore)...)
	for _, q := range append(queries, mysqldiff.GenerateTextBetween(*seed, *nbetween)...) {
		cols := make([]string, len(q.TextDates))
		for i, c := range q.TextDates {
			cols[i] = strconv.Itoa(c)
		}
		fmt.Fprintf(w, "Q|%s|%s\n", strings.Join(cols, ","), q.SQL)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "mysqldiffgen:", err)
		os.Exit(1)
	}
}
