package spill

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

var testTypes = []coldata.Type{coldata.Bool, coldata.Int64, coldata.Float64, coldata.String, coldata.Date, coldata.Timestamp, coldata.DecimalOf(20, 3)}

// testBatch is n rows of every type, with NULLs every seventh row and
// values that differ per row (seed shifts them).
func testBatch(n, seed int) *coldata.Batch {
	cols := make([]*coldata.Vec, len(testTypes))
	for c, t := range testTypes {
		b := coldata.NewBuilder(t, n)
		for r := 0; r < n; r++ {
			v := r*31 + seed
			if (r+c)%7 == 0 {
				b.AppendNull()
				continue
			}
			switch t.Kind() {
			case coldata.Bool:
				b.AppendBool(v%3 == 0)
			case coldata.Int64, coldata.Date, coldata.Timestamp:
				b.AppendInt(int64(v) - 500)
			case coldata.Float64:
				b.AppendFloat(float64(v) / 8)
			case coldata.String:
				b.AppendString(fmt.Sprintf("s%d-%x", v, v*v))
			case coldata.Decimal:
				b.AppendDec(decimal.FromInt64(int64(v) * 12345))
			}
		}
		cols[c] = b.Finish()
	}
	return coldata.NewBatch(cols, n)
}

func rowsOf(b *coldata.Batch) [][]any {
	out := make([][]any, b.Len)
	for r := range out {
		for _, c := range b.Cols {
			out[r] = append(out[r], c.Value(r))
		}
	}
	return out
}

// TestPartitionsRoundTrip writes rows of every type into partitions and
// reads each partition back: every row comes back once, in its
// partition, in the order added.
func TestPartitionsRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ parts, flush, batches, rows int }{
		{1, 1, 1, 5},
		{4, 10, 3, 100},
		{16, 1000, 5, 333},
		{3, 7, 2, 0},
	} {
		t.Run(fmt.Sprintf("%d parts, flush %d", tc.parts, tc.flush), func(t *testing.T) {
			d, err := NewDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer d.Remove()
			p, err := d.NewPartitions("t", tc.parts, testTypes, tc.flush)
			if err != nil {
				t.Fatal(err)
			}
			want := make([][][]any, tc.parts)
			for bi := 0; bi < tc.batches; bi++ {
				b := testBatch(tc.rows, bi*1000)
				part := make([]int, b.Len)
				rows := rowsOf(b)
				for r := range part {
					part[r] = (r*7 + bi) % tc.parts
					want[part[r]] = append(want[part[r]], rows[r])
				}
				if err := p.Add(b, part); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Finish(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tc.parts; i++ {
				if got := p.Rows(i); got != int64(len(want[i])) {
					t.Errorf("partition %d: Rows %d, want %d", i, got, len(want[i]))
				}
				r := p.Reader(i)
				if err := r.Open(ctx); err != nil {
					t.Fatal(err)
				}
				var got [][]any
				for {
					b, err := r.Next(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if b == nil {
						break
					}
					for c, col := range b.Cols {
						if col.Type != testTypes[c] {
							t.Fatalf("partition %d column %d came back as %v, want %v", i, c, col.Type, testTypes[c])
						}
					}
					got = append(got, rowsOf(b)...)
				}
				r.Close()
				if !reflect.DeepEqual(got, want[i]) && !(len(got) == 0 && len(want[i]) == 0) {
					t.Fatalf("partition %d: %d rows back, want %d; first %v want %v", i, len(got), len(want[i]), first(got), first(want[i]))
				}
			}
			if tc.rows > 0 && d.BytesWritten() == 0 {
				t.Error("BytesWritten is 0 after writing rows")
			}
		})
	}
}

func first(rows [][]any) []any {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

// TestDirRemove leaves nothing behind.
func TestDirRemove(t *testing.T) {
	parent := t.TempDir()
	d, err := NewDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := d.NewPartitions("x", 2, testTypes, 1)
	if err := p.Add(testBatch(10, 0), make([]int, 10)); err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// TestCleanStale removes the directory of a process that has exited and
// keeps this process's own.
func TestCleanStale(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot start a process: %v", err)
	}
	dead := cmd.Process.Pid
	stale := filepath.Join(parent, dirPrefix+strconv.Itoa(dead)+"-1")
	if err := os.MkdirAll(filepath.Join(stale, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	mine, err := NewDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, "not-a-spill-dir")
	os.Mkdir(other, 0o700)
	n, err := CleanStale(parent)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("removed %d directories, want 1", n)
	}
	for _, p := range []string{mine.Path(), other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v (must stay)", p, err)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale directory still there: %v", err)
	}
}

// TestAddChecksColumns refuses a batch of the wrong width.
func TestAddChecksColumns(t *testing.T) {
	d, err := NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	p, _ := d.NewPartitions("x", 2, testTypes[:2], 1)
	if err := p.Add(testBatch(3, 0), make([]int, 3)); err == nil {
		t.Fatal("a batch of 7 columns was added to partitions of 2")
	}
}

// TestPartitionsPeakBytes: the partitions count the rows they hold until
// a write and the files' write buffers.
func TestPartitionsPeakBytes(t *testing.T) {
	const parts, batches, rows = 4, 3, 2000
	var input int64 // bytes of every row added
	for bi := 0; bi < batches; bi++ {
		input += testBatch(rows, bi).HostBytes()
	}
	for _, tc := range []struct {
		name     string
		flush    int
		min, max int64
	}{
		// Every row waits for Finish: all of them, then one buffer.
		{"held to the end", 1 << 20, input, input + writeBuffer + input/10},
		// A write per Add: at most a batch's rows and every buffer.
		{"written at once", 1, writeBuffer, input/batches + parts*writeBuffer + input/10},
		// Hundreds of partitions share writeBuffers, at least
		// minWriteBuffer each.
		{"many partitions", 1, minWriteBuffer, input/batches + 512*minWriteBuffer + input/10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer d.Remove()
			n := parts
			if tc.name == "many partitions" {
				n = 512
			}
			p, err := d.NewPartitions("t", n, testTypes, tc.flush)
			if err != nil {
				t.Fatal(err)
			}
			for bi := 0; bi < batches; bi++ {
				b := testBatch(rows, bi)
				part := make([]int, b.Len)
				for r := range part {
					part[r] = r % n
				}
				if err := p.Add(b, part); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Finish(); err != nil {
				t.Fatal(err)
			}
			if got := p.PeakBytes(); got < tc.min || got > tc.max || p.held != 0 {
				t.Fatalf("peak %d bytes (want %d to %d), %d held after Finish", got, tc.min, tc.max, p.held)
			}
		})
	}
}
