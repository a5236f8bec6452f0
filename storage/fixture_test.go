package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

// The databases under testdata/v1-<codec> were written by the storage code
// of commit d25590b (before lazy decompression and gsql's own LZ4 block
// reader), one per codec, with
//
//	GSQL_WRITE_FIXTURE=1 go test ./storage -run TestWriteFixture
//
// TestOpenV1Fixture opens them with today's code: a database written by
// an earlier version keeps working.
func fixtureTables(t *testing.T) []*catalog.Table {
	t.Helper()
	g, err := tpch.New(0.001)
	must(t, err)
	var recs []arrow.Record
	// Orders 1..60 drive about 240 lineitem rows.
	must(t, g.GenerateRange(context.Background(), tpch.LineItem, 1, 60, 0, func(r arrow.Record) error {
		recs = append(recs, r)
		return nil
	}))
	schema := tpch.Schema(tpch.LineItem)
	cols := make([]catalog.Column, schema.NumFields())
	for i, f := range schema.Fields() {
		ct, err := coldata.FromArrowType(f.Type)
		must(t, err)
		cols[i] = catalog.Column{Name: f.Name, Type: ct}
	}
	return []*catalog.Table{
		{Name: "lineitem", Columns: cols, Records: recs},
		{Name: "t", Columns: testCols, Records: []arrow.Record{testRecord(300, 0)}},
	}
}

var fixtureCodecs = []Codec{CodecNone, CodecLZ4, CodecZstd}

func TestWriteFixture(t *testing.T) {
	if os.Getenv("GSQL_WRITE_FIXTURE") == "" {
		t.Skip("GSQL_WRITE_FIXTURE not set")
	}
	for _, c := range fixtureCodecs {
		dir := filepath.Join("testdata", "v1-"+string(c))
		must(t, os.RemoveAll(dir))
		s, err := Open(dir)
		must(t, err)
		s.SetCodec(c)
		for _, tbl := range fixtureTables(t) {
			must(t, s.Commit(nil, tbl))
		}
		must(t, s.Close())
		must(t, os.Remove(filepath.Join(dir, lockName)))
	}
}
