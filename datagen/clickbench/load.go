package clickbench

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
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
	parts := make([][]arrow.Record, len(starts))
	errs := make([]error, len(starts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(workers, len(starts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = g.GenerateRange(ctx, starts[i], chunk, 0, func(r arrow.Record) error {
					parts[i] = append(parts[i], r)
					return nil
				})
				if errs[i] != nil {
					cancel()
				}
			}
		}()
	}
	for i := range starts {
		next <- i
	}
	close(next)
	wg.Wait()
	var recs []arrow.Record
	var err error
	for i, p := range parts {
		recs = append(recs, p...)
		if err == nil && errs[i] != nil {
			err = errs[i]
		}
	}
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, fmt.Errorf("clickbench: generate %s: %w", TableName, err)
	}
	return recs, nil
}
