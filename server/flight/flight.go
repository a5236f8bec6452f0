// Package flight serves a gsql database over Arrow Flight SQL: statements
// and prepared statements stream the engine's Arrow records to the client
// as they are produced (no row conversion), updates report their counts,
// and the catalog calls (GetTables, GetTableTypes, GetSqlInfo) describe
// the one database. It is a flightsql.Server over a *gsql.DB; gRPC and
// the Flight SQL framing are arrow/go's.
package flight

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/flight"
	"github.com/apache/arrow/go/v17/arrow/flight/flightsql"
	"github.com/apache/arrow/go/v17/arrow/flight/flightsql/schema_ref"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/server/files"
	"github.com/gsqlengine/gsql/server/limits"
	"github.com/gsqlengine/gsql/sql"
)

// Server is the Flight SQL service over one database.
type Server struct {
	flightsql.BaseServer
	// Files says which files statements may read (the zero value: none).
	Files    files.Policy
	Limits   *limits.Limits // nil: none
	db       *gsql.DB
	catalog  string
	nextID   atomic.Uint64
	prepared sync.Map // handle -> *prepared
}

type prepared struct {
	query string
	mu    sync.Mutex
	args  []any
}

// New returns the service; NewFlightServer wraps it for a flight.Server.
func New(db *gsql.DB, catalogName string) (*Server, error) {
	s := &Server{db: db, catalog: catalogName}
	s.Alloc = memory.DefaultAllocator
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:         "gsql",
		flightsql.SqlInfoFlightSqlServerVersion:      "0",
		flightsql.SqlInfoFlightSqlServerArrowVersion: "17.0.0",
		flightsql.SqlInfoFlightSqlServerReadOnly:     false,
		flightsql.SqlInfoFlightSqlServerSql:          true,
		flightsql.SqlInfoFlightSqlServerSubstrait:    false,
		flightsql.SqlInfoFlightSqlServerTransaction:  int32(0), // none
		flightsql.SqlInfoFlightSqlServerCancel:       false,
		flightsql.SqlInfoIdentifierQuoteChar:         "`",
		flightsql.SqlInfoDDLCatalog:                  false,
		flightsql.SqlInfoDDLSchema:                   false,
		flightsql.SqlInfoDDLTable:                    true,
	} {
		if err := s.RegisterSqlInfo(id, v); err != nil {
			return nil, fmt.Errorf("flight sql info %d: %w", id, err)
		}
	}
	return s, nil
}

// NewGRPCServer returns a gRPC server carrying the Flight SQL service for
// db, whose statements may read the files policy allows; Serve it on a listener, stop it with GracefulStop (Stop cancels
// running streams, whose queries then stop). users, when not nil, maps
// user names to passwords: clients then log in with Basic auth in the
// Handshake and use the bearer token it returns.
func NewGRPCServer(db *gsql.DB, catalogName string, users map[string]string, policy files.Policy, opts ...grpc.ServerOption) (*grpc.Server, error) {
	return NewGRPCServerWith(db, Options{Catalog: catalogName, Users: users, Files: policy}, opts...)
}

// Options configure NewGRPCServerWith.
type Options struct {
	// Catalog is the catalog name clients see.
	Catalog string
	// Users, when not nil, maps user names to passwords (Basic auth in
	// the Handshake, then a bearer token).
	Users map[string]string
	// TokenTTL is how long a token stays valid (0: DefaultTokenTTL).
	TokenTTL time.Duration
	// Files says which files statements may read.
	Files files.Policy
	// Limits caps the statements running at once and their time; gsql
	// serve shares one with its MySQL listener (nil: no limits).
	Limits *limits.Limits
}

// NewGRPCServerWith is NewGRPCServer with every option.
func NewGRPCServerWith(db *gsql.DB, o Options, opts ...grpc.ServerOption) (*grpc.Server, error) {
	svc, err := New(db, o.Catalog)
	if err != nil {
		return nil, err
	}
	svc.Files = o.Files
	svc.Limits = o.Limits
	if o.Users != nil {
		a := &basicAuth{users: o.Users, ttl: o.TokenTTL}
		opts = append(opts, grpc.ChainUnaryInterceptor(a.unary), grpc.ChainStreamInterceptor(a.stream))
	}
	gs := grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(gs, flightsql.NewFlightServer(svc))
	return gs, nil
}

// begin applies the server's limits to a statement; the gRPC connection
// (the client's address) is what the per-connection cap counts.
func (s *Server) begin(ctx context.Context) (context.Context, func(), error) {
	conn := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		conn = p.Addr.String()
	}
	return s.Limits.BeginFor(ctx, conn, 0) // limits.ErrConnectionBusy is errkind.Busy
}

// exec runs a statement without rows under the server's limits.
func (s *Server) exec(ctx context.Context, query string, args ...any) (gsql.Result, error) {
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return gsql.Result{}, err
	}
	defer done()
	return s.db.Exec(ctx, query, args...)
}

// check applies the file policy.
func (s *Server) check(query string) error {
	if err := s.Files.Check(query); err != nil {
		return grpcError(errkind.Wrap(errkind.AccessDenied, err))
	}
	return nil
}

// grpcCodes gives each error kind the gRPC code a Flight client expects.
var grpcCodes = map[errkind.Kind]codes.Code{
	errkind.Unknown:           codes.Internal,
	errkind.Syntax:            codes.InvalidArgument,
	errkind.Unsupported:       codes.Unimplemented,
	errkind.OperandColumns:    codes.InvalidArgument,
	errkind.NoSuchTable:       codes.NotFound,
	errkind.BadTable:          codes.NotFound,
	errkind.NoSuchColumn:      codes.NotFound,
	errkind.AmbiguousColumn:   codes.InvalidArgument,
	errkind.NoSuchFunction:    codes.NotFound,
	errkind.NoSuchIndex:       codes.NotFound,
	errkind.TypeMismatch:      codes.InvalidArgument,
	errkind.FunctionArguments: codes.InvalidArgument,
	errkind.TableExists:       codes.AlreadyExists,
	errkind.IndexExists:       codes.AlreadyExists,
	errkind.DuplicateColumn:   codes.InvalidArgument,
	errkind.WrongObject:       codes.InvalidArgument,
	errkind.NotNull:           codes.InvalidArgument,
	errkind.BadValue:          codes.InvalidArgument,
	errkind.OutOfRange:        codes.InvalidArgument,
	errkind.Conflict:          codes.Aborted,
	errkind.ReadOnly:          codes.FailedPrecondition,
	errkind.AccessDenied:      codes.PermissionDenied,
	errkind.OutOfMemory:       codes.ResourceExhausted,
	errkind.Busy:              codes.ResourceExhausted,
	errkind.Canceled:          codes.Canceled,
	errkind.Timeout:           codes.DeadlineExceeded,
	errkind.UnknownVariable:   codes.InvalidArgument,
	errkind.WrongValue:        codes.InvalidArgument,
	errkind.Internal:          codes.Internal,
	errkind.DuplicateKey:      codes.AlreadyExists,
	errkind.NonGrouped:        codes.InvalidArgument,
	errkind.DiskFull:          codes.ResourceExhausted,
	errkind.NoDefault:         codes.InvalidArgument,
	errkind.InvalidDefault:    codes.InvalidArgument,
	errkind.MixedAggregate:    codes.InvalidArgument,
	errkind.IncorrectValue:    codes.InvalidArgument,
}

// grpcError gives a gsql error the gRPC status a Flight client expects for
// its kind (errkind.Of, the classification the MySQL server uses too).
// Flight SQL has no field for a SQLSTATE: the message starts with it, as
// "SQLSTATE[42S02]: table "t" does not exist".
func grpcError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err // already a gRPC status
	}
	k := errkind.Of(err)
	code, ok := grpcCodes[k]
	if !ok {
		code = codes.Internal
	}
	_, state := k.MySQL()
	return status.Errorf(code, "SQLSTATE[%s]: %s", state, err.Error())
}

func (s *Server) info(desc *flight.FlightDescriptor, ticket []byte, schema *arrow.Schema) *flight.FlightInfo {
	fi := &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: ticket}}},
		FlightDescriptor: desc,
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
	if schema != nil {
		fi.Schema = flight.SerializeSchema(schema, s.Alloc)
	}
	return fi
}

// stream runs a query and sends its records as they come. Each record is
// retained for the sender, which releases it once written, so results
// in pooled (GPU result) memory stay valid while in flight.
func (s *Server) stream(ctx context.Context, query string, args []any) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return nil, nil, grpcError(err)
	}
	rdr, err := s.db.Query(ctx, query, args...)
	if err != nil {
		done()
		return nil, nil, grpcError(err)
	}
	ch := make(chan flight.StreamChunk, 2)
	go func() {
		defer close(ch)
		defer done()
		defer rdr.Release()
		for rdr.Next() {
			rec := rdr.Record()
			rec.Retain()
			select {
			case ch <- flight.StreamChunk{Data: rec}:
			case <-ctx.Done():
				rec.Release()
				return
			}
		}
		if err := rdr.Err(); err != nil {
			ch <- flight.StreamChunk{Err: grpcError(err)}
		}
	}()
	return rdr.Schema(), ch, nil
}

// GetFlightInfoStatement hands back the query itself as the ticket.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if err := s.check(cmd.GetQuery()); err != nil {
		return nil, err
	}
	// The result's schema, from the bound plan (the query is not run
	// here); it also reports syntax and binding errors before DoGet.
	schema, err := s.db.ResultSchema(ctx, cmd.GetQuery())
	if err != nil {
		return nil, grpcError(err)
	}
	tkt, err := flightsql.CreateStatementQueryTicket([]byte(cmd.GetQuery()))
	if err != nil {
		return nil, err
	}
	return s.info(desc, tkt, schema), nil
}

// DoGetStatement runs the ticket's query.
func (s *Server) DoGetStatement(ctx context.Context, tkt flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	// The ticket is the query: a client may forge one.
	if err := s.check(string(tkt.GetStatementHandle())); err != nil {
		return nil, nil, err
	}
	return s.stream(ctx, string(tkt.GetStatementHandle()), nil)
}

// DoPutCommandStatementUpdate runs a statement without rows.
func (s *Server) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	if err := s.check(cmd.GetQuery()); err != nil {
		return 0, err
	}
	res, err := s.exec(ctx, cmd.GetQuery())
	if err != nil {
		return 0, grpcError(err)
	}
	return res.RowsAffected, nil
}

// CreatePreparedStatement parses the query and keeps it under a handle.
func (s *Server) CreatePreparedStatement(_ context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	if err := s.check(req.GetQuery()); err != nil {
		return res, err
	}
	if _, err := sql.ParseOne(req.GetQuery()); err != nil {
		return res, grpcError(err)
	}
	handle := fmt.Sprintf("stmt-%d-%d", time.Now().UnixNano(), s.nextID.Add(1))
	s.prepared.Store(handle, &prepared{query: req.GetQuery()})
	res.Handle = []byte(handle)
	return res, nil
}

// ClosePreparedStatement forgets a handle.
func (s *Server) ClosePreparedStatement(_ context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	if _, ok := s.prepared.LoadAndDelete(string(req.GetPreparedStatementHandle())); !ok {
		return status.Error(codes.NotFound, "prepared statement not found")
	}
	return nil
}

func (s *Server) lookup(handle []byte) (*prepared, error) {
	v, ok := s.prepared.Load(string(handle))
	if !ok {
		return nil, status.Error(codes.NotFound, "prepared statement not found")
	}
	return v.(*prepared), nil
}

// GetFlightInfoPreparedStatement: the descriptor's command is the ticket.
func (s *Server) GetFlightInfoPreparedStatement(_ context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if _, err := s.lookup(cmd.GetPreparedStatementHandle()); err != nil {
		return nil, err
	}
	return s.info(desc, desc.Cmd, nil), nil
}

// DoGetPreparedStatement runs the statement with its bound parameters.
func (s *Server) DoGetPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	p, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	p.mu.Lock()
	args := p.args
	p.mu.Unlock()
	return s.stream(ctx, p.query, args)
}

// DoPutPreparedStatementQuery binds parameters: the first row of the
// record the client sends.
func (s *Server) DoPutPreparedStatementQuery(_ context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	p, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	rows, err := paramRows(rdr)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.args = nil
	if len(rows) > 0 {
		p.args = rows[0]
	}
	p.mu.Unlock()
	return cmd.GetPreparedStatementHandle(), nil
}

// DoPutPreparedStatementUpdate runs the statement once per parameter row
// (once without parameters when none are sent).
func (s *Server) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, rdr flight.MessageReader) (int64, error) {
	p, err := s.lookup(cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	rows, err := paramRows(rdr)
	if err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		rows = [][]any{nil}
	}
	var n int64
	for _, args := range rows {
		res, err := s.exec(ctx, p.query, args...)
		if err != nil {
			return n, grpcError(err)
		}
		n += res.RowsAffected
	}
	return n, nil
}

// paramRows reads parameter records into rows of Go values.
func paramRows(rdr flight.MessageReader) ([][]any, error) {
	if rdr == nil {
		return nil, nil
	}
	var rows [][]any
	for rdr.Next() {
		rec := rdr.Record()
		for r := 0; r < int(rec.NumRows()); r++ {
			row := make([]any, rec.NumCols())
			for c, col := range rec.Columns() {
				v, err := goValue(col, r)
				if err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "parameter %d: %v", c+1, err)
				}
				row[c] = v
			}
			rows = append(rows, row)
		}
	}
	if err := rdr.Err(); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "reading parameters: %v", err)
	}
	return rows, nil
}

// goValue converts one parameter cell (a union column is unwrapped).
func goValue(col arrow.Array, i int) (any, error) {
	if col.IsNull(i) {
		return nil, nil
	}
	switch a := col.(type) {
	case *array.DenseUnion:
		child := a.Field(a.ChildID(i))
		return goValue(child, int(a.ValueOffset(i)))
	case *array.SparseUnion:
		return goValue(a.Field(a.ChildID(i)), i)
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return int64(a.Value(i)), nil
	case *array.Int16:
		return int64(a.Value(i)), nil
	case *array.Int32:
		return int64(a.Value(i)), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return int64(a.Value(i)), nil
	case *array.Uint16:
		return int64(a.Value(i)), nil
	case *array.Uint32:
		return int64(a.Value(i)), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return strings.Clone(a.Value(i)), nil
	case *array.LargeString:
		return strings.Clone(a.Value(i)), nil
	case *array.Binary:
		return string(a.Value(i)), nil
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02"), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC(), nil
	case *array.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("unsupported parameter type %s", col.DataType())
}

// GetFlightInfoTables describes GetTables' result.
func (s *Server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	return s.info(desc, desc.Cmd, schema), nil
}

// DoGetTables lists the tables, filtered as asked.
func (s *Server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	b := array.NewRecordBuilder(s.Alloc, schema)
	defer b.Release()
	if c := cmd.GetCatalog(); c == nil || *c == s.catalog {
		wantType := len(cmd.GetTableTypes()) == 0
		for _, t := range cmd.GetTableTypes() {
			wantType = wantType || strings.EqualFold(t, "TABLE")
		}
		names := s.db.Tables()
		for _, name := range names {
			if p := cmd.GetTableNameFilterPattern(); !wantType || (p != nil && !likeMatch(*p, name)) {
				continue
			}
			b.Field(0).(*array.StringBuilder).Append(s.catalog)
			b.Field(1).(*array.StringBuilder).AppendNull()
			b.Field(2).(*array.StringBuilder).Append(name)
			b.Field(3).(*array.StringBuilder).Append("TABLE")
			if cmd.GetIncludeSchema() {
				ts, err := s.db.TableSchema(name)
				if err != nil {
					return nil, nil, grpcError(err)
				}
				b.Field(4).(*array.BinaryBuilder).Append(flight.SerializeSchema(ts, s.Alloc))
			}
		}
	}
	return one(schema, b.NewRecord())
}

// GetFlightInfoTableTypes describes GetTableTypes' result.
func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.info(desc, desc.Cmd, schema_ref.TableTypes), nil
}

// DoGetTableTypes: gsql has tables (views are not listed by GetTables).
func (s *Server) DoGetTableTypes(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.Alloc, schema_ref.TableTypes)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append("TABLE")
	return one(schema_ref.TableTypes, b.NewRecord())
}

// GetFlightInfoCatalogs describes GetCatalogs' result.
func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.info(desc, desc.Cmd, schema_ref.Catalogs), nil
}

// DoGetCatalogs: the one database.
func (s *Server) DoGetCatalogs(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.Alloc, schema_ref.Catalogs)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(s.catalog)
	return one(schema_ref.Catalogs, b.NewRecord())
}

func one(schema *arrow.Schema, rec arrow.Record) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: rec}
	close(ch)
	return schema, ch, nil
}

// likeMatch is SQL LIKE with % and _ (case-insensitive).
func likeMatch(pattern, s string) bool {
	var re strings.Builder
	re.WriteString("(?is)^")
	for _, r := range pattern {
		switch r {
		case '%':
			re.WriteString(".*")
		case '_':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	ok, _ := regexp.MatchString(re.String(), s)
	return ok
}
