package execbuild

import (
	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/planner"
)

// scanBatches returns the batches of a scan's table, without the records
// whose zone maps exclude the filter above the scan and, when an index
// covers a column the filter reads, without the index's chunks
// (catalog.ZoneChunkRows rows, one scan batch) that its zone maps exclude.
func (b *Built) scanBatches(x *planner.Scan) ([]*coldata.Batch, error) {
	t := x.Table
	pred := b.prune[x]
	if len(x.Cols) == 0 && pred == nil {
		// No column read (COUNT(*), constants per row): the records' row
		// counts, nothing converted (a nil column list to ColumnBatches
		// means every column).
		out := make([]*coldata.Batch, len(t.Records))
		for i, r := range t.Records {
			out[i] = &coldata.Batch{Len: int(r.NumRows())}
		}
		return out, nil
	}
	ix := indexFor(x, pred)
	haveZones := len(t.Zones) == len(t.Records)
	if pred == nil || (!haveZones && ix == nil) {
		return t.ColumnBatches(x.Cols)
	}
	seg := &ScanSegments{Total: len(t.Records)}
	if ix != nil {
		seg.Index = ix.Name
	}
	b.Segments[x] = seg
	out := make([]*coldata.Batch, 0, len(t.Records))
	for i, r := range t.Records {
		nchunks := int((r.NumRows() + catalog.ZoneChunkRows - 1) / catalog.ZoneChunkRows)
		seg.Batches += nchunks
		if haveZones && zoneExcludes(pred, x.Cols, t.Zones[i], r.NumRows()) {
			seg.Skipped++
			seg.BatchesSkipped += nchunks
			continue
		}
		bt, err := t.RecordColumns(i, x.Cols)
		if err != nil {
			return nil, err
		}
		if ix == nil {
			out = append(out, bt)
			continue
		}
		for k, z := range ix.ChunkZones(t, i) {
			lo := k * catalog.ZoneChunkRows
			hi := min(lo+catalog.ZoneChunkRows, bt.Len)
			if zoneExcludes(pred, x.Cols, z, int64(hi-lo)) {
				seg.BatchesSkipped++
				continue
			}
			if lo == 0 && hi == bt.Len {
				out = append(out, bt)
				continue
			}
			cols := make([]*coldata.Vec, len(bt.Cols))
			for c, v := range bt.Cols {
				if v != nil { // a column the scan does not read
					cols[c] = coldata.Slice(v, lo, hi)
				}
			}
			out = append(out, &coldata.Batch{Cols: cols, Len: hi - lo})
		}
	}
	return out, nil
}

// indexFor picks the first index (by name) on a column that pred reads.
func indexFor(x *planner.Scan, pred expr.Expr) *catalog.Index {
	if pred == nil || len(x.Indexes) == 0 {
		return nil
	}
	read := map[int]bool{}
	for c := range expr.Columns(pred) {
		if c >= 0 && c < len(x.Cols) {
			read[x.Cols[c]] = true
		}
	}
	for _, ix := range x.Indexes {
		for _, c := range ix.Cols {
			if read[c] {
				return ix
			}
		}
	}
	return nil
}
