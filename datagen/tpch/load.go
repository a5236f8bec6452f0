package tpch

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
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

// Records generates all of t's rows and returns them as records the
// caller releases.
func (g *Generator) Records(ctx context.Context, t Table) ([]arrow.Record, error) {
	var recs []arrow.Record
	err := g.Generate(ctx, t, 0, func(r arrow.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		for _, r := range recs {
			r.Release()
		}
		return nil, fmt.Errorf("tpch: generate %s: %w", t, err)
	}
	return recs, nil
}
