package gsql

import (
	"context"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/gpuexec"
)

// Unique keys of large inserts, checked on the GPU (issue 38).
//
// An INSERT (any mode) of at least deviceKeyCheckMinRows rows into a
// table with PRIMARY KEY or UNIQUE keys, on a database whose statements
// run on the GPU, first asks the device whether any key collides: the new
// rows' key columns are uploaded and hashed once per key as a join's
// build side (which flags a key met twice among them), and the table's
// key columns (its resident copy, or chunks of it uploaded in turn)
// probe each hash table as a semi join. The answer is yes or no:
//
//   - no: the rows are appended at the snapshot's version, as the host
//     path appends rows that only add (a table changed meanwhile fails
//     the statement and nothing changes); nothing is built on the host;
//   - yes, or no answer (a key type the device does not hash, device
//     memory, any device error): the host path (constraints.go) decides,
//     row by row, and gives MySQL's error 1062 naming the first row and
//     key, INSERT IGNORE's warnings, REPLACE's deletions.
//
// The device compares keys as catalog.KeySet does (by physical type,
// -0.0 equal to 0.0, NULLs never colliding), so a "no" is the host's
// answer too. Smaller inserts, and every insert on the CPU backend, use
// the host path only: the upload and launches cost more than hashing a
// few rows.

// deviceKeyCheckMinRows is the fewest new rows whose keys the device
// checks (a variable for tests).
var deviceKeyCheckMinRows = 1 << 16

// keysCleanOnDevice reports whether the device found that adding rows to
// snapshot t breaks none of keys. false means "ask the host": a
// collision, or no answer. The error is the statement's context's.
func (db *DB) keysCleanOnDevice(ctx context.Context, t *catalog.Table, keys []catalog.Key, rows *coldata.Batch) (bool, error) {
	if rows.Len < deviceKeyCheckMinRows || len(keys) == 0 || db.Device() != "gpu" {
		return false, nil
	}
	rt, err := db.gpu()
	if err != nil {
		return false, nil
	}
	// The key columns, each once; keyPos[i] are key i's positions in them.
	var cols []int
	pos := map[int]int{}
	keyPos := make([][]int, len(keys))
	for i, k := range keys {
		for _, c := range k.Cols {
			p, ok := pos[c]
			if !ok {
				p = len(cols)
				pos[c] = p
				cols = append(cols, c)
			}
			keyPos[i] = append(keyPos[i], p)
		}
	}
	pick := &coldata.Batch{Cols: make([]*coldata.Vec, len(cols)), Len: rows.Len}
	for i, c := range cols {
		v := rows.Cols[c]
		if !gpuexec.KeyHashable(t.Columns[c].Type) || v.Type != t.Columns[c].Type {
			return false, nil
		}
		if v.Const {
			v = v.Materialize()
		}
		pick.Cols[i] = v
	}
	noAnswer := func() (bool, error) { return false, ctx.Err() }
	fresh, err := rt.Dev.Upload(ctx, pick)
	if err != nil {
		return noAnswer()
	}
	defer fresh.Release()
	tables := make([]*gpuexec.JoinTable, 0, len(keys))
	defer func() {
		for _, tab := range tables {
			tab.Release()
		}
	}()
	for i := range keys {
		tab, err := rt.Dev.BuildKeyCheck(ctx, fresh, keyPos[i])
		if err != nil {
			return noAnswer()
		}
		tables = append(tables, tab)
		if tab.Repeats {
			return false, nil // two new rows share a key
		}
	}
	if t.Rows > 0 {
		load := func() ([]*coldata.Batch, error) { return t.ColumnBatches(cols) }
		scan, err := rt.Cache.Scan(ctx, t.Name, t.Version, load, cols)
		if err != nil {
			return noAnswer()
		}
		defer scan.Close()
		for {
			b, err := scan.Next(ctx)
			if err != nil {
				return noAnswer()
			}
			if b == nil {
				break
			}
			for i, tab := range tables {
				hit, err := tab.Collides(ctx, b, keyPos[i])
				if hit || err != nil {
					b.Release()
					return noAnswer()
				}
			}
			b.Release()
		}
	}
	db.deviceKeyChecks.Add(1)
	return true, nil
}
