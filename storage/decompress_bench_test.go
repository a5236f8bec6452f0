//go:build linux

package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/gsqlengine/gsql/datagen/clickbench"
	"github.com/gsqlengine/gsql/datagen/tpch"
)

// benchColumns are the columns BenchmarkDecompress decodes: TPC-H
// lineitem's and ClickBench hits' of each kind (sorted and random
// integers, decimals, dates, timestamps, low-cardinality and free text).
var benchColumns = []struct{ suite, name, kind string }{
	{"tpch", "l_orderkey", "int64 sorted"},
	{"tpch", "l_partkey", "int64 random"},
	{"tpch", "l_quantity", "decimal"},
	{"tpch", "l_extendedprice", "decimal"},
	{"tpch", "l_shipdate", "date"},
	{"tpch", "l_returnflag", "string low-card"},
	{"tpch", "l_shipmode", "string low-card"},
	{"tpch", "l_comment", "string text"},
	{"hits", "UserID", "int64 random"},
	{"hits", "EventTime", "timestamp"},
	{"hits", "RegionID", "int64 low-card"},
	{"hits", "IsRefresh", "int64 flag"},
	{"hits", "URL", "string text"},
	{"hits", "SearchPhrase", "string sparse"},
}

const benchRows = 1 << 20 // a segment's rows

// benchData generates one segment's worth of lineitem and hits rows once.
var benchData = sync.OnceValues(func() (map[string]arrow.Record, error) {
	ctx := context.Background()
	out := map[string]arrow.Record{}
	g, err := tpch.New(0.2)
	if err != nil {
		return nil, err
	}
	var li []arrow.Record
	if err := g.GenerateRange(ctx, tpch.LineItem, 1, benchRows/4, 0, func(r arrow.Record) error { li = append(li, r); return nil }); err != nil {
		return nil, err
	}
	out["tpch"] = concatRecords(tpch.Schema(tpch.LineItem), li)
	h, err := clickbench.New(benchRows, 1)
	if err != nil {
		return nil, err
	}
	var hits []arrow.Record
	if err := h.Generate(ctx, 0, func(r arrow.Record) error { hits = append(hits, r); return nil }); err != nil {
		return nil, err
	}
	out["hits"] = concatRecords(clickbench.Schema(), hits)
	return out, nil
})

func concatRecords(schema *arrow.Schema, recs []arrow.Record) arrow.Record {
	cols := make([]arrow.Array, schema.NumFields())
	for c := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			panic(err)
		}
		cols[c] = a
	}
	n := int64(0)
	for _, r := range recs {
		n += r.NumRows()
	}
	return array.NewRecord(schema, cols, n)
}

// columnSegment writes column name of rec alone as a segment compressed
// with codec and parses it.
func columnSegment(tb testing.TB, rec arrow.Record, name string, codec Codec) (*segmentLayout, int64) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		tb.Fatalf("no column %s", name)
	}
	schema := arrow.NewSchema([]arrow.Field{rec.Schema().Field(idx[0])}, nil)
	one := array.NewRecord(schema, []arrow.Array{rec.Column(idx[0])}, rec.NumRows())
	path := filepath.Join(tb.TempDir(), "seg")
	_, encs, err := writeSegment(path, one, codec)
	if err != nil {
		tb.Fatal(err)
	}
	buf, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := parseSegment(buf, schema, encs, rec.NumRows())
	if err != nil {
		tb.Fatal(err)
	}
	return l, int64(len(buf))
}

// BenchmarkDecompress decompresses one column of a 1M-row segment per
// iteration, on one core: its GB/s (bytes of decompressed output per
// second) is the per-core rate of a cold scan of a compressed table. The
// "-arrow" rows are plain Arrow IPC body compression, every buffer
// compressed, without gsql's column encodings.
//
//	go test -run '^$' -bench Decompress -cpu 1 ./storage
func BenchmarkDecompress(b *testing.B) {
	data, err := benchData()
	if err != nil {
		b.Fatal(err)
	}
	for _, col := range benchColumns {
		for _, codec := range []string{"lz4", "zstd", "lz4-arrow", "zstd-arrow"} {
			c := Codec(strings.TrimSuffix(codec, "-arrow"))
			encodeColumns = !strings.HasSuffix(codec, "-arrow")
			l, size := columnSegment(b, data[col.suite], col.name, c)
			encodeColumns = true
			b.Run(fmt.Sprintf("%s/%s/%s", col.suite, col.name, codec), func(b *testing.B) {
				a, err := l.column(0)
				if err != nil {
					b.Fatal(err)
				}
				out := arrayBytes(a.Data())
				b.SetBytes(out)
				b.ReportMetric(float64(out)/float64(size), "ratio")
				// Thread CPU time, not wall time: the rate of one core
				// even on a machine that other work shares.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				start := threadCPU()
				for i := 0; i < b.N; i++ {
					if _, err := l.column(0); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out)*float64(b.N)/(threadCPU()-start).Seconds()/1e9, "GB/s-core")
			})
		}
	}
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
