package flight

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/gsqlengine/gsql/errkind"
	"github.com/gsqlengine/gsql/memory"
)

// TestGRPCCodes: every kind has its gRPC code, and an error's status
// carries its kind's code and SQLSTATE.
func TestGRPCCodes(t *testing.T) {
	for _, k := range errkind.Kinds() {
		if _, ok := grpcCodes[k]; !ok {
			t.Errorf("kind %v has no gRPC code", k)
		}
	}
	cases := []struct {
		err   error
		code  codes.Code
		state string
	}{
		{errors.New("broken"), codes.Internal, "HY000"},
		{fmt.Errorf("INSERT INTO t: %w", errkind.New(errkind.NotNull, "column \"a\" cannot be NULL")), codes.InvalidArgument, "23000"},
		{memory.StateLimit("GROUP BY state", 1<<20, 10, "groups"), codes.ResourceExhausted, "HY001"},
		{context.Canceled, codes.Canceled, "70100"},
		{context.DeadlineExceeded, codes.DeadlineExceeded, "HY000"},
	}
	for _, c := range cases {
		st, _ := status.FromError(grpcError(c.err))
		if st.Code() != c.code || st.Message() != "SQLSTATE["+c.state+"]: "+c.err.Error() {
			t.Errorf("%v: got %v %q", c.err, st.Code(), st.Message())
		}
	}
	already := status.Error(codes.NotFound, "prepared statement not found")
	if grpcError(already) != already {
		t.Error("a gRPC status changed")
	}
}

// TestFlightSQLErrorKinds runs failing statements over Flight SQL.
func TestFlightSQLErrorKinds(t *testing.T) {
	cl := startFlight(t)
	ctx := context.Background()
	for _, q := range []string{`CREATE TABLE e (a BIGINT NOT NULL)`, `CREATE INDEX ie ON e (a)`} {
		if _, err := cl.ExecuteUpdate(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cases := []struct {
		stmt  string
		code  codes.Code
		state string
	}{
		{`INSERT INTO e VALUES (NULL)`, codes.InvalidArgument, "23000"},
		{`CREATE TABLE e (b BIGINT)`, codes.AlreadyExists, "42S01"},
		{`CREATE INDEX ie ON e (a)`, codes.AlreadyExists, "42000"},
		{`DROP TABLE missing`, codes.NotFound, "42S02"},
		{`SELEC 1`, codes.InvalidArgument, "42000"},
	}
	for _, c := range cases {
		_, err := cl.ExecuteUpdate(ctx, c.stmt)
		st, _ := status.FromError(err)
		if st.Code() != c.code || !strings.HasPrefix(st.Message(), "SQLSTATE["+c.state+"]: ") {
			t.Errorf("%s: got %v", c.stmt, err)
		}
	}
}
