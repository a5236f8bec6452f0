package tpch

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen"
)

// Registrar is where Load puts the tables: *gsql.DB satisfies it.
type Registrar interface {
	RegisterTable(name string, schema *arrow.Schema, recs []arrow.Record) error
}

// Load generates every table of scale factor sf and registers it in db
// under its TPC-H name.
func Load(ctx context.Context, db Registrar, sf float64) error {
	g, err := New(sf)
	if err != nil {
		return err
	}
	for _, t := range Tables {
		recs, err := g.Records(ctx, t)
		if err != nil {
			return err
		}
		err = db.RegisterTable(t.String(), Schema(t), recs)
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			return fmt.Errorf("tpch: load %s: %w", t, err)
		}
	}
	return nil
}

// RangeRows is the number of rows GenerateRange numbers for t: the rows
// of its driving table (part for partsupp, orders for lineitem, t itself
// otherwise).
func (g *Generator) RangeRows(t Table) int64 {
	switch t {
	case PartSupp:
		return g.Rows(Part)
	case LineItem:
		return g.Rows(Orders)
	}
	return g.Rows(t)
}

// Records generates all of t's rows, in order, and returns them as
// records the caller releases. Ranges of rows are generated in parallel,
// one goroutine per CPU.
func (g *Generator) Records(ctx context.Context, t Table) ([]arrow.Record, error) {
	recs, err := datagen.ParallelRows(ctx, g.RangeRows(t), func(ctx context.Context, start, n int64, emit func(arrow.Record) error) error {
		return g.GenerateRange(ctx, t, start, n, 0, emit)
	})
	if err != nil {
		return nil, fmt.Errorf("tpch: generate %s: %w", t, err)
	}
	return recs, nil
}
