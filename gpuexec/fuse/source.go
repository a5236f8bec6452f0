package fuse

import (
	"fmt"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
)

// Block is the thread-block size of the generated kernels.
const Block = 256

// ScratchBytes is each thread's scratch for values that must be contiguous.
const ScratchBytes = 1024

// fields lays out the argument block: every slot is 8 bytes, so the C
// struct and the host's []uint64 agree without padding rules.
func (g *gen) fields(k *Kernel) []Field {
	f := []Field{{Kind: FieldRows, Name: "n"}, {Kind: FieldBlocks, Name: "blocks"}}
	if k.Gather {
		f = append(f, Field{Kind: FieldGather, Name: "gather"})
	}
	for i, t := range g.inputs {
		if !g.used[i] {
			continue
		}
		f = append(f, Field{Kind: FieldInValid, Col: i, Name: fmt.Sprintf("in%d_valid", i)})
		if t == coldata.String {
			f = append(f, Field{Kind: FieldInOffsets, Col: i, Name: fmt.Sprintf("in%d_off", i)},
				Field{Kind: FieldInChars, Col: i, Name: fmt.Sprintf("in%d_chars", i)})
		} else {
			f = append(f, Field{Kind: FieldInData, Col: i, Name: fmt.Sprintf("in%d_data", i)})
		}
	}
	for slot, kd := range g.litKinds {
		switch kd {
		case kInt:
			f = append(f, Field{Kind: FieldLitInt, Lit: slot, Name: fmt.Sprintf("lit%d", slot)})
		case kFloat:
			f = append(f, Field{Kind: FieldLitFloat, Lit: slot, Name: fmt.Sprintf("lit%d", slot)})
		case kSV:
			f = append(f, Field{Kind: FieldLitStr, Lit: slot, Name: fmt.Sprintf("lit%d", slot)},
				Field{Kind: FieldLitLen, Lit: slot, Name: fmt.Sprintf("lit%d_n", slot)})
		}
	}
	if g.needsCase {
		f = append(f, Field{Kind: FieldUpperFrom, Name: "up_from"}, Field{Kind: FieldUpperTo, Name: "up_to"}, Field{Kind: FieldUpperLen, Name: "up_n"},
			Field{Kind: FieldLowerFrom, Name: "lo_from"}, Field{Kind: FieldLowerTo, Name: "lo_to"}, Field{Kind: FieldLowerLen, Name: "lo_n"})
	}
	for j, t := range k.Outputs {
		f = append(f, Field{Kind: FieldOutValid, Col: j, Name: fmt.Sprintf("out%d_valid", j)})
		if t == coldata.String {
			f = append(f, Field{Kind: FieldOutOffsets, Col: j, Name: fmt.Sprintf("out%d_off", j)},
				Field{Kind: FieldOutChars, Col: j, Name: fmt.Sprintf("out%d_chars", j)})
		} else {
			f = append(f, Field{Kind: FieldOutData, Col: j, Name: fmt.Sprintf("out%d_data", j)})
		}
	}
	for _, j := range g.stored {
		f = append(f, Field{Kind: FieldRowSizes, Col: j, Name: fmt.Sprintf("rowsz%d", j)})
	}
	return append(f, Field{Kind: FieldBlockSums, Name: "block_sums"}, Field{Kind: FieldTotals, Name: "totals"}, Field{Kind: FieldErr, Name: "err"})
}

// cFieldType is the C declaration type of a slot.
func cFieldType(f Field, k *Kernel) string {
	switch f.Kind {
	case FieldRows, FieldBlocks, FieldLitInt, FieldLitLen, FieldUpperLen, FieldLowerLen:
		return "int64_t"
	case FieldLitFloat:
		return "double"
	case FieldInValid:
		return "const uint8_t*"
	case FieldInData:
		return "const void*"
	case FieldInOffsets:
		return "const int32_t*"
	case FieldInChars, FieldLitStr:
		return "const char*"
	case FieldUpperFrom, FieldUpperTo, FieldLowerFrom, FieldLowerTo:
		return "const int32_t*"
	case FieldOutValid:
		return "uint32_t*"
	case FieldOutData:
		return "void*"
	case FieldOutOffsets, FieldRowSizes:
		return "int32_t*"
	case FieldOutChars:
		return "char*"
	case FieldGather:
		return "const int64_t*"
	case FieldBlockSums, FieldTotals:
		return "int64_t*"
	case FieldErr:
		return "int32_t*"
	}
	return "int64_t"
}

// output describes how to size and write one output value.
type output struct {
	v *val
	t coldata.Type
}

// sizeExpr is the C expression of a string output's byte size.
func (o output) sizeExpr() string {
	switch o.v.kind {
	case kSV:
		return o.v.c + ".n"
	case kRope:
		return "rope_size(" + o.v.c + ")"
	case kGen:
		return "(" + o.v.size + ")"
	}
	return "0"
}

// writeStmt writes a string output to dst.
func (o output) writeStmt(dst string) string {
	switch o.v.kind {
	case kSV:
		return fmt.Sprintf("copy_bytes(%s, %s.p, %s.n);", dst, o.v.c, o.v.c)
	case kRope:
		return fmt.Sprintf("rope_write(%s, %s);", o.v.c, dst)
	case kGen:
		return o.v.write(dst)
	}
	return ""
}

// fixedStore stores a fixed-width output at row r.
func fixedStore(j int, o output, r string) string {
	switch o.t.Physical() {
	case coldata.Int64:
		return fmt.Sprintf("((int64_t*)a.out%d_data)[%s] = %s;", j, r, asInt(o.v))
	case coldata.Float64:
		return fmt.Sprintf("((double*)a.out%d_data)[%s] = %s;", j, r, asFloat(o.v))
	case coldata.Bool:
		return fmt.Sprintf("((uint8_t*)a.out%d_data)[%s] = %s ? 1 : 0;", j, r, o.v.c)
	case coldata.Decimal:
		if o.v.kind == kDec {
			return fmt.Sprintf("dec_store(a.out%d_data, %s, %s);", j, r, o.v.c)
		}
	}
	return ""
}

// source assembles the complete kernel source. With warp, the kernels take
// one row per warp (GSQL_WARP in rt/base.cuh): every lane evaluates the row, the
// string walks split its bytes over the lanes, and lane 0 alone stores the
// row's offsets, flags and fixed-width values.
func (g *gen) source(k *Kernel, body string, keep *val, outs []*val, warp bool) string {
	var b strings.Builder
	if warp {
		fmt.Fprintf(&b, "#define GSQL_WARP 1\n#define GSQL_WARPS %d\n", Block/32)
	}
	if g.opts.Scalar {
		b.WriteString("#define GSQL_SCALAR 1\n")
	}
	b.WriteString(runtimeSource)
	b.WriteString("\n")
	b.WriteString(g.decls.String())
	b.WriteString("\nstruct Args {\n")
	for _, f := range k.Fields {
		fmt.Fprintf(&b, "  %s %s;\n", cFieldType(f, k), f.Name)
	}
	b.WriteString("};\n\n")
	if g.needsCase {
		b.WriteString("GSQL_DEV CaseMap upper_map(const Args& a) { CaseMap m; m.from = a.up_from; m.to = a.up_to; m.n = (int32_t)a.up_n; return m; }\n")
		b.WriteString("GSQL_DEV CaseMap lower_map(const Args& a) { CaseMap m; m.from = a.lo_from; m.to = a.lo_to; m.n = (int32_t)a.lo_n; return m; }\n\n")
	}
	os := make([]output, len(outs))
	var strIdx []int // output index of each string output
	for j, v := range outs {
		os[j] = output{v: v, t: k.Outputs[j]}
		if k.Outputs[j] == coldata.String {
			strIdx = append(strIdx, j)
		}
	}
	nc := 1 + len(strIdx)
	keepC := "true"
	if keep != nil {
		keepC = fmt.Sprintf("(!%s && %s)", nullFlag(keep), keep.c)
	}
	scratch := ScratchBytes
	if !g.scratch {
		// No value needs copying: keep the per-thread array minimal (one
		// aligned chunk, as the 16-byte loads need).
		scratch = 16
	}
	off := "int32_t"
	if g.opts.Counters64 {
		off = "int64_t"
	}
	fmt.Fprintf(&b, "#define GSQL_NC %d\n#define GSQL_BLOCK %d\n#define GSQL_MINB %d\n#define GSQL_SCRATCH %d\ntypedef %s gsql_off_t;\n\n", nc, Block, max(g.opts.MinBlocks, 1), scratch, off)
	// A tile is the rows a block evaluates at once; slot is a thread's row
	// in it; lead marks the thread that counts and stores the row.
	if warp {
		b.WriteString("#define GSQL_TILE (GSQL_BLOCK / 32)\n#define GSQL_SLOT (threadIdx.x >> 5)\n#ifdef GSQL_HOST\n#define GSQL_LEAD true\n#else\n#define GSQL_LEAD ((threadIdx.x & 31) == 0)\n#endif\n")
		b.WriteString("#define GSQL_SCRATCH_DECL __shared__ GSQL_ALIGN16 char wbuf[GSQL_BLOCK / 32][GSQL_SCRATCH]; char* buf = wbuf[threadIdx.x >> 5];\n")
	} else {
		b.WriteString("#define GSQL_TILE GSQL_BLOCK\n#define GSQL_SLOT threadIdx.x\n#define GSQL_LEAD true\n")
		b.WriteString("#define GSQL_SCRATCH_DECL GSQL_ALIGN16 char buf[GSQL_SCRATCH];\n")
	}
	if k.Gather {
		b.WriteString("#define GSQL_ROW(i) (a.gather[i])\n")
	} else {
		b.WriteString("#define GSQL_ROW(i) (i)\n")
	}
	// Kernels take every slot as its own 8-byte parameter (launchers pass
	// scalars) and rebuild the Args block inside.
	var params, assign []string
	for _, f := range k.Fields {
		params = append(params, fmt.Sprintf("%s p_%s", cFieldType(f, k), f.Name))
		assign = append(assign, fmt.Sprintf("a.%s = p_%s;", f.Name, f.Name))
	}
	fmt.Fprintf(&b, "#define GSQL_PARAMS %s\n#define GSQL_ARGS Args a; %s\n\n", strings.Join(params, ", "), strings.Join(assign, " "))

	// The warp form sizes every row again: its size walk brings the row
	// into L1 for the write walk, which measured faster for UPPER over
	// 1-4 KB rows (BenchmarkWarpRows; docs/benchlog/2026-11-23-long-strings.md);
	// the thread form gains from stored sizes.
	stored := map[int]bool{}
	for _, j := range g.stored {
		stored[j] = !warp
	}
	// counts computes the per-row counters after the body ran. pass is
	// "sizes" (stores the sizes of g.stored outputs), "fill" (reads them
	// back) or "" (computes every size).
	counts := func(active, pass string) string {
		var s strings.Builder
		// Row sizes fit 32 bits (views and ropes are sized in int32_t,
		// generated strings are capped at 1 GiB).
		fmt.Fprintf(&s, "  gsql_off_t cnt[GSQL_NC];\n  cnt[0] = (%s && %s) ? 1 : 0;\n", active, keepC)
		for c, j := range strIdx {
			if stored[j] && pass == "fill" {
				fmt.Fprintf(&s, "  cnt[%d] = cnt[0] ? (gsql_off_t)a.rowsz%d[i] : 0;\n", c+1, j)
				continue
			}
			fmt.Fprintf(&s, "  cnt[%d] = (cnt[0] && !%s) ? (gsql_off_t)%s : 0;\n", c+1, nullFlag(os[j].v), os[j].sizeExpr())
			if stored[j] && pass == "sizes" {
				fmt.Fprintf(&s, "  if (GSQL_LEAD) a.rowsz%d[i] = (int32_t)cnt[%d];\n", j, c+1)
			}
		}
		return s.String()
	}
	// writes stores row outputs at output row r with byte offsets off[].
	// coopable reports whether a string output is views (a view or a rope)
	// that a whole warp can copy together.
	coopable := func(o output) bool { return o.v.kind == kSV || o.v.kind == kRope }
	// writes stores row outputs; with coop, the chars of view outputs are
	// left to coopWrites.
	writes := func(r string, coop bool) string {
		var s strings.Builder
		if warp {
			s.WriteString("    if (GSQL_LEAD) {\n")
		}
		for j, o := range os {
			fmt.Fprintf(&s, "    if (%s) out_null(a.out%d_valid, %s);\n", nullFlag(o.v), j, r)
			if o.t != coldata.String {
				fmt.Fprintf(&s, "    else %s\n", fixedStore(j, o, r))
			}
		}
		for c, j := range strIdx {
			fmt.Fprintf(&s, "    a.out%d_off[%s] = (int32_t)off[%d];\n", j, r, c+1)
			fmt.Fprintf(&s, "    if (last) a.out%d_off[%s + 1] = (int32_t)(off[%d] + cnt[%d]);\n", j, r, c+1, c+1)
		}
		if warp {
			s.WriteString("    }\n")
		}
		for c, j := range strIdx {
			o := os[j]
			cond := fmt.Sprintf("cnt[%d] > 0", c+1)
			if coop && coopable(o) && !warp {
				cond += fmt.Sprintf(" && !coop%d", c+1)
			}
			fmt.Fprintf(&s, "    if (%s) { char* dst = a.out%d_chars + off[%d]; %s }\n", cond, j, c+1, o.writeStmt("dst"))
		}
		return s.String()
	}
	// coopWrites copies long view outputs a warp at a time: the warp walks
	// its 32 rows and all lanes copy each row's pieces together, so long
	// strings neither serialise the warp nor write byte by byte from one
	// thread. Chosen per batch when the average output is >= 32 bytes.
	coopWrites := func() string {
		var s strings.Builder
		if warp {
			return "" // every write is already shared by the warp
		}
		for c, j := range strIdx {
			o := os[j]
			if !coopable(o) {
				continue
			}
			k, ptr, n, capN := "1", o.v.c+".p", o.v.c+".n", 1
			if o.v.kind == kRope {
				k, ptr, n, capN = o.v.c+".k", o.v.c+".part[q].p", o.v.c+".part[q].n", o.v.n
			}
			fmt.Fprintf(&s, `    if (coop%d) {
      for (int src = 0; src < 32; src++) {
        gsql_off_t len = __shfl_sync(0xffffffffu, cnt[%d], src);
        if (len == 0) continue;
        char* dst = a.out%d_chars + __shfl_sync(0xffffffffu, off[%d], src);
        int parts = __shfl_sync(0xffffffffu, (int)(%s), src);
        GSQL_UNROLL
        for (int q = 0; q < %d; q++) {
          if (q >= parts) break;
          const char* p = (const char*)__shfl_sync(0xffffffffu, (unsigned long long)(%s), src);
          int pn = __shfl_sync(0xffffffffu, (int)(%s), src);
          for (int z = lane; z < pn; z += 32) dst[z] = p[z];
          dst += pn;
        }
      }
    }
`, c+1, c+1, j, c+1, k, capN, ptr, n)
		}
		return s.String()
	}
	coopFlags := func() string {
		var s strings.Builder
		if warp {
			return ""
		}
		for c, j := range strIdx {
			// A view into a thread's scratch (a flattened rope or generated
			// string) is local memory that other lanes cannot read: no
			// warp copies in kernels that use scratch.
			if g.scratch && coopable(os[j]) {
				fmt.Fprintf(&s, "  const bool coop%d = false;\n", c+1)
			} else if coopable(os[j]) {
				fmt.Fprintf(&s, "  const bool coop%d = a.totals[%d] >= 32 * (a.totals[0] > 0 ? a.totals[0] : 1);\n", c+1, c+1)
			}
		}
		return s.String()
	}
	rowPrologue := "  sc.used = 0; sc.overflow = false; int32_t err = 0;\n"
	rowEpilogue := "  if (sc.overflow && err == 0) err = GSQL_ERR_SCRATCH;\n"

	// Host reference loop (compiled only by the host tests).
	b.WriteString("#ifdef GSQL_HOST\nstatic void host_run(const Args& a) {\n")
	fmt.Fprintf(&b, "  GSQL_ALIGN16 char buf[GSQL_SCRATCH]; Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;\n  int64_t off[GSQL_NC] = {0}; int64_t kept = 0;\n")
	b.WriteString("  for (int64_t i = 0; i < a.n; i++) {\n")
	b.WriteString(rowPrologue + body + rowEpilogue + counts("true", ""))
	b.WriteString("  if (err && *a.err == 0) *a.err = err;\n")
	b.WriteString("  if (cnt[0]) {\n    bool last = true;\n    int64_t r = kept;\n")
	b.WriteString(writes("r", false))
	b.WriteString("    kept++;\n    for (int c = 1; c < GSQL_NC; c++) off[c] += cnt[c];\n  }\n  }\n")
	b.WriteString("  a.totals[0] = kept;\n  for (int c = 1; c < GSQL_NC; c++) a.totals[c] = off[c];\n}\n#else\n\n")

	// Pass 1: evaluate every row for its counters; one sum per block.
	b.WriteString(`extern "C" __global__ void __launch_bounds__(GSQL_BLOCK, GSQL_MINB) gsql_sizes(GSQL_PARAMS) {
  GSQL_ARGS
  GSQL_SCRATCH_DECL Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;
  int64_t lo, hi;
  tp_block_rows<GSQL_TILE>(a.n, a.blocks, lo, hi);
  int64_t tot[GSQL_NC];
  for (int c = 0; c < GSQL_NC; c++) tot[c] = 0;
  for (int64_t base = lo; base < hi; base += GSQL_TILE) {
    int64_t i = base + GSQL_SLOT;
    if (i >= hi) break;
`)
	b.WriteString(rowPrologue + body + rowEpilogue + counts("true", "sizes"))
	b.WriteString(`  if (err) atomicCAS((int*)a.err, 0, err);
    if (GSQL_LEAD)
      for (int c = 0; c < GSQL_NC; c++) tot[c] += cnt[c];
  }
  tp_store_block_sums<GSQL_NC, GSQL_BLOCK>(tot, a.block_sums);
}

` + scanKernel + `// Pass 2: evaluate again, scan the tile's counters, write at final places.
extern "C" __global__ void __launch_bounds__(GSQL_BLOCK, GSQL_MINB) gsql_fill(GSQL_PARAMS) {
  GSQL_ARGS
  GSQL_SCRATCH_DECL Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;
  int64_t lo, hi;
  tp_block_rows<GSQL_TILE>(a.n, a.blocks, lo, hi);
  const int lane = threadIdx.x & 31;
` + coopFlags() + `  // Offsets fit gsql_off_t: the launcher refuses outputs over 2^31 - 1
  // bytes and batches over 2^31 - 1 rows.
  gsql_off_t carry[GSQL_NC];
  tp_load_carry(a.block_sums, carry);
  for (int64_t base = lo; base < hi; base += GSQL_TILE) {
    bool active = base + GSQL_SLOT < hi;
    int64_t i = active ? base + GSQL_SLOT : lo;
`)
	b.WriteString(rowPrologue + body + rowEpilogue + counts("active", "fill"))
	b.WriteString(`  if (active && err) atomicCAS((int*)a.err, 0, err);
    gsql_off_t mine[GSQL_NC], off[GSQL_NC];
    for (int c = 0; c < GSQL_NC; c++) mine[c] = GSQL_LEAD ? cnt[c] : 0;
    tp_tile_offsets<gsql_off_t, GSQL_NC, GSQL_BLOCK>(mine, off, carry);
#ifdef GSQL_WARP
    for (int c = 0; c < GSQL_NC; c++) off[c] = __shfl_sync(0xffffffffu, off[c], 0);
#endif
    if (cnt[0]) {
      bool last = off[0] == a.totals[0] - 1;
      int64_t r = off[0];
`)
	b.WriteString(writes("r", true))
	b.WriteString("    }\n")
	b.WriteString(coopWrites())
	b.WriteString(`  }
}

// One pass when no output is a string and no filter compacts: row i -> i.
extern "C" __global__ void __launch_bounds__(GSQL_BLOCK, GSQL_MINB) gsql_map(GSQL_PARAMS) {
  GSQL_ARGS
  GSQL_SCRATCH_DECL Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;
  for (int64_t i = (int64_t)blockIdx.x * GSQL_TILE + GSQL_SLOT; i < a.n; i += (int64_t)gridDim.x * GSQL_TILE) {
`)
	b.WriteString(rowPrologue + body + rowEpilogue + counts("true", ""))
	b.WriteString(`  if (err) atomicCAS((int*)a.err, 0, err);
    int64_t off[GSQL_NC] = {0};
    bool last = false;
    int64_t r = i;
`)
	b.WriteString(writes("r", false))
	b.WriteString("  }\n}\n#endif\n")
	return b.String()
}

// scanKernel scans the sizes pass's block sums (fused kernels and the
// interpreter alike).
const scanKernel = `// Scan of the block sums: one block, exclusive, in place; totals at the end.
extern "C" __global__ void __launch_bounds__(1024) gsql_scan(GSQL_PARAMS) {
  GSQL_ARGS
  tp_scan_block_sums<GSQL_NC>(a.blocks, a.block_sums, a.totals);
}

`
