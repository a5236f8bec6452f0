package catalog

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/datetime"
	"github.com/gsqlengine/gsql/errkind"
)

// Unique keys: a table's PRIMARY KEY and UNIQUE constraints (Table.Keys,
// from CREATE TABLE) and its unique indexes (CREATE UNIQUE INDEX) are
// enforced by the statements that write rows. Each check builds a KeySet
// per key over the table's rows once per statement and probes it with the
// new rows, so an INSERT of n rows into a table of m costs O(n + m), not
// O(n*m). KeySet is the one place that encodes and compares key values on
// the host; large inserts on a GPU database ask the device first
// (keycheck.go in package gsql), which compares as KeySet encodes.

// PrimaryName is the name of every table's primary key (MySQL's).
const PrimaryName = "PRIMARY"

// Key is one PRIMARY KEY or UNIQUE key of a table.
type Key struct {
	// Name is PrimaryName for the primary key, else the constraint's or
	// index's name.
	Name    string
	Primary bool
	// Columns are the key's column names, Cols their positions.
	Columns []string
	Cols    []int
}

// UniqueKeys returns every key the rows of snapshot t must keep unique:
// the primary key, the table's UNIQUE constraints, then its unique
// indexes by name.
func (c *Catalog) UniqueKeys(t *Table) []Key {
	keys := append([]Key(nil), t.Keys...)
	for _, ix := range c.Indexes(t.Name) {
		if ix.Unique {
			keys = append(keys, Key{Name: ix.Name, Columns: ix.Columns, Cols: ix.Cols})
		}
	}
	return keys
}

// KeyDefs resolves the key definitions of CREATE TABLE against its
// columns: columns must exist and appear once per key, primary key
// columns become NOT NULL, at most one key is primary, names are unique
// (an unnamed UNIQUE key is named after its first column, with _2, _3 ...
// when taken, as MySQL does).
func KeyDefs(cols []Column, defs []Key) ([]Column, []Key, error) {
	out := append([]Column(nil), cols...)
	var keys []Key
	taken := map[string]bool{}
	for _, d := range defs {
		k := Key{Name: d.Name, Primary: d.Primary}
		if d.Primary {
			if taken[key(PrimaryName)] {
				return nil, nil, &IndexError{Msg: "multiple primary key defined", Kind: errkind.WrongObject}
			}
			k.Name = PrimaryName
		}
		seen := map[int]bool{}
		for _, name := range d.Columns {
			i := -1
			for j, c := range out {
				if strings.EqualFold(c.Name, name) {
					i = j
				}
			}
			if i < 0 {
				return nil, nil, &IndexError{Msg: fmt.Sprintf("Key column '%s' doesn't exist in table", name), Kind: errkind.NoSuchColumn}
			}
			if seen[i] {
				return nil, nil, &IndexError{Msg: fmt.Sprintf("Duplicate column name '%s'", name), Kind: errkind.DuplicateColumn}
			}
			seen[i] = true
			k.Columns = append(k.Columns, out[i].Name)
			k.Cols = append(k.Cols, i)
			if d.Primary {
				out[i].NotNull = true
			}
		}
		if k.Name == "" {
			k.Name = k.Columns[0]
			for n := 2; taken[key(k.Name)]; n++ {
				k.Name = k.Columns[0] + "_" + strconv.Itoa(n)
			}
		}
		if taken[key(k.Name)] {
			return nil, nil, &IndexError{Msg: fmt.Sprintf("Duplicate key name '%s'", k.Name), Kind: errkind.IndexExists}
		}
		taken[key(k.Name)] = true
		if d.Primary {
			// The primary key is checked (and named in errors) first.
			keys = append([]Key{k}, keys...)
		} else {
			keys = append(keys, k)
		}
	}
	return out, keys, nil
}

// DuplicateKeyError is a row whose key another row has (MySQL's error
// 1062; the text is MySQL 8's, which names the key with its table).
type DuplicateKeyError struct {
	Table, Key string
	// Entry is the key's values as MySQL prints them, joined by '-'.
	Entry string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("Duplicate entry '%s' for key '%s.%s'", e.Entry, e.Table, e.Key)
}

// ErrorKind implements errkind.Kinded.
func (e *DuplicateKeyError) ErrorKind() errkind.Kind { return errkind.DuplicateKey }

// KeySet is a hash set of one key's values, each mapped to the id of the
// row that holds it. Rows whose key has a NULL are never in it: NULLs do
// not collide in a UNIQUE key.
type KeySet struct {
	Table string
	Key   Key
	m     map[string]int
	buf   []byte
}

// NewKeySet returns an empty set for key k of table.
func NewKeySet(table string, k Key, sizeHint int) *KeySet {
	return &KeySet{Table: table, Key: k, m: make(map[string]int, sizeHint)}
}

// encode sets s.buf to row r's key; false when a key column is NULL.
// Values are encoded by their physical type, which is fixed per column,
// so equal encodings are equal values (a float's -0 is 0).
func (s *KeySet) encode(b *coldata.Batch, r int) bool {
	s.buf = s.buf[:0]
	for _, c := range s.Key.Cols {
		v := b.Cols[c]
		if v.IsNull(r) {
			return false
		}
		switch v.Type.Physical() {
		case coldata.Bool:
			if v.Bool(r) {
				s.buf = append(s.buf, 1)
			} else {
				s.buf = append(s.buf, 0)
			}
		case coldata.Int64:
			s.buf = binary.LittleEndian.AppendUint64(s.buf, uint64(v.Int(r)))
		case coldata.Float64:
			f := v.Float(r)
			if f == 0 {
				f = 0
			}
			s.buf = binary.LittleEndian.AppendUint64(s.buf, math.Float64bits(f))
		case coldata.Decimal:
			d := v.Dec(r)
			s.buf = binary.LittleEndian.AppendUint64(s.buf, d.Lo)
			s.buf = binary.LittleEndian.AppendUint64(s.buf, uint64(d.Hi))
		default:
			str := v.Str(r)
			s.buf = binary.AppendUvarint(s.buf, uint64(len(str)))
			s.buf = append(s.buf, str...)
		}
	}
	return true
}

// Find returns the id of the row holding row r's key, if any.
func (s *KeySet) Find(b *coldata.Batch, r int) (int, bool) {
	if !s.encode(b, r) {
		return 0, false
	}
	id, ok := s.m[string(s.buf)]
	return id, ok
}

// Put records that row id holds row r's key (a NULL key is not kept).
func (s *KeySet) Put(b *coldata.Batch, r, id int) {
	if s.encode(b, r) {
		s.m[string(s.buf)] = id
	}
}

// Remove forgets row r's key.
func (s *KeySet) Remove(b *coldata.Batch, r int) {
	if s.encode(b, r) {
		delete(s.m, string(s.buf))
	}
}

// Duplicate is the error for row r of b colliding in this key.
func (s *KeySet) Duplicate(b *coldata.Batch, r int) *DuplicateKeyError {
	return &DuplicateKeyError{Table: s.Table, Key: s.Key.Name, Entry: KeyEntry(b, r, s.Key.Cols)}
}

// KeyEntry is row r's values of cols as MySQL prints them in a duplicate
// key error: each value's text, joined by '-'.
func KeyEntry(b *coldata.Batch, r int, cols []int) string {
	var sb strings.Builder
	for k, c := range cols {
		if k > 0 {
			sb.WriteByte('-')
		}
		v := b.Cols[c]
		switch {
		case v.IsNull(r):
			sb.WriteString("NULL")
		case v.Type == coldata.Date:
			sb.WriteString(datetime.FormatDate(v.Int(r)))
		case v.Type == coldata.Timestamp:
			sb.WriteString(datetime.FormatTimestamp(v.Int(r)))
		case v.Type.IsDecimal():
			sb.WriteString(v.Dec(r).String(v.Type.Scale()))
		case v.Type == coldata.Bool:
			if v.Bool(r) {
				sb.WriteString("1")
			} else {
				sb.WriteString("0")
			}
		case v.Type == coldata.Float64:
			sb.WriteString(strconv.FormatFloat(v.Float(r), 'g', -1, 64))
		case v.Type.Physical() == coldata.Int64:
			sb.WriteString(strconv.FormatInt(v.Int(r), 10))
		default:
			sb.Write(v.Str(r))
		}
	}
	return sb.String()
}

// KeySets builds the sets of keys over snapshot t's rows, once: row ids
// number the table's rows in order from 0.
func KeySets(t *Table, keys []Key) ([]*KeySet, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sets := make([]*KeySet, len(keys))
	var cols []int
	seen := map[int]bool{}
	for i, k := range keys {
		sets[i] = NewKeySet(t.Name, k, int(t.Rows))
		for _, c := range k.Cols {
			if !seen[c] {
				seen[c] = true
				cols = append(cols, c)
			}
		}
	}
	id := 0
	for ri := range t.Records {
		b, err := t.RecordColumns(ri, cols)
		if err != nil {
			return nil, err
		}
		for r := 0; r < b.Len; r++ {
			for _, s := range sets {
				if _, dup := s.Find(b, r); dup {
					return nil, s.Duplicate(b, r)
				}
				s.Put(b, r, id)
			}
			id++
		}
	}
	return sets, nil
}
