package catalog_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
)

var cols = []catalog.Column{
	{Name: "id", Type: coldata.Int64, NotNull: true},
	{Name: "Name", Type: coldata.String},
}

// batch builds an (id, name) batch; a name of "" is NULL.
func batch(ids []int64, names []string) *coldata.Batch {
	ib := coldata.NewBuilder(coldata.Int64, len(ids))
	nb := coldata.NewBuilder(coldata.String, len(names))
	for i, id := range ids {
		ib.AppendInt(id)
		if names[i] == "" {
			nb.AppendNull()
		} else {
			nb.AppendString(names[i])
		}
	}
	return coldata.NewBatch([]*coldata.Vec{ib.Finish(), nb.Finish()}, len(ids))
}

func seq(lo, n int) ([]int64, []string) {
	ids := make([]int64, n)
	names := make([]string, n)
	for i := range ids {
		ids[i] = int64(lo + i)
		names[i] = fmt.Sprintf("n%d", lo+i)
	}
	return ids, names
}

// rows reads a table snapshot back as Go values, row by row.
func rows(t *testing.T, tbl *catalog.Table) [][]any {
	t.Helper()
	bs, err := tbl.Batches()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	total := 0
	for _, b := range bs {
		for r := 0; r < b.Len; r++ {
			row := make([]any, len(b.Cols))
			for c, v := range b.Cols {
				row[c] = v.Value(r)
			}
			out = append(out, row)
		}
		total += b.Len
	}
	if int64(total) != tbl.Rows {
		t.Fatalf("table %s: Rows = %d but records hold %d", tbl.Name, tbl.Rows, total)
	}
	return out
}

func record(t *testing.T, b *coldata.Batch) arrow.Record {
	return coldata.BatchToRecord(catalog.Schema(cols), b)
}

func TestCreateGetList(t *testing.T) {
	c := catalog.New()
	rec := record(t, batch([]int64{1, 2}, []string{"a", ""}))
	defer rec.Release()
	created, err := c.Create("People", cols, []arrow.Record{rec}, false)
	if err != nil || !created {
		t.Fatalf("Create = %v, %v", created, err)
	}
	for _, name := range []string{"People", "people", "PEOPLE"} {
		tbl, err := c.Get(name)
		if err != nil {
			t.Fatalf("Get(%q): %v", name, err)
		}
		if tbl.Name != "People" || tbl.Rows != 2 {
			t.Errorf("Get(%q) = %s with %d rows", name, tbl.Name, tbl.Rows)
		}
		if got := rows(t, tbl); !reflect.DeepEqual(got, [][]any{{int64(1), "a"}, {int64(2), nil}}) {
			t.Errorf("rows %v", got)
		}
	}
	tbl, _ := c.Get("people")
	for _, tc := range []struct {
		name string
		want int
	}{{"id", 0}, {"ID", 0}, {"name", 1}, {"NAME", 1}, {"nope", -1}} {
		if got := tbl.ColumnIndex(tc.name); got != tc.want {
			t.Errorf("ColumnIndex(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
	s := tbl.Schema()
	if s.NumFields() != 2 || s.Field(0).Nullable || !s.Field(1).Nullable || s.Field(1).Name != "Name" ||
		!arrow.TypeEqual(s.Field(0).Type, arrow.PrimitiveTypes.Int64) || !arrow.TypeEqual(s.Field(1).Type, arrow.BinaryTypes.String) {
		t.Errorf("schema %s", s)
	}

	// Duplicates, in any case.
	_, err = c.Create("PEOPLE", cols, nil, false)
	var oe *catalog.ObjectError
	if !errors.As(err, &oe) || !oe.Exists || oe.Table != "PEOPLE" || err.Error() != `table "PEOPLE" already exists` {
		t.Errorf("duplicate Create = %v", err)
	}
	created, err = c.Create("people", []catalog.Column{{Name: "x", Type: coldata.Bool}}, nil, true)
	if err != nil || created {
		t.Errorf("Create IF NOT EXISTS = %v, %v", created, err)
	}
	if tbl2, _ := c.Get("people"); tbl2 != tbl {
		t.Errorf("IF NOT EXISTS replaced the table")
	}

	// Missing tables.
	_, err = c.Get("ghost")
	if !errors.As(err, &oe) || oe.Exists || oe.Table != "ghost" || err.Error() != `table "ghost" does not exist` {
		t.Errorf("Get(ghost) = %v", err)
	}

	if _, err := c.Create("alpha", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	if got := c.List(); !reflect.DeepEqual(got, []string{"People", "alpha"}) {
		t.Errorf("List = %v", got)
	}
	empty, _ := c.Get("alpha")
	if empty.Rows != 0 || len(rows(t, empty)) != 0 {
		t.Errorf("empty table has rows")
	}
}

func TestCreateErrors(t *testing.T) {
	c := catalog.New()
	wrong := coldata.BatchToRecord(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil),
		coldata.NewBatch([]*coldata.Vec{coldata.NewConst(coldata.Int64, int64(1), 1).Materialize()}, 1))
	defer wrong.Release()
	for _, tc := range []struct {
		name string
		cols []catalog.Column
		recs []arrow.Record
		msg  string
	}{
		{"schema mismatch", cols, []arrow.Record{wrong}, "does not match"},
		{"duplicate column", []catalog.Column{{Name: "a", Type: coldata.Int64}, {Name: "A", Type: coldata.String}}, nil, `duplicate column name "A"`},
		{"empty column name", []catalog.Column{{Name: "", Type: coldata.Int64}}, nil, "column name must not be empty"},
		{"untyped column", []catalog.Column{{Name: "n", Type: coldata.Null}}, nil, `column "n" has no type`},
	} {
		created, err := c.Create("t", tc.cols, tc.recs, false)
		if err == nil || created {
			t.Errorf("%s: Create succeeded", tc.name)
			continue
		}
		if !contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %q does not mention %q", tc.name, err, tc.msg)
		}
	}
	if got := c.List(); len(got) != 0 {
		t.Errorf("failed creates left tables %v", got)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestDrop(t *testing.T) {
	c := catalog.New()
	if _, err := c.Create("t", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	old, _ := c.Get("t")
	dropped, err := c.Drop("T", false)
	if err != nil || !dropped {
		t.Fatalf("Drop = %v, %v", dropped, err)
	}
	if _, err := c.Get("t"); err == nil {
		t.Errorf("table still there after Drop")
	}
	dropped, err = c.Drop("t", true)
	if err != nil || dropped {
		t.Errorf("Drop IF EXISTS of a missing table = %v, %v", dropped, err)
	}
	var oe *catalog.ObjectError
	if _, err = c.Drop("t", false); !errors.As(err, &oe) || oe.Exists {
		t.Errorf("Drop of a missing table = %v", err)
	}
	// Re-creating gives a fresh table with a higher version.
	if _, err := c.Create("t", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	nt, _ := c.Get("t")
	if nt.Version <= old.Version {
		t.Errorf("re-created version %d <= %d", nt.Version, old.Version)
	}
}

func TestAppend(t *testing.T) {
	c := catalog.New()
	if _, err := c.Create("t", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	v0, _ := c.Get("t")
	var want [][]any
	var versions []uint64
	versions = append(versions, v0.Version)
	for i := 0; i < 5; i++ {
		ids, names := seq(i*3, 3)
		names[1] = ""
		if err := c.Append("T", batch(ids, names)); err != nil {
			t.Fatal(err)
		}
		for j := range ids {
			var n any = names[j]
			if names[j] == "" {
				n = nil
			}
			want = append(want, []any{ids[j], n})
		}
		tbl, _ := c.Get("t")
		versions = append(versions, tbl.Version)
		// Small appends are merged into one record.
		if len(tbl.Records) != 1 {
			t.Errorf("after %d small appends: %d records", i+1, len(tbl.Records))
		}
	}
	for i := 1; i < len(versions); i++ {
		if versions[i] <= versions[i-1] {
			t.Errorf("versions do not increase: %v", versions)
		}
	}
	tbl, _ := c.Get("t")
	if got := rows(t, tbl); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// The original snapshot is unchanged.
	if v0.Rows != 0 || len(v0.Records) != 0 {
		t.Errorf("old snapshot changed: %d rows", v0.Rows)
	}

	// An empty append changes nothing, not even the version.
	if err := c.Append("t", batch(nil, nil)); err != nil {
		t.Fatal(err)
	}
	if same, _ := c.Get("t"); same != tbl {
		t.Errorf("empty append published a new snapshot")
	}

	// A large append starts a new record rather than copying the table.
	ids, names := seq(1000, 70000)
	if err := c.Append("t", batch(ids, names)); err != nil {
		t.Fatal(err)
	}
	big, _ := c.Get("t")
	if len(big.Records) != 2 || big.Rows != 70015 {
		t.Errorf("large append: %d records, %d rows", len(big.Records), big.Rows)
	}
	// Then a small one is not merged into the large record.
	if err := c.Append("t", batch([]int64{-1}, []string{"last"})); err != nil {
		t.Fatal(err)
	}
	last, _ := c.Get("t")
	if len(last.Records) != 3 || last.Rows != 70016 {
		t.Errorf("append after large: %d records, %d rows", len(last.Records), last.Rows)
	}
	r := rows(t, last)
	if !reflect.DeepEqual(r[len(r)-1], []any{int64(-1), "last"}) || !reflect.DeepEqual(r[15], []any{int64(1000), "n1000"}) {
		t.Errorf("rows after large append: %v %v", r[15], r[len(r)-1])
	}
	if got := rows(t, tbl); !reflect.DeepEqual(got, want) {
		t.Errorf("earlier snapshot changed by later appends")
	}
}

func TestAppendErrors(t *testing.T) {
	c := catalog.New()
	if _, err := c.Create("t", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Append("t", batch([]int64{1}, []string{"a"})); err != nil {
		t.Fatal(err)
	}
	before, _ := c.Get("t")
	var oe *catalog.ObjectError
	if err := c.Append("missing", batch([]int64{1}, []string{"a"})); !errors.As(err, &oe) || oe.Exists {
		t.Errorf("Append to a missing table = %v", err)
	}
	one := coldata.NewBatch([]*coldata.Vec{coldata.NewConst(coldata.Int64, int64(1), 1).Materialize()}, 1)
	if err := c.Append("t", one); err == nil || !contains(err.Error(), "1 columns for 2") {
		t.Errorf("Append with too few columns = %v", err)
	}
	swapped := batch([]int64{1}, []string{"a"})
	swapped.Cols[0], swapped.Cols[1] = swapped.Cols[1], swapped.Cols[0]
	if err := c.Append("t", swapped); err == nil {
		t.Errorf("Append with wrong column types succeeded")
	}
	short := batch([]int64{1, 2}, []string{"a", "b"})
	short.Cols[1] = coldata.Slice(short.Cols[1], 0, 1)
	if err := c.Append("t", short); err == nil {
		t.Errorf("Append with columns of different lengths succeeded")
	}
	after, err := c.Get("t")
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("failed appends published a new snapshot")
	}
	// The catalog still works (no lock left held).
	if err := c.Append("t", batch([]int64{2}, []string{"b"})); err != nil {
		t.Fatal(err)
	}
	now, _ := c.Get("t")
	if got := rows(t, now); !reflect.DeepEqual(got, [][]any{{int64(1), "a"}, {int64(2), "b"}}) {
		t.Errorf("rows %v", got)
	}
}

func TestOnChange(t *testing.T) {
	c := catalog.New()
	var mu sync.Mutex
	var got []string
	c.OnChange(func(name string) {
		// The catalog is usable from the callback (it runs outside the lock).
		_, _ = c.Get(name)
		mu.Lock()
		got = append(got, "a:"+name)
		mu.Unlock()
	})
	c.OnChange(func(name string) {
		mu.Lock()
		got = append(got, "b:"+name)
		mu.Unlock()
	})
	if _, err := c.Create("Tab", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create("tab", cols, nil, true); err != nil { // no change
		t.Fatal(err)
	}
	if err := c.Append("TAB", batch([]int64{1}, []string{"x"})); err != nil {
		t.Fatal(err)
	}
	if err := c.Append("tab", batch(nil, nil)); err != nil { // no change
		t.Fatal(err)
	}
	_ = c.Append("nope", batch([]int64{1}, []string{"x"})) // fails: no change
	if _, err := c.Drop("tab", false); err != nil {
		t.Fatal(err)
	}
	_, _ = c.Drop("tab", true) // nothing to drop
	want := []string{"a:Tab", "b:Tab", "a:Tab", "b:Tab", "a:Tab", "b:Tab"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notifications %v, want %v", got, want)
	}
}

func TestRecordsOf(t *testing.T) {
	c := catalog.New()
	if _, err := c.Create("t", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Append("t", batch([]int64{7, 8}, []string{"x", ""})); err != nil {
		t.Fatal(err)
	}
	tbl, _ := c.Get("t")
	rr, err := catalog.RecordsOf(tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := 0
	for rr.Next() {
		rec := rr.Record()
		if !rec.Schema().Equal(tbl.Schema()) {
			t.Errorf("schema %s", rec.Schema())
		}
		n += int(rec.NumRows())
	}
	if n != 2 {
		t.Errorf("reader gave %d rows", n)
	}
}

// TestConcurrentAppendGet runs writers and readers together; run with -race.
// Every snapshot a reader sees must be internally consistent: its Rows match
// its records and its rows are a prefix of each writer's sequence.
func TestConcurrentAppendGet(t *testing.T) {
	c := catalog.New()
	if _, err := c.Create("t", cols, nil, false); err != nil {
		t.Fatal(err)
	}
	const writers, perWriter = 4, 50
	var notified sync.Map
	c.OnChange(func(name string) { notified.Store(name, true) })
	var wg sync.WaitGroup
	errs := make(chan error, writers*perWriter+64)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				id := int64(w*1000 + i)
				if err := c.Append("t", batch([]int64{id, id}, []string{"p", ""})); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	for r := 0; r < 2; r++ {
		rg.Add(1)
		go func() {
			defer rg.Done()
			var lastVersion uint64
			for {
				select {
				case <-stop:
					return
				default:
				}
				tbl, err := c.Get("t")
				if err != nil {
					errs <- err
					return
				}
				if tbl.Version < lastVersion {
					errs <- fmt.Errorf("version went back from %d to %d", lastVersion, tbl.Version)
					return
				}
				lastVersion = tbl.Version
				bs, err := tbl.Batches()
				if err != nil {
					errs <- err
					return
				}
				next := map[int64]int64{}
				total := int64(0)
				for _, b := range bs {
					total += int64(b.Len)
					for i := 0; i+1 < b.Len; i += 2 {
						id := b.Cols[0].Int(i)
						if b.Cols[0].Int(i+1) != id || b.Cols[1].IsNull(i) || !b.Cols[1].IsNull(i+1) {
							errs <- fmt.Errorf("torn append at row %d", i)
							return
						}
						w := id / 1000
						if id%1000 != next[w] {
							errs <- fmt.Errorf("writer %d: row %d after %d", w, id%1000, next[w])
							return
						}
						next[w]++
					}
				}
				if total != tbl.Rows || total%2 != 0 {
					errs <- fmt.Errorf("snapshot Rows %d, records %d", tbl.Rows, total)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tbl, _ := c.Get("t")
	if tbl.Rows != writers*perWriter*2 {
		t.Errorf("final rows %d", tbl.Rows)
	}
	if _, ok := notified.Load("t"); !ok {
		t.Errorf("no notification")
	}
}

// dropRecorder is a persister that records drops and can fail them.
type dropRecorder struct {
	commits int
	drops   [][]string
	indexes [][]catalog.IndexDef
	fail    error
}

func (r *dropRecorder) Commit(old, nt *catalog.Table) error { r.commits++; return r.fail }
func (r *dropRecorder) CommitDrop(tables []*catalog.Table, views []catalog.ViewDef, indexes []catalog.IndexDef) error {
	if r.fail != nil {
		return r.fail
	}
	var names []string
	for _, t := range tables {
		names = append(names, t.Name)
	}
	r.drops = append(r.drops, names)
	r.indexes = append(r.indexes, indexes)
	return nil
}

// TestDropTablesOneCommit: a DROP of several tables is one commit with
// the schema left after it, and a failed commit drops nothing.
func TestDropTablesOneCommit(t *testing.T) {
	c := catalog.New()
	for _, name := range []string{"a", "b", "keep"} {
		if _, err := c.Create(name, cols, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CreateIndex("ia", "a", []string{cols[0].Name}, false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateIndex("ik", "keep", []string{cols[0].Name}, false); err != nil {
		t.Fatal(err)
	}
	r := &dropRecorder{fail: errors.New("disk full")}
	c.SetPersister(r)
	if _, err := c.DropTables([]string{"a", "b"}, false); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("failed commit: %v", err)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := c.Get(name); err != nil {
			t.Fatalf("%s gone after a failed drop: %v", name, err)
		}
	}
	if len(c.Indexes("a")) != 1 {
		t.Fatal("index of a gone after a failed drop")
	}
	// A missing name fails the whole statement before any commit.
	r.fail = nil
	if _, err := c.DropTables([]string{"a", "nope"}, false); err == nil {
		t.Fatal("drop of a missing table succeeded")
	}
	if _, err := c.Get("a"); err != nil || len(r.drops) != 0 {
		t.Fatalf("a dropped by a failed statement (%v, %v)", err, r.drops)
	}
	dropped, err := c.DropTables([]string{"A", "b", "nope", "a"}, true)
	if err != nil || len(dropped) != 2 {
		t.Fatalf("DropTables = %v, %v", dropped, err)
	}
	if len(r.drops) != 1 || len(r.drops[0]) != 2 || r.commits != 0 {
		t.Fatalf("drops %v and %d single commits, want one drop of two tables", r.drops, r.commits)
	}
	if len(r.indexes[0]) != 1 || r.indexes[0][0].Name != "ik" {
		t.Fatalf("schema after the drop: %v", r.indexes[0])
	}
	if _, err := c.Get("keep"); err != nil {
		t.Fatal(err)
	}
}

// TestColumnBatchesCache checks that a second scan of the same columns
// reuses the first one's converted data (a DATE column is widened once),
// with a Vec header of its own, and that an append is seen by the next
// snapshot's scans.
func TestColumnBatchesCache(t *testing.T) {
	c := catalog.New()
	dcols := []catalog.Column{{Name: "d", Type: coldata.Date}, {Name: "id", Type: coldata.Int64}}
	db := coldata.NewBuilder(coldata.Date, 3)
	for _, d := range []int64{19000, 19001, 19002} {
		db.AppendInt(d)
	}
	b := coldata.NewBatch([]*coldata.Vec{db.Finish(), coldata.NewVec(coldata.Int64, 3)}, 3)
	if _, err := c.Create("d", dcols, []arrow.Record{coldata.BatchToRecord(catalog.Schema(dcols), b)}, false); err != nil {
		t.Fatal(err)
	}
	tbl, _ := c.Get("d")
	first, err := tbl.ColumnBatches([]int{0})
	if err != nil {
		t.Fatal(err)
	}
	second, err := tbl.ColumnBatches([]int{0})
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := first[0].Cols[0], second[0].Cols[0]
	if v1 == v2 {
		t.Fatal("two scans share one Vec header")
	}
	if &v1.Ints[0] != &v2.Ints[0] {
		t.Error("the second scan converted the DATE column again")
	}
	if got := v2.Ints; !reflect.DeepEqual(got, []int64{19000, 19001, 19002}) {
		t.Errorf("dates %v", got)
	}
	if first[0].Cols[1] != nil {
		t.Error("a column not asked for was converted")
	}
	v1.Len = 0 // a header change stays in its own scan
	if third, _ := tbl.ColumnBatches([]int{0}); third[0].Cols[0].Len != 3 {
		t.Errorf("a scan's header change reached the cache: Len %d", third[0].Cols[0].Len)
	}
	ab := coldata.NewBuilder(coldata.Date, 1)
	ab.AppendInt(19003)
	if err := c.Append("d", coldata.NewBatch([]*coldata.Vec{ab.Finish(), coldata.NewVec(coldata.Int64, 1)}, 1)); err != nil {
		t.Fatal(err)
	}
	tbl, _ = c.Get("d")
	var got []int64
	bs, err := tbl.ColumnBatches([]int{0})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		got = append(got, b.Cols[0].Ints[:b.Len]...)
	}
	if !reflect.DeepEqual(got, []int64{19000, 19001, 19002, 19003}) {
		t.Errorf("after the append: %v", got)
	}
}
