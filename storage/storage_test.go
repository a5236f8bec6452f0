package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
)

var testCols = []catalog.Column{
	{Name: "id", Type: coldata.Int64, NotNull: true},
	{Name: "name", Type: coldata.String},
	{Name: "score", Type: coldata.Float64},
	{Name: "ok", Type: coldata.Bool},
}

// testRecord builds n rows; every third name and score is NULL.
func testRecord(n int, base int64) arrow.Record {
	ids, names, scores, oks := coldata.NewBuilder(coldata.Int64, n), coldata.NewBuilder(coldata.String, n), coldata.NewBuilder(coldata.Float64, n), coldata.NewBuilder(coldata.Bool, n)
	for i := 0; i < n; i++ {
		ids.AppendInt(base + int64(i))
		if i%3 == 2 {
			names.AppendNull()
			scores.AppendNull()
		} else {
			names.AppendString(strings.Repeat("é", i%5) + "n")
			scores.AppendFloat(float64(i) / 2)
		}
		oks.AppendBool(i%2 == 0)
	}
	b := &coldata.Batch{Cols: []*coldata.Vec{ids.Finish(), names.Finish(), scores.Finish(), oks.Finish()}, Len: n}
	return coldata.BatchToRecord(catalog.Schema(testCols), b)
}

// makeDB writes a database with one table of two segments and returns its
// directory and the segment file names.
func makeDB(t *testing.T) (string, []string) {
	t.Helper()
	return makeDBWith(t, CodecNone, CodecNone)
}

// makeDBWith is makeDB with the first segment written with codec first,
// the second with second.
func makeDBWith(t *testing.T, first, second Codec) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.SetCodec(first)
	// Two commits (records of one commit would be merged into one segment),
	// the second less than half the first (else the tail would be
	// compacted into one segment).
	tbl := &catalog.Table{Name: "t", Columns: testCols, Records: []arrow.Record{testRecord(100, 0)}, Rows: 100}
	if err := s.Commit(nil, tbl); err != nil {
		t.Fatal(err)
	}
	tbl2 := &catalog.Table{Name: "t", Columns: testCols, Records: []arrow.Record{tbl.Records[0], testRecord(40, 100)}, Rows: 140}
	s.SetCodec(second)
	if err := s.Commit(tbl, tbl2); err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, se := range s.man.Tables[0].Segments {
		segs = append(segs, se.File)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, segs
}

func TestRoundTrip(t *testing.T) {
	for _, codecs := range [][2]Codec{{CodecNone, CodecNone}, {CodecLZ4, CodecLZ4}, {CodecZstd, CodecZstd}, {CodecNone, CodecZstd}, {CodecLZ4, CodecNone}} {
		t.Run(string(codecs[0])+"-"+string(codecs[1]), func(t *testing.T) { testRoundTrip(t, codecs[0], codecs[1]) })
	}
}

// testRoundTrip writes two segments with the given codecs and reads them
// back.
func testRoundTrip(t *testing.T, first, second Codec) {
	dir, segs := makeDBWith(t, first, second)
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tables := s.Tables()
	if len(tables) != 1 || tables[0].Rows != 140 || len(tables[0].Records) != 2 {
		t.Fatalf("loaded %+v", tables)
	}
	for i, want := range []arrow.Record{testRecord(100, 0), testRecord(40, 100)} {
		got := tables[0].Records[i]
		if !got.Schema().Equal(want.Schema()) {
			t.Fatalf("segment %d schema %s, want %s", i, got.Schema(), want.Schema())
		}
		for c := 0; c < int(want.NumCols()); c++ {
			if g, w := got.Column(c).String(), want.Column(c).String(); g != w {
				t.Errorf("segment %d column %d: %s, want %s", i, c, g, w)
			}
		}
	}
	// Zone maps were stored with the segments.
	z := s.man.Tables[0].Segments[1].Zones
	if len(z) != 4 || *z[0].MinI != 100 || *z[0].MaxI != 139 || z[1].Nulls != 13 || *z[1].MinS != "n" || *z[2].MaxF != 19.5 {
		t.Errorf("zone maps %+v", z)
	}
}

// TestCommitMergesSmallRecords: consecutive new records are written as one
// segment, and the committed snapshot reads it from the memory map.
func TestCommitMergesSmallRecords(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []arrow.Record{testRecord(100, 0), testRecord(50, 100), testRecord(7, 150)}
	tbl := &catalog.Table{Name: "t", Columns: testCols, Records: append([]arrow.Record(nil), want...), Rows: 157}
	if err := s.Commit(nil, tbl); err != nil {
		t.Fatal(err)
	}
	if n := len(s.man.Tables[0].Segments); n != 1 {
		t.Fatalf("%d segments, want 1", n)
	}
	if len(tbl.Records) != 1 || tbl.Records[0].NumRows() != 157 || len(tbl.Zones) != 1 {
		t.Fatalf("snapshot after commit: %d records, %d zone maps", len(tbl.Records), len(tbl.Zones))
	}
	if _, ok := s.segs[tbl.Records[0]]; !ok {
		t.Error("the snapshot's record is not the stored segment's")
	}
	if z := tbl.Zones[0][0]; *z.MinI != 0 || *z.MaxI != 156 {
		t.Errorf("merged zone map %+v", z)
	}
	got := tbl.Records[0].Column(1)
	row := 0
	for _, w := range want {
		for i := 0; i < int(w.NumRows()); i++ {
			if got.ValueStr(row) != w.Column(1).ValueStr(i) {
				t.Fatalf("row %d: %s, want %s", row, got.ValueStr(row), w.Column(1).ValueStr(i))
			}
			row++
		}
	}
}

// TestTailCompaction: single-row commits leave O(log n) segments, each row
// written O(log n) times, and every row still there in order.
func TestTailCompaction(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var tbl *catalog.Table
	var written int64
	const n = 1000
	for i := 0; i < n; i++ {
		nt := &catalog.Table{Name: "t", Columns: testCols, Records: []arrow.Record{testRecord(1, int64(i))}}
		if tbl != nil {
			nt.Records = append(append([]arrow.Record(nil), tbl.Records...), nt.Records...)
		}
		before := map[string]bool{}
		for _, se := range s.man.Tables {
			for _, x := range se.Segments {
				before[x.File] = true
			}
		}
		if err := s.Commit(tbl, nt); err != nil {
			t.Fatal(err)
		}
		for _, se := range s.man.Tables[0].Segments {
			if !before[se.File] {
				written += se.Rows
			}
		}
		tbl = nt
	}
	segs := s.man.Tables[0].Segments
	if len(segs) > 11 {
		t.Errorf("%d segments after %d single-row commits, want at most 11", len(segs), n)
	}
	if written > 11*n {
		t.Errorf("%d rows written for %d rows inserted", written, n)
	}
	row := int64(0)
	for _, rec := range tbl.Records {
		ids := rec.Column(0)
		for i := 0; i < ids.Len(); i++ {
			if got := ids.ValueStr(i); got != strconv.FormatInt(row, 10) {
				t.Fatalf("row %d: id %s", row, got)
			}
			row++
		}
	}
	if row != n {
		t.Errorf("%d rows, want %d", row, n)
	}
	t.Logf("%d segments, %d rows written for %d inserted", len(segs), written, n)
}

// TestZeroCopy: a loaded record's buffers lie inside the segment's map.
func TestZeroCopy(t *testing.T) {
	dir, _ := makeDB(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := s.Tables()[0].Records[0]
	data := rec.Column(0).Data().Buffers()[1].Bytes()
	inside := false
	for _, m := range s.maps {
		lo, p := uintptr(unsafe.Pointer(&m[0])), uintptr(unsafe.Pointer(&data[0]))
		if p >= lo && p < lo+uintptr(len(m)) {
			inside = true
		}
	}
	if !inside {
		t.Error("the id column's data is not in a memory map")
	}
	b, err := coldata.RecordToBatch(rec)
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.Pointer(&b.Cols[0].Ints[0]) != unsafe.Pointer(&data[0]) {
		t.Error("the batch copied the mapped column")
	}
}

// TestDamagedFiles: each kind of damage gives an error naming the file, and
// nothing opens half: after the damage is undone, the database opens whole.
func TestDamagedFiles(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string, segs []string) (file string)
		want   string
	}{
		{"truncated segment", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, segs[1])
			fi, _ := os.Stat(p)
			must(t, os.Truncate(p, fi.Size()-100))
			return p
		}, "truncated"},
		{"missing segment", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, segs[0])
			must(t, os.Remove(p))
			return p
		}, "no such file"},
		{"garbled segment footer", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, segs[1])
			garble(t, p, -10) // the footer length
			return p
		}, "footer length"},
		{"garbled segment magic", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, segs[0])
			garble(t, p, 0)
			return p
		}, "magic"},
		{"garbled manifest", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, "MANIFEST")
			garble(t, p, 30)
			return p
		}, "checksum mismatch"},
		{"truncated manifest", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, "MANIFEST")
			must(t, os.Truncate(p, 40))
			return p
		}, "no checksum line"},
		{"unknown format version", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, "MANIFEST")
			b, err := os.ReadFile(p)
			must(t, err)
			m, err := decodeManifest(b)
			must(t, err)
			m.Version = 99
			b, err = encodeManifest(&m)
			must(t, err)
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, "unsupported format version 99"},
		{"not a gsql manifest", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, "MANIFEST")
			b, _ := encodeManifest(&manifest{Format: "other", Version: 1})
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, `format "other"`},
		{"unknown column type", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, "MANIFEST")
			b, _ := os.ReadFile(p)
			m, _ := decodeManifest(b)
			m.Tables[0].Columns[1].Type = "GEOMETRY"
			b, _ = encodeManifest(&m)
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, `unknown type "GEOMETRY"`},
		{"segment of another table", func(t *testing.T, dir string, segs []string) string {
			// The manifest's row count disagrees with the file's.
			p := filepath.Join(dir, "MANIFEST")
			b, _ := os.ReadFile(p)
			m, _ := decodeManifest(b)
			m.Tables[0].Segments[0].Rows = 7
			b, _ = encodeManifest(&m)
			must(t, os.WriteFile(p, b, 0o644))
			return filepath.Join(dir, segs[0])
		}, "manifest says 7"},
		{"segment name outside the directory", func(t *testing.T, dir string, segs []string) string {
			p := filepath.Join(dir, "MANIFEST")
			b, _ := os.ReadFile(p)
			m, _ := decodeManifest(b)
			m.Tables[0].Segments[0].File = "../seg-1.arrow"
			b, _ = encodeManifest(&m)
			must(t, os.WriteFile(p, b, 0o644))
			return p
		}, "bad segment name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, segs := makeDB(t)
			backup := t.TempDir()
			copyDir(t, dir, backup)
			file := tc.damage(t, dir, segs)
			s, err := Open(dir)
			if err == nil {
				s.Close()
				t.Fatal("damaged database opened")
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != file {
				t.Errorf("error %v does not name %s", err, file)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), file) {
				t.Errorf("error %q: want %q and the file name", err, tc.want)
			}
			// The failed open released its lock and removed nothing: with
			// the damage undone the database opens whole.
			copyDir(t, backup, dir)
			s, err = Open(dir)
			if err != nil {
				t.Fatalf("repaired database: %v", err)
			}
			defer s.Close()
			if n := s.Tables()[0].Rows; n != 140 {
				t.Errorf("repaired database has %d rows", n)
			}
		})
	}
}

// TestLeftoversRemoved: an interrupted commit's files are removed on open.
func TestLeftoversRemoved(t *testing.T) {
	dir, segs := makeDB(t)
	orphan := filepath.Join(dir, "seg-000000000099.arrow")
	must(t, os.WriteFile(orphan, []byte("half a segment"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "MANIFEST.tmp"), []byte("half a manifest"), 0o644))
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range []string{orphan, filepath.Join(dir, "MANIFEST.tmp")} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived the open", f)
		}
	}
	for _, f := range segs {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("committed segment removed: %v", err)
		}
	}
}

// TestCommitReplacesSegments: a commit keeps segments whose records the
// new snapshot still holds, writes the new ones, and removes the rest.
func TestCommitReplacesSegments(t *testing.T) {
	dir, segs := makeDB(t)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := s.Tables()[0]
	nt := &catalog.Table{Name: "t", Columns: testCols, Records: []arrow.Record{old.Records[0], testRecord(10, 500)}, Rows: 110}
	if err := s.Commit(old, nt); err != nil {
		t.Fatal(err)
	}
	got := s.man.Tables[0].Segments
	if len(got) != 2 || got[0].File != segs[0] || got[1].File == segs[1] {
		t.Errorf("segments after the commit: %+v (before: %v)", got, segs)
	}
	if _, err := os.Stat(filepath.Join(dir, segs[1])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("replaced segment %s not removed", segs[1])
	}
	// The replaced record is still readable: its map outlives the unlink.
	if n := old.Records[1].Column(0).Len(); n != 40 {
		t.Errorf("old snapshot's record has %d rows", n)
	}
	if err := s.Commit(nt, nil); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if isSegmentName(e.Name()) {
			t.Errorf("segment %s left after DROP", e.Name())
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// garble flips bytes at off (negative: from the end).
func garble(t *testing.T, path string, off int) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	if off < 0 {
		off += len(b)
	}
	for i := off; i < off+4 && i < len(b); i++ {
		b[i] ^= 0x5a
	}
	must(t, os.WriteFile(path, b, 0o644))
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	ents, err := os.ReadDir(to)
	must(t, err)
	for _, e := range ents {
		if e.Name() != "LOCK" {
			must(t, os.Remove(filepath.Join(to, e.Name())))
		}
	}
	ents, err = os.ReadDir(from)
	must(t, err)
	for _, e := range ents {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(to, e.Name()), b, 0o644))
	}
}

// TestDecodeNeverPanics flips each byte of a segment in turn: decoding
// gives a record or an error, never a panic.
func TestDecodeNeverPanics(t *testing.T) {
	dir, segs := makeDB(t)
	orig, err := os.ReadFile(filepath.Join(dir, segs[1]))
	must(t, err)
	schema := catalog.Schema(testCols)
	failed := 0
	for i := range orig {
		for _, flip := range []byte{0xff, 0x80} {
			b := append([]byte(nil), orig...)
			b[i] ^= flip
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("byte %d ^ %#x: panic %v", i, flip, r)
					}
				}()
				if rec, err := decodeSegment(b, schema, 40); err != nil {
					failed++
				} else {
					rec.Release()
				}
			}()
		}
	}
	for _, n := range []int{0, 9, 10, 100, len(orig) - 1} {
		if _, err := decodeSegment(orig[:n], schema, 40); err == nil {
			t.Errorf("segment cut to %d bytes decoded", n)
		}
	}
	t.Logf("%d of %d damaged copies rejected", failed, 2*len(orig))
}

// TestVerify: damage inside a segment's data passes Open (which reads no
// data) but Verify finds it and names the file.
func TestVerify(t *testing.T) {
	dir, segs := makeDB(t)
	s, err := Open(dir)
	must(t, err)
	n, b, err := s.Verify(context.Background())
	if err != nil || n != 2 || b == 0 {
		t.Fatalf("Verify of a sound database: %d segments, %d bytes, %v", n, b, err)
	}
	must(t, s.Close())
	p := filepath.Join(dir, segs[0])
	fi, err := os.Stat(p)
	must(t, err)
	garble(t, p, int(fi.Size()/2))
	s, err = Open(dir)
	if err != nil {
		t.Skipf("the garbled byte hit the metadata (%v)", err)
	}
	defer s.Close()
	_, _, err = s.Verify(context.Background())
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.File != p || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("Verify of a garbled segment: %v", err)
	}
}

// TestCompressedSegments: compressed segments are smaller than plain ones
// of the same rows, a damaged frame is an error naming the segment (never
// a panic or wrong rows at Open), and an unknown codec name is refused.
func TestCompressedSegments(t *testing.T) {
	plainDir, plainSegs := makeDBWith(t, CodecNone, CodecNone)
	for _, c := range []Codec{CodecLZ4, CodecZstd} {
		dir, segs := makeDBWith(t, c, c)
		plain, _ := os.Stat(filepath.Join(plainDir, plainSegs[0]))
		packed, _ := os.Stat(filepath.Join(dir, segs[0]))
		if packed.Size() >= plain.Size() {
			t.Errorf("%s segment of %d bytes, plain %d", c, packed.Size(), plain.Size())
		}
		orig, err := os.ReadFile(filepath.Join(dir, segs[0]))
		must(t, err)
		schema := catalog.Schema(testCols)
		rejected := 0
		for i := range orig {
			b := append([]byte(nil), orig...)
			b[i] ^= 0x55
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s byte %d: panic %v", c, i, r)
					}
				}()
				if rec, err := decodeSegment(b, schema, 100); err != nil {
					rejected++
				} else {
					rec.Release()
				}
			}()
		}
		if rejected == 0 {
			t.Errorf("%s: no damaged copy rejected", c)
		}
	}
	for _, name := range []string{"", "none", "lz4", "zstd"} {
		if _, err := ParseCodec(name); err != nil {
			t.Errorf("ParseCodec(%q): %v", name, err)
		}
	}
	if _, err := ParseCodec("gzip"); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("ParseCodec(gzip): %v", err)
	}
}

// TestDamagedCompressedSegments flips and truncates bytes of compressed
// segments of every codec: Open fails, or each column reads back its
// rows exactly or fails with a CorruptError naming the table and the
// segment file; never a panic or wrong rows. (A plain segment's data is
// read from the map without a pass over it: damage there is Verify's to
// find.)
func TestDamagedCompressedSegments(t *testing.T) {
	want := testRecord(100, 0)
	for _, c := range []Codec{CodecLZ4, CodecZstd} {
		dir, segs := makeDBWith(t, c, c)
		path := filepath.Join(dir, segs[0])
		orig, err := os.ReadFile(path)
		must(t, err)
		check := func(t *testing.T, what string) (rejected bool) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic %v", what, r)
				}
			}()
			s, err := OpenReadOnly(dir)
			if err != nil {
				var ce *CorruptError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), segs[0]) || !strings.Contains(err.Error(), "table t") {
					t.Fatalf("%s: Open: %v", what, err)
				}
				return true
			}
			defer s.Close()
			rec := s.Tables()[0].Records[0]
			for col := 0; col < int(want.NumCols()); col++ {
				a, err := coldata.RecordColumn(rec, col)
				if err != nil {
					var ce *CorruptError
					if !errors.As(err, &ce) || ce.Table != "t" || !strings.Contains(err.Error(), segs[0]) {
						t.Fatalf("%s: column %d: %v", what, col, err)
					}
					rejected = true
					continue
				}
				if a.String() != want.Column(col).String() {
					t.Fatalf("%s: column %d read back wrong rows", what, col)
				}
			}
			return rejected
		}
		t.Run(string(c), func(t *testing.T) {
			rejected := 0
			for i := range orig {
				for _, flip := range []byte{0x01, 0x80, 0xff} {
					b := append([]byte(nil), orig...)
					b[i] ^= flip
					must(t, os.WriteFile(path, b, 0o644))
					if check(t, fmt.Sprintf("byte %d ^ %#x", i, flip)) {
						rejected++
					}
				}
			}
			for _, n := range []int{0, 8, len(orig) / 2, len(orig) - 1} {
				must(t, os.WriteFile(path, orig[:n], 0o644))
				if !check(t, fmt.Sprintf("cut to %d bytes", n)) {
					t.Errorf("segment cut to %d bytes read", n)
				}
			}
			must(t, os.WriteFile(path, orig, 0o644))
			if check(t, "intact") {
				t.Error("intact segment rejected")
			}
			t.Logf("%d of %d damaged copies rejected", rejected, 3*len(orig))
		})
	}
}

// TestLazyColumns: opening a compressed database decompresses nothing; a
// column read decompresses that column alone, once, even when read by
// many goroutines at once.
func TestLazyColumns(t *testing.T) {
	dir, _ := makeDBWith(t, CodecLZ4, CodecZstd)
	s, err := Open(dir)
	must(t, err)
	defer s.Close()
	for _, rec := range s.Tables()[0].Records {
		heap, mapped, ok := RecordMemory(rec)
		if !ok || heap != 0 || mapped == 0 {
			t.Fatalf("after Open: heap %d, mapped %d, lazy %v", heap, mapped, ok)
		}
		var wg sync.WaitGroup
		arrs := make([]arrow.Array, 8)
		for g := range arrs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := coldata.RecordColumn(rec, 1)
				if err != nil {
					t.Error(err)
				}
				arrs[g] = a
			}()
		}
		wg.Wait()
		for _, a := range arrs[1:] {
			if a != arrs[0] {
				t.Fatal("one column decompressed twice")
			}
		}
		heap, _, _ = RecordMemory(rec)
		if heap <= 0 || heap != coldata.ColumnBytes(rec, 1) {
			t.Errorf("after reading column 1: heap %d, the column is %d bytes", heap, coldata.ColumnBytes(rec, 1))
		}
	}
}

// TestDatetimePrecisionRoundTrip: a DATETIME(3) column keeps its declared
// precision through the schema metadata (the column type and the Arrow
// field the scan reads it from), beside a plain TIMESTAMP column, which a
// database written before DATETIME(n) existed holds.
func TestDatetimePrecisionRoundTrip(t *testing.T) {
	cols := []catalog.Column{{Name: "a", Type: coldata.TimestampOf(3)}, {Name: "b", Type: coldata.Timestamp}, {Name: "c", Type: coldata.TimestampOf(0)}}
	n := 3
	bs := []*coldata.Builder{coldata.NewBuilder(cols[0].Type, n), coldata.NewBuilder(cols[1].Type, n), coldata.NewBuilder(cols[2].Type, n)}
	vecs := make([]*coldata.Vec, len(bs))
	for i, b := range bs {
		for r := 0; r < n; r++ {
			b.AppendInt(int64(r) * 1_000_000)
		}
		vecs[i] = b.Finish()
	}
	rec := coldata.BatchToRecord(catalog.Schema(cols), &coldata.Batch{Cols: vecs, Len: n})
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(nil, &catalog.Table{Name: "t", Columns: cols, Records: []arrow.Record{rec}, Rows: int64(n)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tables := s.Tables()
	if len(tables) != 1 {
		t.Fatalf("loaded %d tables", len(tables))
	}
	for i, c := range tables[0].Columns {
		if c.Type != cols[i].Type {
			t.Errorf("column %s: type %s, want %s", c.Name, c.Type, cols[i].Type)
		}
		if got, err := coldata.FieldType(tables[0].Records[0].Schema().Field(i)); err != nil || got != cols[i].Type {
			t.Errorf("column %s: field type %s (%v), want %s", c.Name, got, err, cols[i].Type)
		}
	}
}

// segmentFiles lists dir's segment files.
func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range ents {
		if isSegmentName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestStage: staged segments become the table's at its commit, a
// concurrent commit of another table leaves them alone, Unstage removes
// them, and an Open after a crash (no commit) removes them too.
func TestStage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(dir)
	must(t, err)
	var staged []arrow.Record
	for i := 0; i < 3; i++ {
		rec, err := s.Stage("t", testRecord(70000, int64(i)*70000))
		must(t, err)
		staged = append(staged, rec)
	}
	if !s.Mapped(staged[0]) {
		t.Error("staged record is not read from its map")
	}
	// Another table's commit must not take (or remove) the staged files.
	must(t, s.Commit(nil, &catalog.Table{Name: "u", Columns: testCols, Records: []arrow.Record{testRecord(5, 0)}, Rows: 5}))
	if got := segmentFiles(t, dir); len(got) != 4 {
		t.Fatalf("segments %v, want 3 staged and u's", got)
	}
	nt := &catalog.Table{Name: "t", Columns: testCols, Records: staged, Rows: 210000}
	must(t, s.Commit(nil, nt))
	if len(s.man.Tables) != 2 || len(s.man.Tables[1].Segments) != 3 {
		t.Fatalf("manifest %+v", s.man.Tables)
	}
	for i, rec := range nt.Records {
		if rec != staged[i] {
			t.Errorf("record %d rewritten, want the staged segment kept", i)
		}
	}
	// Unstage of a failed load.
	rec, err := s.Stage("v", testRecord(10, 0))
	must(t, err)
	s.Unstage([]arrow.Record{rec})
	if got := segmentFiles(t, dir); len(got) != 4 {
		t.Fatalf("segments after Unstage %v", got)
	}
	// A crash before the commit: the next Open removes the staged file.
	_, err = s.Stage("w", testRecord(10, 0))
	must(t, err)
	must(t, s.Close())
	if got := segmentFiles(t, dir); len(got) != 5 {
		t.Fatalf("segments before reopening %v", got)
	}
	s, err = Open(dir)
	must(t, err)
	defer s.Close()
	if got := segmentFiles(t, dir); len(got) != 4 {
		t.Fatalf("segments after reopening %v", got)
	}
	tabs := s.Tables()
	if len(tabs) != 2 || tabs[1].Rows != 210000 || tabs[1].Records[2].Column(0).(*array.Int64).Value(69999) != 209999 {
		t.Fatalf("tables after reopening: %v", tabs)
	}
}
