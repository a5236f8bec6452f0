package fuse

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// InterpField is one 8-byte parameter of the interpreter's kernels, in
// order.
type InterpField uint8

// The interpreter kernels' parameters.
const (
	IFieldRows InterpField = iota
	IFieldBlocks
	IFieldProgram // the program blob (Program.Blob) in device memory
	// IFieldColumns is the per-batch table of device pointers: four per
	// input column (validity, data, offsets, chars), then four per output
	// from slot 4*InterpMaxInputs.
	IFieldColumns
	IFieldUpperFrom
	IFieldUpperTo
	IFieldUpperLen
	IFieldLowerFrom
	IFieldLowerTo
	IFieldLowerLen
	IFieldBlockSums
	IFieldTotals
	IFieldErr
	// IFieldGather, when not 0, holds int64 row indexes: output row i
	// reads input row gather[i] (the GPU side of ORDER BY and joins).
	IFieldGather
)

var interpFields = []struct {
	kind  InterpField
	ctype string
	name  string
}{
	{IFieldRows, "int64_t", "n"},
	{IFieldBlocks, "int64_t", "blocks"},
	{IFieldProgram, "const int32_t*", "prog"},
	{IFieldColumns, "const int64_t*", "cols"},
	{IFieldUpperFrom, "const int32_t*", "up_from"},
	{IFieldUpperTo, "const int32_t*", "up_to"},
	{IFieldUpperLen, "int64_t", "up_n"},
	{IFieldLowerFrom, "const int32_t*", "lo_from"},
	{IFieldLowerTo, "const int32_t*", "lo_to"},
	{IFieldLowerLen, "int64_t", "lo_n"},
	{IFieldBlockSums, "int64_t*", "block_sums"},
	{IFieldTotals, "int64_t*", "totals"},
	{IFieldErr, "int32_t*", "err"},
	{IFieldGather, "const int64_t*", "gather"},
}

// InterpFields lists the interpreter kernels' parameters in order.
func InterpFields() []InterpField {
	out := make([]InterpField, len(interpFields))
	for i, f := range interpFields {
		out[i] = f.kind
	}
	return out
}

// InterpCounters is the number of scan counters of the interpreter (rows
// kept, then bytes of each string output).
const InterpCounters = 1 + InterpMaxStrings

// interpSource assembles the interpreter's kernel set around the generated
// operations, as one translation unit.
func interpSource(ops, cases string) string {
	return interpPrelude(false) + ops + interpRow(cases) + interpKernels
}

// interpChunk is a contiguous range of operation codes compiled as a
// translation unit of its own.
type interpChunk struct {
	first, end int32 // codes [first, end)
	ops, cases strings.Builder
}

// interpParts assembles the interpreter as separately compiled parts: the
// kernels and the dispatch loop, then the operations in chunks, each
// operation exported (extern "C") for the dispatch loop to call. The
// device compiles the parts in parallel and links them
// (gpuexec.Device.CompileLinked): as one unit the compile was several
// times slower, nearly all of it ptxas on one core (TestColdStartReport;
// docs/benchlog/2026-11-25-cold-start.md).
func interpParts(chunks []*interpChunk) []string {
	var decls, cases strings.Builder
	for _, c := range chunks {
		for code := c.first; code < c.end; code++ {
			fmt.Fprintf(&decls, "GSQL_IOP void gsql_op%d(IReg* R, const int32_t* I, Scratch& sc, int32_t& err, const IArgs& a);\n", code)
		}
		cases.WriteString(c.cases.String())
	}
	parts := []string{interpPrelude(true) + decls.String() + interpRow(cases.String()) + interpKernels}
	for _, c := range chunks {
		parts = append(parts, interpPrelude(true)+c.ops.String())
	}
	return parts
}

// interpMinBlocks is the number of blocks per multiprocessor the
// interpreter's kernels must fit.
func interpMinBlocks() int {
	if n, err := strconv.Atoi(os.Getenv("GSQL_INTERP_MINB")); err == nil && n > 0 {
		return n
	}
	return 2
}

// InterpRegisterCap is the registers per thread that fit the
// interpreter's blocks per multiprocessor: the separately compiled parts
// are held to it (--maxrregcount), as __launch_bounds__ holds the kernels.
func InterpRegisterCap() int {
	return min(255, 65536/(Block*interpMinBlocks())/8*8)
}

// interpPrelude is what every part of the interpreter starts with: the
// runtime, the argument block and the register type. Split parts make
// every runtime helper static, so that each part keeps its own copies and
// the link sees no duplicate symbols.
func interpPrelude(split bool) string {
	var b strings.Builder
	// The runtime's helpers as functions of their own (see rt/): the
	// compile takes well under half as long (docs/benchlog/2026-11-25-cold-start.md).
	b.WriteString("#define GSQL_INTERP 1\n")
	if split {
		b.WriteString("#define GSQL_INTERP_SPLIT 1\n")
	}
	b.WriteString(runtimeSource)
	b.WriteString("\nstruct IArgs {\n")
	var params, assign []string
	for _, f := range interpFields {
		fmt.Fprintf(&b, "  %s %s;\n", f.ctype, f.name)
		params = append(params, fmt.Sprintf("%s p_%s", f.ctype, f.name))
		assign = append(assign, fmt.Sprintf("a.%s = p_%s;", f.name, f.name))
	}
	b.WriteString("};\n\n")
	// Blocks per multiprocessor the kernels must fit (registers capped to
	// match): uncapped they took 132-140 registers, one block per SM,
	// latency bound (ncu); the redact query ran fastest at 2 blocks, and
	// 8 spill (docs/benchlog/2026-11-25-cold-start.md).
	// GSQL_INTERP_MINB overrides it.
	fmt.Fprintf(&b, "#define GSQL_IMINB %d\n", interpMinBlocks())
	fmt.Fprintf(&b, "#define GSQL_NC %d\n#define GSQL_BLOCK %d\n#define GSQL_SCRATCH %d\n#define GSQL_NREG %d\n#define GSQL_IHDR %d\n#define GSQL_INS %d\n#define GSQL_IMAXIN %d\n#define GSQL_IMAXOUT %d\n",
		InterpCounters, Block, InterpScratch, interpRegs, hdrWords, insWords, InterpMaxInputs, InterpMaxOutputs)
	fmt.Fprintf(&b, "#define GSQL_PARAMS %s\n#define GSQL_ARGS IArgs a; %s\n\n", strings.Join(params, ", "), strings.Join(assign, " "))
	// Operations are functions of their own by default; GSQL_INTERP_OPS=inline
	// (an experiment's switch) inlines them into the dispatch loop of the
	// interpreter compiled as one unit (GSQL_INTERP_LINK=0).
	iop := "__device__ __noinline__"
	if os.Getenv("GSQL_INTERP_OPS") == "inline" {
		iop = "__device__ __forceinline__"
	}
	hostIOP := "static"
	if split {
		// Operations are called from the dispatch loop's part.
		iop, hostIOP = `extern "C" __device__ __noinline__`, `extern "C"`
	}
	fmt.Fprintf(&b, "#ifdef GSQL_HOST\n#define GSQL_IOP %s\n#else\n#define GSQL_IOP %s\n#endif\n", hostIOP, iop)
	b.WriteString(`#ifdef GSQL_HOST
#define GSQL_INOINLINE static
#else
#define GSQL_INOINLINE static __device__ __noinline__
#endif

// A register: a BIGINT, DOUBLE, BOOLEAN (in i) or string view, and a NULL flag.
struct IReg {
  union { int64_t i; double f; const char* p; };
  int32_t n;
  int32_t null;
};

GSQL_DEV CaseMap upper_map(const IArgs& a) { CaseMap m; m.from = a.up_from; m.to = a.up_to; m.n = (int32_t)a.up_n; return m; }
GSQL_DEV CaseMap lower_map(const IArgs& a) { CaseMap m; m.from = a.lo_from; m.to = a.lo_to; m.n = (int32_t)a.lo_n; return m; }

`)
	return b.String()
}

// interpRow is the dispatch loop: the fixed operations, then cases (the
// function operations').
func interpRow(cases string) string {
	var b strings.Builder
	b.WriteString(`// interp_row runs the program over row i.
GSQL_INOINLINE void interp_row(const IArgs& a, IReg* R, Scratch& sc, int64_t i, int32_t& err) {
  const int32_t* P = a.prog;
  const int32_t nins = P[0];
  const int32_t* I = P + GSQL_IHDR;
  const char* base = (const char*)P;
  const int64_t gi = a.gather ? a.gather[i] : i;
  for (int32_t pc = 0; pc < nins; pc++, I += GSQL_INS) {
    switch (I[0]) {
    case 0: {
      const int64_t* t = a.cols + 4 * I[4];
      IReg& r = R[I[1]];
      r.null = in_null((const uint8_t*)t[0], gi) ? 1 : 0;
      switch (I[2]) {
      case 0: r.i = ((const int64_t*)t[1])[gi]; break;
      case 1: r.f = ((const double*)t[1])[gi]; break;
      case 2: r.i = ((const uint8_t*)t[1])[gi] != 0 ? 1 : 0; break;
      case 4: r.p = (const char*)t[1] + 16 * gi; break; // DECIMAL: a view of the value
      default: { SV s = in_str((const int32_t*)t[2], (const char*)t[3], gi); r.p = s.p; r.n = s.n; }
      }
      break;
    }
    case 1: R[I[1]].i = *(const int64_t*)(base + I[2]); R[I[1]].null = 0; break;
    case 2: R[I[1]].f = *(const double*)(base + I[2]); R[I[1]].null = 0; break;
    case 3: R[I[1]].i = I[2]; R[I[1]].null = 0; break;
    case 4: {
      const int64_t* c = (const int64_t*)(base + I[2]);
      R[I[1]].p = base + c[0]; R[I[1]].n = (int32_t)c[1]; R[I[1]].null = 0;
      break;
    }
    case 5: R[I[1]].i = 0; R[I[1]].p = 0; R[I[1]].n = 0; R[I[1]].null = 1; break;
    case 6: {
      const IReg& s = R[I[4]];
      const IReg& p = R[I[5]];
      R[I[1]].null = (s.null || p.null) ? 1 : 0;
      R[I[1]].i = R[I[1]].null ? 0 : (like_match(sv_make(s.p, s.n), sv_make(p.p, p.n), I[2]) ? 1 : 0);
      break;
    }
`)
	b.WriteString(cases)
	b.WriteString(`    }
  }
}

`)
	return b.String()
}

// interpKernels are the interpreter's kernels around interp_row.
const interpKernels = `
// interp_counts: cnt[0] is 1 when the row is kept, cnt[1..] the bytes of
// each string output.
GSQL_DEV void interp_counts(const IArgs& a, const IReg* R, bool active, int64_t* cnt) {
  const int32_t* P = a.prog;
  const int32_t keep = P[2], nout = P[3];
  for (int c = 0; c < GSQL_NC; c++) cnt[c] = 0;
  cnt[0] = (active && (keep < 0 || (!R[keep].null && R[keep].i != 0))) ? 1 : 0;
  int s = 1;
  for (int j = 0; j < nout; j++) {
    if (P[4 + GSQL_IMAXOUT + j] != 3) continue;
    const IReg& v = R[P[4 + j]];
    cnt[s] = (cnt[0] && !v.null) ? v.n : 0;
    s++;
  }
}

// interp_write stores row outputs at output row r.
GSQL_DEV void interp_write(const IArgs& a, const IReg* R, int64_t r, bool last, const int64_t* off, const int64_t* cnt) {
  const int32_t* P = a.prog;
  const int32_t nout = P[3];
  int s = 1;
  for (int j = 0; j < nout; j++) {
    const IReg& v = R[P[4 + j]];
    const int32_t t = P[4 + GSQL_IMAXOUT + j];
    const int64_t* T = a.cols + 4 * (GSQL_IMAXIN + j);
    if (v.null) out_null((uint32_t*)T[0], r);
    else if (t == 0) ((int64_t*)T[1])[r] = v.i;
    else if (t == 1) ((double*)T[1])[r] = v.f;
    else if (t == 2) ((uint8_t*)T[1])[r] = v.i != 0 ? 1 : 0;
    else if (t == 4) copy_bytes((char*)T[1] + 16 * r, v.p, 16);
    if (t == 3) {
      int32_t* offs = (int32_t*)T[2];
      offs[r] = (int32_t)off[s];
      if (last) offs[r + 1] = (int32_t)(off[s] + cnt[s]);
      if (cnt[s] > 0) copy_bytes((char*)T[3] + off[s], v.p, (int32_t)cnt[s]);
      s++;
    }
  }
}

#ifdef GSQL_HOST
static void host_run(const IArgs& a) {
  GSQL_ALIGN16 char buf[GSQL_SCRATCH]; Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;
  IReg R[GSQL_NREG];
  int64_t off[GSQL_NC] = {0}; int64_t kept = 0;
  for (int64_t i = 0; i < a.n; i++) {
    sc.used = 0; sc.overflow = false; int32_t err = 0;
    interp_row(a, R, sc, i, err);
    if (sc.overflow && err == 0) err = GSQL_ERR_SCRATCH;
    if (err && *a.err == 0) *a.err = err;
    int64_t cnt[GSQL_NC];
    interp_counts(a, R, true, cnt);
    if (cnt[0]) {
      interp_write(a, R, kept, true, off, cnt);
      kept++;
      for (int c = 1; c < GSQL_NC; c++) off[c] += cnt[c];
    }
  }
  a.totals[0] = kept;
  for (int c = 1; c < GSQL_NC; c++) a.totals[c] = off[c];
}
#else

// Pass 1: run the program over every row for its counters; one sum per block.
extern "C" __global__ void __launch_bounds__(GSQL_BLOCK, GSQL_IMINB) gsql_sizes(GSQL_PARAMS) {
  GSQL_ARGS
  GSQL_ALIGN16 char buf[GSQL_SCRATCH]; Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;
  IReg R[GSQL_NREG];
  int64_t lo, hi;
  tp_block_rows<GSQL_BLOCK>(a.n, a.blocks, lo, hi);
  int64_t tot[GSQL_NC];
  for (int c = 0; c < GSQL_NC; c++) tot[c] = 0;
  for (int64_t base = lo; base < hi; base += GSQL_BLOCK) {
    int64_t i = base + threadIdx.x;
    if (i >= hi) break;
    sc.used = 0; sc.overflow = false; int32_t err = 0;
    interp_row(a, R, sc, i, err);
    if (sc.overflow && err == 0) err = GSQL_ERR_SCRATCH;
    if (err) atomicCAS((int*)a.err, 0, err);
    int64_t cnt[GSQL_NC];
    interp_counts(a, R, true, cnt);
    for (int c = 0; c < GSQL_NC; c++) tot[c] += cnt[c];
  }
  tp_store_block_sums<GSQL_NC, GSQL_BLOCK>(tot, a.block_sums);
}

` + scanKernel + `// Pass 2: run the program again, scan the tile's counters, write outputs.
extern "C" __global__ void __launch_bounds__(GSQL_BLOCK, GSQL_IMINB) gsql_fill(GSQL_PARAMS) {
  GSQL_ARGS
  GSQL_ALIGN16 char buf[GSQL_SCRATCH]; Scratch sc; sc.buf = buf; sc.cap = GSQL_SCRATCH;
  IReg R[GSQL_NREG];
  int64_t lo, hi;
  tp_block_rows<GSQL_BLOCK>(a.n, a.blocks, lo, hi);
  int64_t carry[GSQL_NC];
  tp_load_carry(a.block_sums, carry);
  for (int64_t base = lo; base < hi; base += GSQL_BLOCK) {
    bool active = base + threadIdx.x < hi;
    int64_t i = active ? base + threadIdx.x : lo;
    sc.used = 0; sc.overflow = false; int32_t err = 0;
    interp_row(a, R, sc, i, err);
    if (sc.overflow && err == 0) err = GSQL_ERR_SCRATCH;
    if (active && err) atomicCAS((int*)a.err, 0, err);
    int64_t cnt[GSQL_NC], off[GSQL_NC];
    interp_counts(a, R, active, cnt);
    tp_tile_offsets<int64_t, GSQL_NC, GSQL_BLOCK>(cnt, off, carry);
    if (cnt[0]) interp_write(a, R, off[0], off[0] == a.totals[0] - 1, off, cnt);
  }
}
#endif
`
