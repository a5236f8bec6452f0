package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/datagen/clickbench/answers"
)

// gsqlEngine runs the suite on gsql through its embedded API.
type gsqlEngine struct {
	name string
	db   *gsql.DB
}

// gsqlGPU is a gsql engine on the GPU: it also reports launches and
// operator placement.
type gsqlGPU struct{ *gsqlEngine }

// gsqlPoolLimit caps the GPU engines' device memory pool (--pool-limit;
// 0: no cap), for issue 36's runs of data larger than the pool; with
// gsql-gpu-capped among the engines, that engine's alone (capOnlyCapped).
var gsqlPoolLimit uint64

// capOnlyCapped says gsql-gpu-capped runs, so that --pool-limit caps it
// and the other GPU engines are uncapped.
var capOnlyCapped bool

// gsqlDevices lists the GPUs the GPU engines open (--devices: "all" or
// GPU numbers; "" the engine's default, GPU 0), for issue 37's runs over
// every GPU of the host.
var gsqlDevices string

func openGSQL(name, device string, noFusion bool) (engine, error) {
	return openGSQLOn(name, device, noFusion, gsqlDevices)
}

// openGSQLOn is openGSQL on the GPUs devices names ("": GPU 0).
func openGSQLOn(name, device string, noFusion bool, devices string) (engine, error) {
	opts := gsql.Options{Device: device, NoFusion: noFusion}
	if device != "cpu" {
		if !capOnlyCapped || name == "gsql-gpu-capped" {
			opts.PoolLimit = gsqlPoolLimit
		}
		opts.Devices = devices
	}
	db, err := gsql.Open(opts)
	if err != nil {
		if device == "gpu" {
			return nil, fmt.Errorf("%s: %w: %w", name, errUnavailable, err)
		}
		return nil, fmt.Errorf("%s: open: %w", name, err)
	}
	e := &gsqlEngine{name: name, db: db}
	if device == "gpu" || (device == "auto" && db.Device() == "gpu") {
		return gsqlGPU{e}, nil
	}
	return e, nil
}

func (e *gsqlEngine) Name() string { return e.name }

func (e *gsqlEngine) Load(_ context.Context, table string, schema *arrow.Schema, recs []arrow.Record) error {
	if err := e.drop(table); err != nil {
		return err
	}
	if err := e.db.RegisterTable(table, schema, recs); err != nil {
		return fmt.Errorf("%s: load %s: %w", e.name, table, err)
	}
	return nil
}

// LoadParquet imports a Parquet file through gsql's own reader
// (DB.Import), as a user of the shell or the API would.
func (e *gsqlEngine) LoadParquet(ctx context.Context, table, path string) error {
	if err := e.drop(table); err != nil {
		return err
	}
	if _, err := e.db.Import(ctx, path, table, gsql.ImportOptions{}); err != nil {
		return fmt.Errorf("%s: load %s: %w", e.name, table, err)
	}
	return nil
}

// drop drops table if it exists.
func (e *gsqlEngine) drop(table string) error {
	for _, t := range e.db.Tables() {
		if t == table {
			if _, err := e.db.Exec(context.Background(), "DROP TABLE "+table); err != nil {
				return fmt.Errorf("%s: drop %s: %w", e.name, table, err)
			}
		}
	}
	return nil
}

// Exec runs a statement that returns no rows.
func (e *gsqlEngine) Exec(ctx context.Context, stmt string) error {
	_, err := e.db.Exec(ctx, stmt)
	return err
}

func (e *gsqlEngine) Run(ctx context.Context, query string, c *Checksum) (result, error) {
	rdr, err := e.db.Query(ctx, query)
	if err != nil {
		return result{}, err
	}
	defer rdr.Release()
	var res result
	var scratch []byte
	for rdr.Next() {
		rec := rdr.Record()
		res.Rows += rec.NumRows()
		res.OutBytes += recordBytesV17(rec)
		if c != nil {
			if scratch, err = addRecordV17(c, rec, scratch); err != nil {
				return res, err
			}
		}
	}
	if err := rdr.Err(); err != nil {
		return res, err
	}
	return res, nil
}

// Answer runs a query and renders its rows as text.
func (e *gsqlEngine) Answer(ctx context.Context, query string) (answers.Answer, result, error) {
	rdr, err := e.db.Query(ctx, query)
	if err != nil {
		return answers.Answer{}, result{}, err
	}
	defer rdr.Release()
	var res result
	a := answers.Answer{}
	for rdr.Next() {
		rec := rdr.Record()
		res.Rows += rec.NumRows()
		res.OutBytes += recordBytesV17(rec)
		a.AppendRecord(rec)
	}
	if a.Columns == nil {
		for _, f := range rdr.Schema().Fields() {
			a.Columns = append(a.Columns, f.Name)
		}
	}
	return a, res, rdr.Err()
}

func (e *gsqlEngine) Close() error { return e.db.Close() }

// Launches reads the device's kernel launch counter.
func (e gsqlGPU) Launches() (uint64, error) {
	st := e.db.Stats()
	if st.GPU == nil {
		return 0, fmt.Errorf("%s: no GPU statistics (device %s)", e.name, st.Device)
	}
	return st.GPU.Launches, nil
}

// Settle waits for the kernels compiling in the background.
func (e gsqlGPU) Settle(ctx context.Context) error {
	if err := e.db.WaitCompiles(ctx); err != nil {
		return fmt.Errorf("%s: %w", e.name, err)
	}
	return nil
}

// Explain runs EXPLAIN ANALYZE and returns the plan, one operator a line.
// The CPU engine has it too: the random suite shows the plan of every
// query gsql runs slower than DuckDB.
func (e *gsqlEngine) Explain(ctx context.Context, query string) (string, error) {
	rdr, err := e.db.Query(ctx, "EXPLAIN ANALYZE "+query)
	if err != nil {
		return "", fmt.Errorf("explain analyze: %w", err)
	}
	defer rdr.Release()
	var plan strings.Builder
	for rdr.Next() {
		rec := rdr.Record()
		for j := 0; j < int(rec.NumCols()); j++ {
			for i := 0; i < int(rec.NumRows()); i++ {
				plan.WriteString(rec.Column(j).ValueStr(i))
				plan.WriteByte('\n')
			}
		}
	}
	if err := rdr.Err(); err != nil {
		return "", fmt.Errorf("explain analyze: %w", err)
	}
	return plan.String(), nil
}

// countPlacement counts the plan lines tagged [gpu] and [cpu] (or
// [cpu: reason]).
func countPlacement(plan string) (gpuOps, cpuOps int) {
	for _, line := range strings.Split(plan, "\n") {
		switch {
		case strings.Contains(line, "[gpu]"):
			gpuOps++
		case strings.Contains(line, "[cpu]"), strings.Contains(line, "[cpu: "):
			cpuOps++
		}
	}
	return gpuOps, cpuOps
}
