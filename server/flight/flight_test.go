package flight

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/flight"
	"github.com/apache/arrow/go/v17/arrow/flight/flightsql"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/server/files"
	"github.com/gsqlengine/gsql/server/limits"
)

func startFlight(t *testing.T) *flightsql.Client {
	return startFlightUsers(t, nil)
}

func startFlightUsers(t *testing.T, users map[string]string) *flightsql.Client {
	t.Helper()
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewGRPCServer(db, "gsql", users, files.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	cl, err := flightsql.NewClient(l.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cl.Close()
		srv.Stop()
		db.Close()
	})
	return cl
}

// fetch reads every record of a FlightInfo's endpoints as text rows.
func fetch(t *testing.T, ctx context.Context, cl *flightsql.Client, info *flight.FlightInfo, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			rec := rdr.Record()
			for r := 0; r < int(rec.NumRows()); r++ {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(r))
				}
				rows = append(rows, strings.Join(cells, "|"))
			}
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	return rows
}

func TestFlightSQL(t *testing.T) {
	cl := startFlight(t)
	ctx := context.Background()
	if _, err := cl.ExecuteUpdate(ctx, `CREATE TABLE t (id BIGINT, name VARCHAR, f DOUBLE, d DATE, ts TIMESTAMP, b BOOLEAN)`); err != nil {
		t.Fatal(err)
	}
	n, err := cl.ExecuteUpdate(ctx, `INSERT INTO t VALUES (1, 'a', 1.5, '2024-01-02', '2024-01-02 03:04:05', TRUE), (2, NULL, NULL, NULL, NULL, NULL)`)
	if err != nil || n != 2 {
		t.Fatalf("insert: %d, %v", n, err)
	}
	info, err := cl.Execute(ctx, `SELECT * FROM t ORDER BY id`)
	got := fetch(t, ctx, cl, info, err)
	want := []string{"1|a|1.5|2024-01-02|2024-01-02 03:04:05Z|true", "2|(null)|(null)|(null)|(null)|(null)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}

	// Prepared statements with parameters.
	ins, err := cl.Prepare(ctx, `INSERT INTO t (id, name) VALUES (?, ?)`)
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "0", Type: arrow.PrimitiveTypes.Int64}, {Name: "1", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{10, 11, 12}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"x", "y", ""}, []bool{true, true, false})
	params := b.NewRecord()
	ins.SetParameters(params)
	if n, err := ins.ExecuteUpdate(ctx); err != nil || n != 3 {
		t.Fatalf("prepared insert: %d, %v", n, err)
	}
	ins.Close(ctx)
	params.Release()
	b.Release()

	sel, err := cl.Prepare(ctx, `SELECT COUNT(*) FROM t WHERE id > ?`)
	if err != nil {
		t.Fatal(err)
	}
	ps := arrow.NewSchema([]arrow.Field{{Name: "0", Type: arrow.PrimitiveTypes.Int64}}, nil)
	pb := array.NewRecordBuilder(memory.DefaultAllocator, ps)
	pb.Field(0).(*array.Int64Builder).Append(10)
	prec := pb.NewRecord()
	sel.SetParameters(prec)
	info, err = sel.Execute(ctx)
	if got := fetch(t, ctx, cl, info, err); fmt.Sprint(got) != "[2]" {
		t.Fatalf("prepared count: %v", got)
	}
	sel.Close(ctx)
	prec.Release()
	pb.Release()

	// Catalog calls.
	info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{})
	if got := fetch(t, ctx, cl, info, err); fmt.Sprint(got) != "[gsql|(null)|t|TABLE]" {
		t.Fatalf("GetTables: %v", got)
	}
	pat := "no%"
	info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{TableNameFilterPattern: &pat})
	if got := fetch(t, ctx, cl, info, err); len(got) != 0 {
		t.Fatalf("GetTables no%%: %v", got)
	}
	info, err = cl.GetTableTypes(ctx)
	if got := fetch(t, ctx, cl, info, err); fmt.Sprint(got) != "[TABLE]" {
		t.Fatalf("GetTableTypes: %v", got)
	}
	info, err = cl.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName})
	if got := fetch(t, ctx, cl, info, err); len(got) != 1 || !strings.Contains(got[0], "gsql") {
		t.Fatalf("GetSqlInfo: %v", got)
	}
}

func TestFlightSQLErrors(t *testing.T) {
	cl := startFlight(t)
	ctx := context.Background()
	cases := []struct {
		query string
		code  codes.Code
	}{
		{`SELEC 1`, codes.InvalidArgument},
		{`SELECT * FROM missing`, codes.NotFound},
	}
	for _, c := range cases {
		info, err := cl.Execute(ctx, c.query)
		if err == nil {
			var rdr *flight.Reader
			rdr, err = cl.DoGet(ctx, info.Endpoint[0].Ticket)
			if err == nil {
				for rdr.Next() {
				}
				err = rdr.Err()
				rdr.Release()
			}
		}
		if status.Code(err) != c.code {
			t.Errorf("%s: got %v, want %v", c.query, err, c.code)
		}
	}
	if _, err := cl.ExecuteUpdate(ctx, `DROP TABLE missing`); status.Code(err) != codes.NotFound {
		t.Errorf("DROP TABLE missing: %v", err)
	}
	// Files are off by default, also through a forged ticket.
	if _, err := cl.Execute(ctx, `SELECT * FROM read_csv('/etc/passwd')`); status.Code(err) != codes.PermissionDenied {
		t.Errorf("read_csv: %v", err)
	}
	tkt, _ := flightsql.CreateStatementQueryTicket([]byte("SELECT * FROM `__file__:/etc/passwd`"))
	rdr, err := cl.DoGet(ctx, &flight.Ticket{Ticket: tkt})
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	if status.Code(err) != codes.PermissionDenied {
		t.Errorf("forged ticket: %v", err)
	}
}

func TestFlightSQLCancel(t *testing.T) {
	cl := startFlight(t)
	ctx := context.Background()
	var vals strings.Builder
	for i := 0; i < 20000; i++ {
		if i > 0 {
			vals.WriteByte(',')
		}
		fmt.Fprintf(&vals, "(%d)", i)
	}
	for _, q := range []string{`CREATE TABLE big (a BIGINT)`, `INSERT INTO big VALUES ` + vals.String()} {
		if _, err := cl.ExecuteUpdate(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	info, err := cl.Execute(ctx, `SELECT COUNT(*) FROM big x, big y WHERE (x.a + y.a) % 7 = 3`)
	if err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	rdr, err := cl.DoGet(qctx, info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	if c := status.Code(err); c != codes.DeadlineExceeded && c != codes.Canceled {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("cancel took %v", d)
	}
}

func TestFlightSQLAuth(t *testing.T) {
	cl := startFlightUsers(t, map[string]string{"alice": "s3cret"})
	ctx := context.Background()
	// Refusals are checked with unary calls (GetFlightInfo): on a DoPut
	// stream the client may report the server's closing as a bare EOF from
	// its send before it reads the status.
	if _, err := cl.Execute(ctx, `CREATE TABLE t (a BIGINT)`); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without login: %v", err)
	}
	for _, bad := range [][2]string{{"alice", "wrong"}, {"bob", "s3cret"}, {"alice", ""}} {
		if _, err := cl.Client.AuthenticateBasicToken(ctx, bad[0], bad[1]); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("%v: %v", bad, err)
		}
	}
	bad := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer nonsense")
	if _, err := cl.Execute(bad, `CREATE TABLE t (a BIGINT)`); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("forged token: %v", err)
	}
	for _, header := range []string{"Basic", "Basic !!!", "Basic " + "bm9jb2xvbg", "Bearer"} { // malformed: no crash
		hctx := metadata.AppendToOutgoingContext(ctx, "authorization", header)
		if _, err := cl.Execute(hctx, `SELECT 1`); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("%q: %v", header, err)
		}
	}
	actx, err := cl.Client.AuthenticateBasicToken(ctx, "alice", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ExecuteUpdate(actx, `CREATE TABLE t (a BIGINT)`); err != nil {
		t.Fatal(err)
	}
	info, err := cl.Execute(actx, `SELECT COUNT(*) FROM t`)
	if got := fetch(t, actx, cl, info, err); fmt.Sprint(got) != "[0]" {
		t.Fatalf("got %v", got)
	}
}

// A token stops working after its lifetime, and expired tokens leave the
// table at the next login.
func TestFlightSQLTokenExpiry(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	a := &basicAuth{users: map[string]string{"alice": "s3cret"}, ttl: time.Minute, now: func() time.Time { return now }}
	login := func() string {
		md := metadata.Pairs("authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:s3cret")))
		tok, err := a.login(metadata.NewIncomingContext(context.Background(), md))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	bearer := func(tok string) error {
		md := metadata.Pairs("authorization", "Bearer "+tok)
		return a.bearer(metadata.NewIncomingContext(context.Background(), md))
	}
	first := login()
	if err := bearer(first); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	now = now.Add(59 * time.Second)
	if err := bearer(first); err != nil {
		t.Fatalf("token within its lifetime: %v", err)
	}
	now = now.Add(2 * time.Second)
	if err := bearer(first); status.Code(err) != codes.Unauthenticated || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired token: %v", err)
	}
	second := login()
	now = now.Add(2 * time.Minute)
	third := login() // sweeps the second, expired by now
	count := 0
	a.tokens.Range(func(k, v any) bool { count++; return true })
	if count != 1 || bearer(second) == nil || bearer(third) != nil {
		t.Fatalf("%d tokens kept after the sweep; second %v, third %v", count, bearer(second), bearer(third))
	}
}

// The server's limits apply to Flight statements: a statement time limit
// cancels a query (DeadlineExceeded) and an update alike.
func TestFlightSQLLimits(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(context.Background(), `CREATE TABLE big (v BIGINT); INSERT INTO big VALUES (1), (2), (3)`); err != nil {
		t.Fatal(err)
	}
	// A nanosecond: every statement is past it before it starts.
	srv, err := NewGRPCServerWith(db, Options{Catalog: "gsql", Limits: limits.New(1, time.Nanosecond)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Stop()
	cl, err := flightsql.NewClient(l.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	info, err := cl.Execute(ctx, `SELECT COUNT(*) FROM big WHERE v > 1`)
	if err == nil {
		var rdr interface {
			Next() bool
			Err() error
			Release()
		}
		r, derr := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if derr == nil {
			rdr = r
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		} else {
			err = derr
		}
	}
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("query past the statement time: %v", err)
	}
	if _, err := cl.ExecuteUpdate(ctx, `INSERT INTO big SELECT v FROM big`); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("update past the statement time: %v", err)
	}
}

// GetFlightInfo announces the result's schema (from the bound plan, before
// the query runs), the same schema the stream then carries.
func TestFlightSQLInfoSchema(t *testing.T) {
	cl := startFlight(t)
	ctx := context.Background()
	if _, err := cl.ExecuteUpdate(ctx, `CREATE TABLE s (a BIGINT, b VARCHAR, d DECIMAL(10,2), t DATE); INSERT INTO s VALUES (1, 'x', 1.25, DATE '2024-01-05')`); err != nil {
		t.Fatal(err)
	}
	info, err := cl.Execute(ctx, `SELECT a + 1 AS n, b, d * 2 AS dd, t FROM s WHERE a > 0`)
	if err != nil {
		t.Fatal(err)
	}
	announced, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("GetFlightInfo's schema: %v", err)
	}
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	for rdr.Next() {
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if !announced.Equal(rdr.Schema()) {
		t.Fatalf("announced %v, streamed %v", announced, rdr.Schema())
	}
	if got := fmt.Sprint(announced.Field(2).Type); got != "decimal(22, 2)" && !strings.HasPrefix(got, "decimal") {
		t.Fatalf("DECIMAL column announced as %s", got)
	}
	// A statement that is not a query announces no schema; a bad one is
	// refused at GetFlightInfo.
	if info, err := cl.Execute(ctx, `EXPLAIN SELECT a FROM s`); err != nil || len(info.Schema) != 0 {
		t.Fatalf("EXPLAIN: schema %d bytes, %v", len(info.Schema), err)
	}
	if _, err := cl.Execute(ctx, `SELECT nope FROM s`); status.Code(err) != codes.NotFound {
		t.Fatalf("unknown column: %v", err)
	}
}

// --max-queries-per-connection: a client whose connection already runs a
// statement (a stream it has not read) is refused another at once;
// other connections are not.
func TestFlightSQLPerConnectionLimit(t *testing.T) {
	db, err := gsql.Open(gsql.Options{Device: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// 4 MB of rows in 20 records: more than gRPC's flow-control windows
	// hold, so an unread stream keeps its statement running.
	sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	var recs []arrow.Record
	for r := 0; r < 20; r++ {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for i := 0; i < 1000; i++ {
			b.Append(strings.Repeat("x", 200))
		}
		col := b.NewArray()
		recs = append(recs, array.NewRecord(sch, []arrow.Array{col}, 1000))
		col.Release()
		b.Release()
	}
	if err := db.RegisterTable("big", sch, recs); err != nil {
		t.Fatal(err)
	}
	srv, err := NewGRPCServerWith(db, Options{Catalog: "gsql", Limits: limits.New(0, 0).WithPerConnection(1)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Stop()
	dial := func() *flightsql.Client {
		cl, err := flightsql.NewClient(l.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	one := dial()
	defer one.Close()
	info, err := one.Execute(ctx, `SELECT s FROM big`)
	if err != nil {
		t.Fatal(err)
	}
	held, err := one.DoGet(ctx, info.Endpoint[0].Ticket) // not read
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	var refused error
	for try := 0; try < 50 && status.Code(refused) != codes.ResourceExhausted; try++ {
		var rdr *flight.Reader
		if rdr, refused = one.DoGet(ctx, info.Endpoint[0].Ticket); refused == nil {
			for rdr.Next() {
			}
			refused = rdr.Err()
			rdr.Release()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if status.Code(refused) != codes.ResourceExhausted {
		t.Fatalf("second statement on a busy connection: %v", refused)
	}
	other := dial()
	defer other.Close()
	info2, err := other.Execute(ctx, `SELECT COUNT(*) FROM big`)
	if rows := fetch(t, ctx, other, info2, err); fmt.Sprint(rows) != "[20000]" {
		t.Fatalf("another connection: %v", rows)
	}
}
