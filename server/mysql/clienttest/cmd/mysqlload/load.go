package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	_ "github.com/go-sql-driver/mysql"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/tpch"
	"github.com/gsqlengine/gsql/datagen/tpch/queries"
	"github.com/gsqlengine/gsql/server/mysql"
)

// sideTable receives the load's INSERTs.
const sideTable = "mysqlload_side"

// Classes of the mix, in report order.
var classes = []string{"tpch", "point", "insert"}

// Report is one run's outcome.
type Report struct {
	Label           string           `json:"label"`
	Device          string           `json:"device"`
	Addr            string           `json:"addr"`
	Clients         int              `json:"clients"`
	Seconds         float64          `json:"seconds"`
	Mix             string           `json:"mix"`
	Started         time.Time        `json:"started"`
	Classes         map[string]Class `json:"classes"`
	Total           Class            `json:"total"`
	Acked           int64            `json:"acked_inserts"`
	Lost            int64            `json:"lost_inserts"`
	SideRows        int64            `json:"side_rows"`
	Errors          []string         `json:"errors"`
	ErrorsTruncated int              `json:"errors_truncated,omitempty"`
}

// Class is one class's counts and latencies in milliseconds.
type Class struct {
	N       int     `json:"n"`
	Errors  int     `json:"errors"`
	PerSec  float64 `json:"per_sec"`
	P50MS   float64 `json:"p50_ms"`
	P99MS   float64 `json:"p99_ms"`
	MaxMS   float64 `json:"max_ms"`
	MeanMS  float64 `json:"mean_ms"`
	durs    []time.Duration
	errSeen int
}

// config is the run command's flags.
type config struct {
	addr, data, device, label, out, mix string
	sf                                  float64
	clients                             int
	duration                            time.Duration
	seed                                int64
	weights                             map[string]int
}

func parseRunFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("mysqlload run", flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", "", "the server's host:port; empty: serve -data (or a generated in-memory TPC-H) in this process")
	fs.StringVar(&c.data, "data", "", "without -addr: the on-disk database to serve (made by prepare); empty: generate TPC-H -sf in memory")
	fs.StringVar(&c.device, "device", "cpu", "without -addr: the device of the in-process server (cpu, gpu, auto); with -addr: only the report's label")
	fs.Float64Var(&c.sf, "sf", 1, "without -addr and -data: the TPC-H scale factor to generate in memory")
	fs.IntVar(&c.clients, "clients", 64, "concurrent MySQL clients")
	fs.DurationVar(&c.duration, "duration", 60*time.Second, "how long the clients run")
	fs.StringVar(&c.mix, "mix", "tpch=1,point=6,insert=3", "the classes' weights")
	fs.Int64Var(&c.seed, "seed", 1, "random seed of the clients' choices")
	fs.StringVar(&c.label, "label", "", "the report's label (default: the device)")
	fs.StringVar(&c.out, "out", "", "also write the JSON report here")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("run: unexpected argument %q", fs.Arg(0))
	}
	if c.clients < 1 || c.duration <= 0 {
		return c, fmt.Errorf("run: -clients %d and -duration %v must be positive", c.clients, c.duration)
	}
	if c.device != "cpu" && c.device != "gpu" && c.device != "auto" {
		return c, fmt.Errorf("run: -device %q: want cpu, gpu or auto", c.device)
	}
	w, err := parseMix(c.mix)
	if err != nil {
		return c, err
	}
	c.weights = w
	if c.label == "" {
		c.label = c.device
	}
	return c, nil
}

// parseMix reads "class=weight,...".
func parseMix(s string) (map[string]int, error) {
	w := map[string]int{}
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		n := 0
		if _, err := fmt.Sscanf(val, "%d", &n); !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("run: -mix %q: want class=weight,... with weights >= 0", s)
		}
		known := false
		for _, c := range classes {
			known = known || c == name
		}
		if !known {
			return nil, fmt.Errorf("run: -mix: unknown class %q (want %s)", name, strings.Join(classes, ", "))
		}
		w[name] = n
		total += n
	}
	if total == 0 {
		return nil, fmt.Errorf("run: -mix %q: all weights are zero", s)
	}
	return w, nil
}

func runCmd(args []string, stdout io.Writer) error {
	c, err := parseRunFlags(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if c.addr == "" {
		addr, stop, err := startServer(ctx, c)
		if err != nil {
			return err
		}
		defer stop()
		c.addr = addr
	}
	rep, err := runLoad(ctx, c)
	if err != nil {
		return err
	}
	printReports(stdout, []*Report{rep})
	if c.out != "" {
		b, _ := json.MarshalIndent(rep, "", " ")
		if err := os.WriteFile(c.out, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	if n := rep.Total.Errors; n > 0 || rep.Lost > 0 {
		return fmt.Errorf("run: %d errors, %d lost inserts", n, rep.Lost)
	}
	return nil
}

// startServer serves c.data (or a generated in-memory TPC-H) over the
// MySQL protocol on a loopback port in this process.
func startServer(ctx context.Context, c config) (string, func(), error) {
	db, err := gsql.Open(gsql.Options{Device: c.device, Path: c.data})
	if err != nil {
		return "", nil, fmt.Errorf("open database: %w", err)
	}
	if c.data == "" {
		fmt.Fprintf(os.Stderr, "mysqlload: generating TPC-H SF%g in memory\n", c.sf)
		if err := tpch.Load(ctx, db, c.sf); err != nil {
			db.Close()
			return "", nil, fmt.Errorf("generate TPC-H: %w", err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := mysql.NewServer(db, mysql.Config{Database: "gsql"})
	go srv.Serve(l)
	return l.Addr().String(), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		db.Close()
	}, nil
}

func prepareCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("mysqlload prepare", flag.ContinueOnError)
	data := fs.String("data", "", "the on-disk database directory to create (required)")
	sf := fs.Float64("sf", 1, "TPC-H scale factor")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *sf <= 0 {
		return errors.New("prepare: -data DIR and a positive -sf are required")
	}
	if _, err := os.Stat(*data); err == nil {
		return fmt.Errorf("prepare: %s exists; remove it or serve it as it is", *data)
	}
	ctx := context.Background()
	start := time.Now()
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: *data})
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	if err := tpch.Load(ctx, db, *sf); err != nil {
		db.Close()
		return fmt.Errorf("prepare: %w", err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("prepare: close: %w", err)
	}
	fmt.Fprintf(stdout, "TPC-H SF%g in %s (%.0f s)\n", *sf, *data, time.Since(start).Seconds())
	return nil
}

// tpchQueries returns the 22 queries as single statements: Q15's view
// becomes a WITH clause, so that concurrent clients share no DDL.
func tpchQueries() ([]string, error) {
	var out []string
	for n := 1; n <= queries.Count; n++ {
		stmts, err := queries.Statements(n)
		if err != nil {
			return nil, err
		}
		if len(stmts) == 1 {
			out = append(out, stmts[0])
			continue
		}
		// create view revenue0 (cols) as <select>; <query>; drop view
		head, body, ok := strings.Cut(stmts[0], " as\n")
		name := strings.TrimSpace(strings.TrimPrefix(head, "create view"))
		if !ok || !strings.HasPrefix(head, "create view") {
			return nil, fmt.Errorf("TPC-H Q%d: unexpected view %q", n, firstLine(stmts[0]))
		}
		out = append(out, fmt.Sprintf("with %s as (\n%s\n)\n%s", name, body, stmts[queries.Answer(n)]))
	}
	return out, nil
}

// runLoad drives the clients for c.duration and checks the inserts.
func runLoad(ctx context.Context, c config) (*Report, error) {
	dsn := fmt.Sprintf("root@tcp(%s)/gsql?interpolateParams=true&timeout=30s", c.addr)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, fmt.Errorf("open client: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(c.clients + 1)
	db.SetMaxIdleConns(c.clients + 1)
	qs, err := tpchQueries()
	if err != nil {
		return nil, err
	}
	var maxKey int64
	if err := db.QueryRowContext(ctx, "SELECT MAX(o_orderkey) FROM orders").Scan(&maxKey); err != nil {
		return nil, fmt.Errorf("no TPC-H orders table at %s: %w", c.addr, err)
	}
	for _, s := range []string{"DROP TABLE IF EXISTS " + sideTable,
		"CREATE TABLE " + sideTable + " (id BIGINT, client INT, seq INT, note VARCHAR(32))"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("side table: %w", err)
		}
	}
	var pick []string // the mix as a list to draw from
	for _, cl := range classes {
		for i := 0; i < c.weights[cl]; i++ {
			pick = append(pick, cl)
		}
	}
	rep := &Report{Label: c.label, Device: c.device, Addr: c.addr, Clients: c.clients, Mix: c.mix,
		Started: time.Now().UTC(), Classes: map[string]Class{}, Errors: []string{}}
	var mu sync.Mutex
	stats := map[string]*Class{}
	for _, cl := range classes {
		stats[cl] = &Class{}
	}
	acked := make([][]int64, c.clients)
	record := func(class string, d time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		s := stats[class]
		s.durs = append(s.durs, d)
		if err != nil {
			s.Errors++
			if len(rep.Errors) < 50 {
				rep.Errors = append(rep.Errors, class+": "+err.Error())
			} else {
				rep.ErrorsTruncated++
			}
		}
	}
	start := time.Now()
	deadline := start.Add(c.duration)
	var wg sync.WaitGroup
	for cl := 0; cl < c.clients; cl++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				record("point", 0, fmt.Errorf("client %d: connect: %w", cl, err))
				return
			}
			defer conn.Close()
			rng := rand.New(rand.NewSource(c.seed*1000003 + int64(cl)))
			for seq := 0; time.Now().Before(deadline); seq++ {
				class := pick[rng.Intn(len(pick))]
				t0 := time.Now()
				var err error
				switch class {
				case "tpch":
					q := rng.Intn(len(qs))
					if err = drain(ctx, conn, qs[q]); err != nil {
						err = fmt.Errorf("Q%d: %w", q+1, err)
					}
				case "point":
					err = drain(ctx, conn, "SELECT o_orderkey, o_custkey, o_orderstatus, o_totalprice FROM orders WHERE o_orderkey = ?", 1+rng.Int63n(maxKey))
				case "insert":
					id := int64(cl)<<32 | int64(seq)
					_, err = conn.ExecContext(ctx, "INSERT INTO "+sideTable+" VALUES (?, ?, ?, ?)", id, cl, seq, fmt.Sprintf("client %d row %d", cl, seq))
					if err == nil {
						acked[cl] = append(acked[cl], id)
					}
				}
				record(class, time.Since(t0), err)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	rep.Seconds = elapsed.Seconds()
	var all []time.Duration
	for _, cl := range classes {
		s := stats[cl]
		all = append(all, s.durs...)
		rep.Total.Errors += s.Errors
		rep.Classes[cl] = summarize(s.durs, s.Errors, elapsed)
	}
	rep.Total = summarize(all, rep.Total.Errors, elapsed)
	lost, rows, n, err := checkInserts(ctx, db, acked)
	if err != nil {
		return nil, err
	}
	rep.Acked, rep.Lost, rep.SideRows = n, lost, rows
	return rep, nil
}

// drain runs a query and reads all of its rows.
func drain(ctx context.Context, conn *sql.Conn, q string, args ...any) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// checkInserts reads the side table's ids and counts the acknowledged
// inserts that are not there.
func checkInserts(ctx context.Context, db *sql.DB, acked [][]int64) (lost, rows, n int64, err error) {
	have := map[int64]bool{}
	r, err := db.QueryContext(ctx, "SELECT id FROM "+sideTable)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("read back inserts: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var id int64
		if err := r.Scan(&id); err != nil {
			return 0, 0, 0, fmt.Errorf("read back inserts: %w", err)
		}
		have[id] = true
		rows++
	}
	if err := r.Err(); err != nil {
		return 0, 0, 0, fmt.Errorf("read back inserts: %w", err)
	}
	for _, ids := range acked {
		for _, id := range ids {
			n++
			if !have[id] {
				lost++
			}
		}
	}
	return lost, rows, n, nil
}

func summarize(durs []time.Duration, errs int, elapsed time.Duration) Class {
	c := Class{N: len(durs), Errors: errs}
	if len(durs) == 0 {
		return c
	}
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	var sum time.Duration
	for _, d := range durs {
		sum += d
	}
	c.PerSec = float64(len(durs)) / elapsed.Seconds()
	c.P50MS = ms(durs[rank(len(durs), 50)])
	c.P99MS = ms(durs[rank(len(durs), 99)])
	c.MaxMS = ms(durs[len(durs)-1])
	c.MeanMS = ms(sum) / float64(len(durs))
	return c
}

// rank is the index of the nearest-rank p-th percentile of n values.
func rank(n int, p int) int {
	r := (n*p + 99) / 100
	if r < 1 {
		r = 1
	}
	return r - 1
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// printReports prints reports side by side, one column each.
func printReports(w io.Writer, reps []*Report) {
	row := func(name string, f func(r *Report) string) {
		fmt.Fprintf(w, "%-22s", name)
		for _, r := range reps {
			fmt.Fprintf(w, " %18s", f(r))
		}
		fmt.Fprintln(w)
	}
	row("", func(r *Report) string { return r.Label })
	row("clients, seconds", func(r *Report) string { return fmt.Sprintf("%d, %.0f", r.Clients, r.Seconds) })
	for _, cl := range append(append([]string(nil), classes...), "total") {
		get := func(r *Report) Class {
			if cl == "total" {
				return r.Total
			}
			return r.Classes[cl]
		}
		row(cl+" n (errors)", func(r *Report) string { c := get(r); return fmt.Sprintf("%d (%d)", c.N, c.Errors) })
		row(cl+" per s", func(r *Report) string { return fmt.Sprintf("%.1f", get(r).PerSec) })
		row(cl+" p50 ms", func(r *Report) string { return fmt.Sprintf("%.2f", get(r).P50MS) })
		row(cl+" p99 ms", func(r *Report) string { return fmt.Sprintf("%.2f", get(r).P99MS) })
	}
	row("inserts acked (lost)", func(r *Report) string { return fmt.Sprintf("%d (%d)", r.Acked, r.Lost) })
	for _, r := range reps {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "%s error: %s\n", r.Label, firstLine(e))
		}
		if r.ErrorsTruncated > 0 {
			fmt.Fprintf(w, "%s: %d more errors\n", r.Label, r.ErrorsTruncated)
		}
	}
}

func compareCmd(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("compare: give the JSON reports to compare")
	}
	var reps []*Report
	for _, p := range args {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		var r Report
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("compare: %s: %w", p, err)
		}
		reps = append(reps, &r)
	}
	printReports(stdout, reps)
	return nil
}
