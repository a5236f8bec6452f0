package gpuexec

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/decimal"
)

// keyRows draws n rows of a key of the given types, each value from
// [0, spread) (NULL with probability nulls): BIGINT, VARCHAR "k<v>",
// DECIMAL(12,2) v/100, DOUBLE v/4 (0 as -0.0 every other time), BOOLEAN
// v%2. It returns the batch and each row's key as text ("" for a key
// with a NULL), equal texts for equal keys.
func keyRows(rng *rand.Rand, types []coldata.Type, n, spread int, nulls float64) (*coldata.Batch, []string) {
	bs := make([]*coldata.Builder, len(types))
	for i, t := range types {
		bs[i] = coldata.NewBuilder(t, n)
	}
	keys := make([]string, n)
	for r := 0; r < n; r++ {
		key, null := "", false
		for i, t := range types {
			if rng.Float64() < nulls {
				bs[i].AppendNull()
				null = true
				continue
			}
			v := rng.Intn(spread)
			switch t.Physical() {
			case coldata.Int64:
				bs[i].AppendInt(int64(v))
			case coldata.String:
				bs[i].AppendString(fmt.Sprintf("k%d", v))
			case coldata.Decimal:
				bs[i].AppendDec(decimal.FromInt64(int64(v)))
			case coldata.Float64:
				f := float64(v) / 4
				if v == 0 && r%2 == 1 {
					f = math.Copysign(0, -1)
				}
				bs[i].AppendFloat(f)
			case coldata.Bool:
				v %= 2
				bs[i].AppendBool(v == 1)
			}
			key += fmt.Sprintf("%d|", v)
		}
		if !null {
			keys[r] = key
		}
	}
	b := &coldata.Batch{Cols: make([]*coldata.Vec, len(types)), Len: n}
	for i := range bs {
		b.Cols[i] = bs[i].Finish()
	}
	return b, keys
}

// refCollide is the host's answer: a key twice among fresh, or in both.
func refCollide(fresh, existing []string) bool {
	seen := map[string]bool{}
	for _, k := range existing {
		if k != "" {
			seen[k] = true
		}
	}
	mine := map[string]bool{}
	for _, k := range fresh {
		if k == "" {
			continue
		}
		if seen[k] || mine[k] {
			return true
		}
		mine[k] = true
	}
	return false
}

// TestFakeKeysCollide: the device's unique-key check agrees with the
// host's over keys of every hashable type, one and two columns, with
// NULLs (which never collide), -0.0 beside 0.0 (which do), the table in
// several batches or none, and duplicates among the new rows alone.
func TestFakeKeysCollide(t *testing.T) {
	d, f := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(38))
	shapes := [][]coldata.Type{
		{coldata.Int64}, {coldata.String}, {coldata.DecimalOf(12, 2)}, {coldata.Float64}, {coldata.Date},
		{coldata.Int64, coldata.String}, {coldata.Bool, coldata.Int64},
	}
	hits := 0
	for trial := 0; trial < 140; trial++ {
		types := shapes[trial%len(shapes)]
		n, m := 1+rng.Intn(300), rng.Intn(900)
		spread := 1 + rng.Intn(4*(n+m)+1)
		nulls := []float64{0, 0.05, 0.5, 1}[rng.Intn(4)]
		fresh, fk := keyRows(rng, types, n, spread, nulls)
		var parts []*coldata.Batch
		var ek []string
		for left := m; left > 0; {
			k := 1 + rng.Intn(left)
			b, keys := keyRows(rng, types, k, spread, nulls)
			parts = append(parts, b)
			ek = append(ek, keys...)
			left -= k
		}
		want := refCollide(fk, ek)
		cols := make([]int, len(types))
		for i := range cols {
			cols[i] = i
		}
		db, err := d.Upload(ctx, fresh)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		next := func() (*DeviceBatch, error) {
			if i == len(parts) {
				return nil, nil
			}
			i++
			return d.Upload(ctx, parts[i-1])
		}
		got, err := d.KeysCollide(ctx, db, cols, next, cols)
		db.Release()
		if err != nil {
			t.Fatalf("trial %d (%v): %v", trial, types, err)
		}
		if got != want {
			t.Fatalf("trial %d (%v, %d new rows, %d rows, spread %d, nulls %v): collide %v, want %v", trial, types, n, m, spread, nulls, got, want)
		}
		if want {
			hits++
		}
	}
	if hits == 0 || hits == 140 {
		t.Fatalf("%d of 140 trials collide: the cases do not tell", hits)
	}
	if f.launches["gsql_join_insert"] == 0 || f.launches["gsql_join_count"] == 0 {
		t.Fatalf("kernels not used: %v", f.launches)
	}
	requireNoLeak(t, d, "key checks")
}

// TestFakeKeyCheckErrors: a key check refuses keys it cannot hash and
// probes whose key types differ from the new rows', with typed errors.
func TestFakeKeyCheckErrors(t *testing.T) {
	d, _ := newFakeDevice(t, Options{})
	defer d.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(1))
	fresh, _ := keyRows(rng, []coldata.Type{coldata.Int64}, 10, 1<<30, 0)
	other, _ := keyRows(rng, []coldata.Type{coldata.String}, 10, 5, 0)
	db, err := d.Upload(ctx, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.BuildKeyCheck(ctx, db, nil); err == nil {
		t.Fatal("a key check without columns was accepted")
	}
	if _, err := d.BuildKeyCheck(ctx, db, []int{3}); err == nil {
		t.Fatal("a key column past the batch was accepted")
	}
	ob, err := d.Upload(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	served := false
	next := func() (*DeviceBatch, error) {
		if served {
			return nil, nil
		}
		served = true
		return ob, nil
	}
	if _, err := d.KeysCollide(ctx, db, []int{0}, next, []int{0}); err == nil {
		t.Fatal("a probe of another key type was accepted")
	}
	if _, err := d.KeysCollide(ctx, db, []int{0}, next, []int{0, 1}); err == nil {
		t.Fatal("key column lists of different lengths were accepted")
	}
	if !KeyHashable(coldata.Date) || !KeyHashable(coldata.DecimalOf(12, 2)) || KeyHashable(coldata.Null) {
		t.Fatal("KeyHashable")
	}
	db.Release()
	requireNoLeak(t, d, "key check errors")
}
