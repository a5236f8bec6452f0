package fuse_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/expr"
	"github.com/gsqlengine/gsql/gpuexec/fuse"
	"github.com/gsqlengine/gsql/gpuexec/fuse/fusetest"
)

// The host tests compile generated kernel sources with the machine's C++
// compiler (GSQL_HOST: the per-row code runs in a plain loop) and compare
// every output with the CPU kernels of package expr.

func cxx(t *testing.T) string {
	t.Helper()
	for _, c := range []string{"g++", "c++", "clang++"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	t.Skip("no C++ compiler: the generated-kernel host tests need one")
	return ""
}

var testTypes = fusetest.Types

// blob lays buffers out in one file, 8-byte aligned, remembering offsets.
type blob struct {
	buf bytes.Buffer
}

func (b *blob) add(data []byte) int {
	for b.buf.Len()%8 != 0 {
		b.buf.WriteByte(0)
	}
	off := b.buf.Len()
	b.buf.Write(data)
	return off
}

func vecBytes(v *coldata.Vec) (valid, data, offs, chars []byte) {
	if v.Nulls != nil {
		valid = v.Nulls
	}
	switch v.Type.Physical() {
	case coldata.Int64:
		data = make([]byte, 8*v.Len)
		for i, x := range v.Ints[:v.Len] {
			binary.LittleEndian.PutUint64(data[8*i:], uint64(x))
		}
	case coldata.Float64:
		data = make([]byte, 8*v.Len)
		for i, x := range v.Floats[:v.Len] {
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(x))
		}
	case coldata.Bool:
		data = append([]byte(nil), v.Bools[:v.Len]...)
	case coldata.Decimal:
		data = make([]byte, 16*v.Len)
		for i, x := range v.Decs[:v.Len] {
			binary.LittleEndian.PutUint64(data[16*i:], x.Lo)
			binary.LittleEndian.PutUint64(data[16*i+8:], uint64(x.Hi))
		}
	case coldata.String:
		offs = make([]byte, 4*(v.Len+1))
		for i, x := range v.Offsets[:v.Len+1] {
			binary.LittleEndian.PutUint32(offs[4*i:], uint32(x-v.Offsets[0]))
		}
		chars = append([]byte(nil), v.Bytes[v.Offsets[0]:v.Offsets[v.Len]]...)
	}
	return
}

// runHost compiles and runs kernel k over batch b and returns its output
// columns and the error code.
func runHost(t *testing.T, k *fuse.Kernel, b *coldata.Batch, gather ...int64) ([]*coldata.Vec, int32) {
	t.Helper()
	dir := t.TempDir()
	var bl blob
	var main strings.Builder
	main.WriteString("#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char** argv) {\n")
	main.WriteString("  FILE* f = fopen(argv[1], \"rb\"); fseek(f, 0, SEEK_END); long sz = ftell(f); fseek(f, 0, SEEK_SET);\n")
	main.WriteString("  char* blob = (char*)malloc(sz + 64); if (fread(blob, 1, sz, f) != (size_t)sz) return 2; fclose(f);\n")
	rowsOut := b.Len
	if k.Gather {
		rowsOut = len(gather)
	}
	fmt.Fprintf(&main, "  Args a; memset(&a, 0, sizeof a);\n  int64_t n = %d;\n", rowsOut)
	upF, upT, loF, loT := fuse.CaseTables()
	i32 := func(xs []int32) []byte {
		out := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
		}
		return out
	}
	charCap := 64 << 20
	for _, f := range k.Fields {
		switch f.Kind {
		case fuse.FieldRows:
			main.WriteString("  a.n = n;\n")
		case fuse.FieldBlocks:
			main.WriteString("  a.blocks = 1;\n")
		case fuse.FieldGather:
			idx := make([]byte, 8*len(gather))
			for i, g := range gather {
				binary.LittleEndian.PutUint64(idx[8*i:], uint64(g))
			}
			fmt.Fprintf(&main, "  a.%s = (const int64_t*)(blob + %d);\n", f.Name, bl.add(idx))
		case fuse.FieldInValid:
			valid, _, _, _ := vecBytes(b.Cols[f.Col])
			if valid != nil {
				fmt.Fprintf(&main, "  a.%s = (const uint8_t*)(blob + %d);\n", f.Name, bl.add(valid))
			}
		case fuse.FieldInData:
			_, data, _, _ := vecBytes(b.Cols[f.Col])
			fmt.Fprintf(&main, "  a.%s = blob + %d;\n", f.Name, bl.add(data))
		case fuse.FieldInOffsets:
			_, _, offs, _ := vecBytes(b.Cols[f.Col])
			fmt.Fprintf(&main, "  a.%s = (const int32_t*)(blob + %d);\n", f.Name, bl.add(offs))
		case fuse.FieldInChars:
			_, _, _, chars := vecBytes(b.Cols[f.Col])
			fmt.Fprintf(&main, "  a.%s = blob + %d;\n", f.Name, bl.add(chars))
		case fuse.FieldLitStr:
			s := k.Params[f.Lit].(string)
			fmt.Fprintf(&main, "  a.%s = blob + %d;\n", f.Name, bl.add([]byte(s)))
		case fuse.FieldLitLen:
			fmt.Fprintf(&main, "  a.%s = %d;\n", f.Name, len(k.Params[f.Lit].(string)))
		case fuse.FieldLitInt:
			fmt.Fprintf(&main, "  a.%s = %dLL;\n", f.Name, k.Params[f.Lit].(int64))
		case fuse.FieldLitFloat:
			fmt.Fprintf(&main, "  { uint64_t u = %dULL; memcpy(&a.%s, &u, 8); }\n", math.Float64bits(k.Params[f.Lit].(float64)), f.Name)
		case fuse.FieldUpperFrom:
			fmt.Fprintf(&main, "  a.%s = (const int32_t*)(blob + %d);\n", f.Name, bl.add(i32(upF)))
		case fuse.FieldUpperTo:
			fmt.Fprintf(&main, "  a.%s = (const int32_t*)(blob + %d);\n", f.Name, bl.add(i32(upT)))
		case fuse.FieldUpperLen:
			fmt.Fprintf(&main, "  a.%s = %d;\n", f.Name, len(upF))
		case fuse.FieldLowerFrom:
			fmt.Fprintf(&main, "  a.%s = (const int32_t*)(blob + %d);\n", f.Name, bl.add(i32(loF)))
		case fuse.FieldLowerTo:
			fmt.Fprintf(&main, "  a.%s = (const int32_t*)(blob + %d);\n", f.Name, bl.add(i32(loT)))
		case fuse.FieldLowerLen:
			fmt.Fprintf(&main, "  a.%s = %d;\n", f.Name, len(loF))
		case fuse.FieldOutValid:
			fmt.Fprintf(&main, "  a.%s = (uint32_t*)malloc(((n + 31) / 32 + 1) * 4); memset(a.%s, 0xff, ((n + 31) / 32 + 1) * 4);\n", f.Name, f.Name)
		case fuse.FieldOutData:
			fmt.Fprintf(&main, "  a.%s = calloc(n + 1, 16);\n", f.Name)
		case fuse.FieldOutOffsets:
			fmt.Fprintf(&main, "  a.%s = (int32_t*)calloc(n + 1, 4);\n", f.Name)
		case fuse.FieldOutChars:
			fmt.Fprintf(&main, "  a.%s = (char*)malloc(%d);\n", f.Name, charCap)
		case fuse.FieldBlockSums, fuse.FieldTotals:
			fmt.Fprintf(&main, "  a.%s = (int64_t*)calloc(%d, 8);\n", f.Name, 16+len(k.Outputs))
		case fuse.FieldErr:
			fmt.Fprintf(&main, "  a.%s = (int32_t*)calloc(1, 4);\n", f.Name)
		case fuse.FieldRowSizes:
			fmt.Fprintf(&main, "  a.%s = (int32_t*)calloc(n + 1, 4);\n", f.Name)
		}
	}
	main.WriteString("  host_run(a);\n  int64_t rows = a.totals[0];\n")
	main.WriteString("  fwrite(a.err, 4, 1, stdout); fwrite(&rows, 8, 1, stdout);\n")
	for j, ot := range k.Outputs {
		fmt.Fprintf(&main, "  fwrite(a.out%d_valid, 4, (rows + 31) / 32, stdout);\n", j)
		if ot == coldata.String {
			fmt.Fprintf(&main, "  fwrite(a.out%d_off, 4, rows + 1, stdout); fwrite(a.out%d_chars, 1, rows ? a.out%d_off[rows] : 0, stdout);\n", j, j, j)
		} else {
			w := 8
			switch {
			case ot == coldata.Bool:
				w = 1
			case ot.IsDecimal():
				w = 16
			}
			fmt.Fprintf(&main, "  fwrite(a.out%d_data, %d, rows, stdout);\n", j, w)
		}
	}
	main.WriteString("  return 0;\n}\n")
	src := filepath.Join(dir, "k.cpp")
	if err := os.WriteFile(src, []byte(k.Source+"\n"+main.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(data, bl.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "k")
	out, err := exec.Command(cxx(t), "-std=c++17", "-O1", "-DGSQL_HOST", "-w", "-o", bin, src).CombinedOutput()
	if err != nil {
		t.Fatalf("compiling generated source: %v\n%s", err, out)
	}
	res, err := exec.Command(bin, data).Output()
	if err != nil {
		t.Fatalf("running generated code: %v", err)
	}
	return decodeHostOutputs(res, k.Outputs)
}

func checkKernel(t *testing.T, b *coldata.Batch, filter expr.Expr, outputs []expr.Expr) *fuse.Kernel {
	t.Helper()
	return checkKernelWith(t, fuse.Options{}, b, filter, outputs)
}

func checkKernelWith(t *testing.T, opts fuse.Options, b *coldata.Batch, filter expr.Expr, outputs []expr.Expr) *fuse.Kernel {
	t.Helper()
	k, err := fuse.GenerateWith(testTypes, filter, outputs, opts)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	got, code := runHost(t, k, b)
	if code != 0 {
		t.Fatalf("generated code reported error %d", code)
	}
	want, err := fusetest.Reference(b, filter, outputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := fusetest.Compare(outputs, got, want); err != nil {
		t.Fatal(err)
	}
	return k
}
