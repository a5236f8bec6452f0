package fileio

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
)

// readBoth reads in with the one-goroutine reader and the parallel one and
// returns their dumps and errors.
func readBoth(t *testing.T, in string, opts CSVOptions) (serial, parallel string) {
	t.Helper()
	render := func(schema *arrow.Schema, recs []arrow.Record, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		defer ReleaseAll(recs)
		for _, r := range recs {
			if opts.BatchRows > 0 && r.NumRows() > int64(opts.BatchRows) {
				t.Fatalf("record of %d rows, BatchRows %d", r.NumRows(), opts.BatchRows)
			}
		}
		s, rows := dump(t, schema, recs)
		return fmt.Sprintf("%s %q", s, rows)
	}
	s, recs, err := readCSVSerial("data.csv", strings.NewReader(in), opts)
	serial = render(s, recs, err)
	s, recs, err = ReadCSVFrom(context.Background(), "data.csv", strings.NewReader(in), opts)
	parallel = render(s, recs, err)
	return serial, parallel
}

// TestStreamCSVChunks cuts inputs into chunks of every small size, so that
// chunk boundaries fall inside quoted fields, between '\r' and '\n', in
// blank lines and at the end, and checks that the parallel reader gives
// the one-goroutine reader's rows or error.
func TestStreamCSVChunks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts CSVOptions
	}{
		{"quoted newlines", "a,b\n1,\"x\ny\"\n2,\"p\n\nq\"\n3,z\n4,\"\n\"\n", CSVOptions{}},
		{"crlf", "a,b\r\n1,x\r\n2,y\r\n3,\"u\r\nv\"\r\n", CSVOptions{}},
		{"escaped quotes", "a,b\n1,\"he said \"\"hi\"\"\"\n2,\"\"\"\"\n3,\"\"\n", CSVOptions{}},
		{"empty lines", "a,b\n\n1,2\n\n\n3,4\n\n", CSVOptions{}},
		{"one column keeps empty lines", "x\n1\n\n2\n\n", CSVOptions{}},
		{"header detected", "name,city\nann,paris\nbob,rome\n", CSVOptions{}},
		{"no header", "1,2\n3,4\n5,6\n", CSVOptions{}},
		{"forced header", "1,2\n3,4\n5,6\n", CSVOptions{Header: HeaderYes}},
		{"no final newline", "a,b\n1,2\n3,4", CSVOptions{}},
		{"final delimiter", "a,b\n1,2\n3,", CSVOptions{}},
		{"final quoted field", "a,b\n1,2\n3,\"x\"", CSVOptions{}},
		{"bom", "\xEF\xBB\xBFa,b\n1,2\n3,4\n", CSVOptions{}},
		{"multibyte", "名前,n\n日本語,1\n\"絵\n文字 😀\",2\n", CSVOptions{}},
		{"stray quotes in unquoted fields", "a,b\n1,x\"y\n2,z\n3,w\"\n4,v\n5,\"q\n\"\n", CSVOptions{}},
		{"stray quote before quoted newlines", "a,b\n1,x\n2,y\n3,z\n4,x\"y\n5,\"p\nq\"\n6,z\n7,\"r\ns\"\n8,t\n9,u\n10,\"v\nw\"\n", CSVOptions{}},
		{"carriage returns only", "a,b\r1,2\r3,4\r", CSVOptions{}},
		{"tsv", "a\tb\n1\tx,y\n2\t\"t\tu\"\n", CSVOptions{Delimiter: '\t'}},
		{"nulls", "a,b\nNULL,1\n,\"\"\nx,NULL\n", CSVOptions{NullString: "NULL"}},
		{"types after the sample", "i,f,d,s\n1,1.5,2024-01-05,x\n2,2,2024-02-29,\"y\nz\"\n3,-3e2,,w\n", CSVOptions{SampleRows: 1}},
		{"empty", "", CSVOptions{}},
		{"header only", "a,b\n", CSVOptions{}},
		{"blank only", "\n\n", CSVOptions{}},
		{"late type error", "n\n1\n2\n3\n\"4\"\nx\n", CSVOptions{SampleRows: 2}},
		{"late field count error", "a,b\n1,2\n\"3\n\",4\n5\n", CSVOptions{SampleRows: 1}},
		{"late unterminated quote", "a,b\n1,2\n3,\"abc\n", CSVOptions{SampleRows: 1}},
		{"late junk after quote", "a,b\n1,2\n3,\"x\"y\n", CSVOptions{SampleRows: 1}},
		{"late invalid utf8", "a,b\n1,ok\n2,\xff\n", CSVOptions{SampleRows: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A sample of one row hands the rest to the workers.
			for _, sample := range []int{tc.opts.SampleRows, 1} {
				for _, chunk := range []int{0, 1, 2, 3, 5, 8, 13} {
					for _, workers := range []int{1, 3} {
						opts := tc.opts
						opts.chunkBytes, opts.Workers, opts.BatchRows, opts.SampleRows = chunk, workers, 2, sample
						serial, parallel := readBoth(t, tc.in, opts)
						if serial != parallel {
							t.Fatalf("sample %d, chunk %d, %d workers:\nparallel %s\nserial   %s", sample, chunk, workers, parallel, serial)
						}
					}
				}
			}
		})
	}
}

// TestStreamCSVGenerated compares the readers on a larger random file with
// quoting, embedded newlines, CRLF and blank lines, cut into chunks of
// many sizes.
func TestStreamCSVGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	b.WriteString("id,name,score,ok,day\n")
	for i := 0; i < 3000; i++ {
		name := fmt.Sprintf("n%d", rng.Intn(1000))
		switch rng.Intn(6) {
		case 0:
			name = fmt.Sprintf("\"a \"\"q\"\"\n%d\"", i)
		case 1:
			name = "\"x,\r\ny\""
		case 2:
			name = ""
		}
		eol := "\n"
		if rng.Intn(4) == 0 {
			eol = "\r\n"
		}
		fmt.Fprintf(&b, "%d,%s,%.3f,%v,2024-01-%02d%s", i, name, rng.Float64()*100, rng.Intn(2) == 0, 1+rng.Intn(28), eol)
		if rng.Intn(50) == 0 {
			b.WriteString(eol)
		}
	}
	in := b.String()
	for _, chunk := range []int{0, 7, 100, 1000, 4096} {
		opts := CSVOptions{chunkBytes: chunk, Workers: 4, SampleRows: 10, BatchRows: 100}
		serial, parallel := readBoth(t, in, opts)
		if serial != parallel {
			t.Fatalf("chunk %d: parallel and serial differ", chunk)
		}
		if strings.HasPrefix(parallel, "error") {
			t.Fatal(parallel)
		}
	}
}

// TestStreamCSVTypeError checks the typed error of a late value that does
// not fit its inferred type, far past the first chunk.
func TestStreamCSVTypeError(t *testing.T) {
	var b strings.Builder
	b.WriteString("k,v\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "%d,\"line\n%d\"\n", i, i)
	}
	b.WriteString("oops,x\n1,y\n")
	_, recs, err := ReadCSVFrom(context.Background(), "late.csv", strings.NewReader(b.String()), CSVOptions{chunkBytes: 512, Workers: 3, SampleRows: 100})
	if err == nil {
		ReleaseAll(recs)
		t.Fatal("no error")
	}
	var ce *CSVError
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %v, want *CSVError", err, err)
	}
	want := CSVError{Path: "late.csv", Line: 2 + 2*5000, Column: 1, Field: "k", Type: "BIGINT"}
	if got := (CSVError{Path: ce.Path, Line: ce.Line, Column: ce.Column, Field: ce.Field, Type: ce.Type}); !reflect.DeepEqual(got, want) {
		t.Fatalf("error %+v, want %+v", got, want)
	}
	if !strings.HasPrefix(err.Error(), "late.csv:10002:1: cannot parse 'oops' as BIGINT") {
		t.Fatalf("error %q", err)
	}
}

// TestStreamCSVStops checks that an error from emit stops the read and is
// returned as it is, and that a cancelled context stops it too.
func TestStreamCSVStops(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "%d,x%d\n", i, i)
	}
	stop := errors.New("stop")
	n := 0
	err := StreamCSVFrom(context.Background(), "s.csv", strings.NewReader(b.String()), CSVOptions{chunkBytes: 1000, BatchRows: 50},
		func(*arrow.Schema) error { return nil },
		func(rec arrow.Record) error {
			rec.Release()
			if n++; n == 3 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("err %v after %d records", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = StreamCSVFrom(ctx, "s.csv", strings.NewReader(b.String()), CSVOptions{chunkBytes: 1000, BatchRows: 50},
		func(*arrow.Schema) error { return nil },
		func(rec arrow.Record) error {
			rec.Release()
			cancel()
			return nil
		})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
