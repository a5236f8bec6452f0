package gpuexec

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// gaggWords is the size of hash.cu's GAgg record in 8-byte words: kind,
// the argument's GCol (5), then the s0, s1, cnt and s2 state pointers.
const gaggWords = 10

// globalAggFast sends aggregates without GROUP BY through globalAggOn; the
// device tests turn it off to compare with the hash-table path.
var globalAggFast = true

// globalAggBlocks caps the blocks of gsql_agg_global: enough to fill the
// GPU a few times over, few enough that combining their partials is quick.
const globalAggBlocks = 4

// globalAggOn computes aggregates without GROUP BY over one batch (n > 0
// rows, one group). With a single group the hash-table path sends every
// row's update to one slot (atomics on one address) and reads its results
// back through several synchronisations; here blocks reduce in registers
// and shared memory, one small kernel combines their partials, and one
// download brings every aggregate's state: one synchronisation in all (two
// more for each MIN/MAX of VARCHAR, whose winning string is read).
// Context thread only.
func (d *Device) globalAggOn(ctx context.Context, in *DeviceBatch, aggs []GroupAgg) (*GroupPartial, error) {
	n := int64(in.Len)
	res := &GroupPartial{Aggs: make([]AggPartial, len(aggs)), Keys: &coldata.Batch{Len: 1}}
	sc := &hashScratch{d: d}
	defer sc.release()
	words := make([]uint64, 0, gaggWords*len(aggs)+len(aggs))
	for _, a := range aggs {
		var arg [5]uint64
		if a.Kind != GroupCountStar {
			arg = colDesc(in.Cols[a.Arg])
		}
		// The GAgg record; its state pointers are unused on this path.
		words = append(words, uint64(a.Kind))
		words = append(words, arg[:]...)
		words = append(words, 0, 0, 0, 0)
	}
	for _, a := range aggs {
		v, _ := stateInit(a.Kind)
		words = append(words, v)
	}
	desc, err := sc.uploadNoWait(words)
	if err != nil {
		return nil, err
	}
	descs, inits := desc.ptr, desc.ptr+DevicePtr(8*gaggWords*len(aggs))
	cfg := Grid1D(n, 256)
	if max := int(d.info.SMs) * globalAggBlocks; max > 0 && cfg.Grid.X > max {
		cfg.Grid.X = max
	}
	nparts := int64(cfg.Grid.X)
	const partWords = 4 // GPart
	parts, err := sc.alloc(uint64(8 * partWords * nparts * int64(len(aggs))))
	if err != nil {
		return nil, err
	}
	out, err := sc.alloc(uint64(8 * partWords * len(aggs)))
	if err != nil {
		return nil, err
	}
	if err := d.launchGrid("gsql_agg_global", cfg, descs, inits, int64(len(aggs)), n, parts.ptr); err != nil {
		return nil, err
	}
	if err := d.launchGrid("gsql_agg_global_final", LaunchConfig{Grid: Dim3{X: len(aggs)}, Block: Dim3{X: 256}}, descs, inits, int64(len(aggs)), parts.ptr, nparts, out.ptr); err != nil {
		return nil, err
	}
	res.Launches += 2
	raw := make([]byte, 8*partWords*len(aggs))
	if err := d.CopyToHost(raw, out.ptr, nil); err != nil {
		return nil, err
	}
	word := func(a, i int) uint64 { return binary.LittleEndian.Uint64(raw[8*(partWords*a+i):]) }
	for a, spec := range aggs {
		p := &res.Aggs[a]
		p.Count = []int64{int64(word(a, 2))}
		switch spec.Kind {
		case GroupCountStar, GroupCount:
		case GroupSumFloat, GroupMinFloat, GroupMaxFloat:
			p.Float = []float64{math.Float64frombits(word(a, 0))}
		case GroupVariance:
			// Merged pairwise on the device: the mean and M2 themselves.
			p.Mean = []float64{math.Float64frombits(word(a, 0))}
			p.M2 = []float64{math.Float64frombits(word(a, 1))}
			if p.Count[0] == 0 {
				p.Mean[0], p.M2[0] = 0, 0
			}
		case GroupMinString, GroupMaxString:
			row := int64(word(a, 0))
			if row < 0 { // no value: any row stands in (Count is 0)
				row = 0
			}
			str, err := d.stringAt(in.Cols[spec.Arg], row)
			if err != nil {
				return nil, err
			}
			b := coldata.NewBuilder(coldata.String, 1)
			b.AppendString(string(str))
			p.Str = b.Finish()
		case GroupMinDec, GroupMaxDec:
			row := max(int64(word(a, 0)), 0) // no value: row 0 stands in
			arg := in.Cols[spec.Arg]
			var w [16]byte
			if err := d.CopyToHost(w[:], arg.Data+DevicePtr(16*row), nil); err != nil {
				return nil, err
			}
			b := coldata.NewBuilder(arg.Type, 1)
			b.AppendDec(decimal.Int128{Lo: binary.LittleEndian.Uint64(w[:]), Hi: int64(binary.LittleEndian.Uint64(w[8:]))})
			p.Dec = b.Finish()
		default:
			p.Lo = []uint64{word(a, 0)}
			if spec.Kind == GroupSumInt || spec.Kind == GroupSumDec {
				p.Hi = []int64{int64(word(a, 1))}
			}
			if spec.Kind == GroupSumDec {
				p.Top = []int64{int64(word(a, 3))}
			}
		}
	}
	return res, nil
}

// stringAt downloads row's value of a VARCHAR device column: its two
// offsets, then its bytes. Context thread only.
func (d *Device) stringAt(v DeviceVec, row int64) ([]byte, error) {
	var offs [8]byte
	if err := d.CopyToHost(offs[:], v.Offsets+DevicePtr(4*row), nil); err != nil {
		return nil, err
	}
	lo, hi := int32(binary.LittleEndian.Uint32(offs[:])), int32(binary.LittleEndian.Uint32(offs[4:]))
	if hi < lo {
		return nil, invalidf("string offsets %d..%d of row %d", lo, hi, row)
	}
	out := make([]byte, hi-lo)
	if err := d.CopyToHost(out, v.Data+DevicePtr(lo), nil); err != nil {
		return nil, err
	}
	return out, nil
}

// uploadNoWait is upload without waiting for the copy: a copy from
// pageable memory returns once the driver has staged the bytes, so the
// source may go at once, and the stream orders it before the kernels that
// read it.
func (s *hashScratch) uploadNoWait(words []uint64) (*Buffer, error) {
	b, err := s.alloc(uint64(8 * len(words)))
	if err != nil || len(words) == 0 {
		return b, err
	}
	raw := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(raw[8*i:], w)
	}
	if err := s.d.drv.h2d(b.ptr, raw, s.d.stream.h); err != nil {
		return nil, err
	}
	s.d.toDevice.Add(uint64(len(raw)))
	return b, nil
}
