package clickbench

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen"
)

// TableName is the name ClickBench's queries give the table.
const TableName = "hits"

// Registrar is where Load puts the table: *gsql.DB satisfies it.
type Registrar interface {
	RegisterTable(name string, schema *arrow.Schema, recs []arrow.Record) error
}

// Load generates rows rows of hits with seed and registers them in db as
// the table hits.
func Load(ctx context.Context, db Registrar, rows int64, seed uint64) error {
	g, err := New(rows, seed)
	if err != nil {
		return err
	}
	recs, err := g.Records(ctx)
	if err != nil {
		return err
	}
	err = db.RegisterTable(TableName, Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		return fmt.Errorf("clickbench: load %s: %w", TableName, err)
	}
	return nil
}

// Records generates all rows, in order, and returns them as records the
// caller releases. Ranges of rows are generated in parallel, one
// goroutine per CPU.
func (g *Generator) Records(ctx context.Context) ([]arrow.Record, error) {
	workers := runtime.GOMAXPROCS(0)
	chunk := max(g.rows/int64(4*workers), DefaultBatchRows)
	var starts []int64
	for s := int64(0); s < g.rows; s += chunk {
		starts = append(starts, s)
	}
	recs, err := datagen.Parallel(ctx, starts, chunk, workers, func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error {
		return g.GenerateRange(ctx, start, n, 0, emit)
	})
	if err != nil {
		return nil, fmt.Errorf("clickbench: generate %s: %w", TableName, err)
	}
	return recs, nil
}
