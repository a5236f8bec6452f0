// Package storage keeps a gsql database on disk: a directory of immutable
// Arrow IPC segment files, one record batch each, and a manifest naming
// every table's columns and segments.
//
// Segments are opened by memory map and read without copying: a table's
// records point straight into the page cache, so opening a database costs
// the same whatever its size. A compressed segment (Options.Compression)
// is mapped too, and each of its columns is decompressed when a query first
// reads it, after a check of the column's stored bytes against the CRC32
// the manifest keeps: a damaged column fails the queries that read it with
// a CorruptError naming the table and the file. A commit (one statement) writes and fsyncs its
// new segments, then writes the new manifest to a temporary file, fsyncs it,
// renames it over MANIFEST and fsyncs the directory: the rename is the
// commit point, and a crash anywhere before it leaves the previous manifest,
// which names only complete files. Files a crash left behind (segments no
// manifest names, the temporary manifest) are removed on the next open.
//
// Commits compact: new records are merged into segments of up to 1M rows,
// a table's small last segments are merged as a binary counter, and the
// committed snapshot reads its rows back from the segments' maps. The
// manifest keeps each segment's zone maps (min/max per column), so scans
// can skip segments without reading them.
//
// One process writes: Open takes an exclusive flock on the LOCK file, and a
// second Open fails with a LockedError naming the holder's process id.
//
// Store implements catalog.Persister: the catalog calls Commit before it
// publishes a change, and a failed commit fails the statement.
package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/gsqlengine/gsql/catalog"
	"github.com/gsqlengine/gsql/coldata"
	"github.com/gsqlengine/gsql/errkind"
)

// FormatVersion is the newest version of the on-disk format, which this
// package writes when a segment needs it (version 2: encoded columns,
// segmentEntry.Encodings); it reads every version from 1 up.
const FormatVersion = 2

const (
	manifestName = "MANIFEST"
	manifestTemp = "MANIFEST.tmp"
	lockName     = "LOCK"
	segPrefix    = "seg-"
	segSuffix    = ".arrow"
	formatName   = "gsql"
)

// LockedError reports a database another handle is writing.
type LockedError struct {
	Path   string
	Holder string // e.g. "process 1234"
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("database is locked: %s holds %s", e.Holder, e.Path)
}

// ErrorKind implements errkind.Kinded: a locked database is read-only to
// this handle.
func (e *LockedError) ErrorKind() errkind.Kind { return errkind.ReadOnly }

// CorruptError reports a damaged or unreadable database file.
type CorruptError struct {
	File string
	// Table is the table the file holds rows of, when known.
	Table string
	Err   error
}

func (e *CorruptError) Error() string {
	if e.Table != "" {
		return fmt.Sprintf("corrupt database file %s (table %s): %v", e.File, e.Table, e.Err)
	}
	return fmt.Sprintf("corrupt database file %s: %v", e.File, e.Err)
}
func (e *CorruptError) Unwrap() error { return e.Err }

// manifest is the committed state of a database.
type manifest struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Generation counts commits.
	Generation uint64 `json:"generation"`
	// NextSegment numbers the next segment file; names are never reused.
	NextSegment uint64       `json:"next_segment"`
	Tables      []tableEntry `json:"tables"`
	// Views and Indexes are the catalog's other objects (absent in
	// databases written before they were kept).
	Views   []catalog.ViewDef  `json:"views,omitempty"`
	Indexes []catalog.IndexDef `json:"indexes,omitempty"`
}

type tableEntry struct {
	Name    string        `json:"name"`
	Columns []columnEntry `json:"columns"`
	// Keys are the PRIMARY KEY and UNIQUE constraints (absent in
	// databases written before gsql kept them: no keys).
	Keys     []keyEntry     `json:"keys,omitempty"`
	Segments []segmentEntry `json:"segments"`
	// Stats are the planner's column statistics, one per column (absent
	// in databases written before they were kept: the planner guesses).
	Stats []statsEntry `json:"stats,omitempty"`
}

// statsEntry is one column's catalog.ColumnStats: the distinct-count
// sketch in its compact binary form (a few bytes for a small table, 4 KiB
// at most) and the value range.
type statsEntry struct {
	Sketch []byte   `json:"ndv"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
}

func statsEntries(st []catalog.ColumnStats) []statsEntry {
	out := make([]statsEntry, len(st))
	for i := range st {
		out[i].Sketch, _ = st[i].Sketch.MarshalBinary()
		if st[i].HasRange {
			lo, hi := st[i].Min, st[i].Max
			out[i].Min, out[i].Max = &lo, &hi
		}
	}
	return out
}

func statsOf(es []statsEntry) ([]catalog.ColumnStats, error) {
	out := make([]catalog.ColumnStats, len(es))
	for i, e := range es {
		if err := out[i].Sketch.UnmarshalBinary(e.Sketch); err != nil {
			return nil, fmt.Errorf("column %d statistics: %w", i, err)
		}
		if e.Min != nil && e.Max != nil {
			out[i].Min, out[i].Max, out[i].HasRange = *e.Min, *e.Max, true
		}
	}
	return out, nil
}

type columnEntry struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	NotNull bool   `json:"not_null,omitempty"`
	Default string `json:"default,omitempty"`
	Auto    bool   `json:"auto_increment,omitempty"`
}

type keyEntry struct {
	Name    string   `json:"name"`
	Primary bool     `json:"primary,omitempty"`
	Columns []string `json:"columns"`
}

type segmentEntry struct {
	File  string `json:"file"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
	// CRC32 (IEEE) of the whole file, checked by Verify, not by Open:
	// opening must not read the data.
	CRC32 uint32 `json:"crc32"`
	// Zones holds one zone map per column.
	Zones []catalog.Zone `json:"zones,omitempty"`
	// Checks are CRC32s of parts of the file, checked as the parts are
	// read (absent in databases written before they were kept).
	Checks *segmentChecks `json:"checks,omitempty"`
	// Encodings holds, per column, the lightweight encoding of its values
	// in a compressed segment (nil: as they are); absent when no column
	// is encoded. A manifest naming one is written as format version 2.
	Encodings []*colEncoding `json:"encodings,omitempty"`
}

// segmentChecks guard a segment against damage without reading it whole
// at Open: Meta, over the file outside the body (schema, record batch
// message, footer), is checked at Open; Columns, over each column's
// stored (compressed) bytes, before a compressed column is decompressed,
// so that a damaged segment gives an error rather than wrong rows. A
// plain segment's data is read from the map without a pass over it; Verify
// checks it.
type segmentChecks struct {
	Meta    uint32   `json:"meta"`
	Columns []uint32 `json:"columns"`
}

// addedSegment is a segment a commit wrote, registered once it succeeds.
type addedSegment struct {
	entry segmentEntry
	heap  bool // compressed: decoded into the heap, not read from the map
}

// ErrReadOnly is returned by Commit on a store opened with OpenReadOnly.
var ErrReadOnly = errkind.New(errkind.ReadOnly, "database is open read-only")

// Store is an open on-disk database.
type Store struct {
	dir      string
	lock     *os.File // nil when read-only
	readOnly bool

	mu  sync.Mutex
	man manifest
	// codec compresses the segments commits write (SetCodec).
	codec Codec
	// segs maps each record a table snapshot holds to the segment that
	// stores it: a commit writes only records not found here.
	segs map[arrow.Record]segmentEntry
	// mapped holds the records read straight from a segment's memory map
	// (uncompressed); a compressed segment's records live in the heap.
	mapped map[arrow.Record]bool
	// maps are the memory maps behind loaded records, unmapped on Close.
	maps [][]byte
	// staged are segments written ahead of a commit (Stage), by the
	// record over each; no manifest names them until a commit takes them.
	staged map[arrow.Record]segmentEntry
	// loaded are the tables read at Open, for the catalog.
	loaded []*catalog.Table
	// broken is set when a commit failed after its rename: the disk may
	// hold the new state while the catalog holds the old one.
	broken error
	closed bool
}

// Open opens the database in directory dir, creating it when dir does not
// exist or is empty. It takes the write lock, reads the manifest, maps every
// segment and removes the leftovers of an interrupted commit. An error
// leaves nothing open: either every table loads or Open fails.
func Open(dir string) (st *Store, err error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("open database %s: not a directory (a gsql database is a directory)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// Refuse a directory of other files before leaving a LOCK file in it.
	if _, err := os.Stat(filepath.Join(dir, manifestName)); errors.Is(err, os.ErrNotExist) {
		if err := checkNew(dir); err != nil {
			return nil, err
		}
	}
	lock, err := lockFile(filepath.Join(dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	s := &Store{dir: dir, lock: lock, segs: map[arrow.Record]segmentEntry{}, mapped: map[arrow.Record]bool{}}
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	man, found, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if !found {
		if err := checkNew(dir); err != nil {
			return nil, err
		}
		man = manifest{Format: formatName, Version: FormatVersion, NextSegment: 1}
		if err := s.writeManifest(&man); err != nil {
			return nil, fmt.Errorf("create database %s: %w", dir, err)
		}
	}
	s.man = man
	if err := s.load(); err != nil {
		return nil, err
	}
	if err := s.clean(); err != nil {
		return nil, fmt.Errorf("open database %s: removing leftovers: %w", dir, err)
	}
	return s, nil
}

// OpenReadOnly opens the database in dir for reading only, without the
// write lock, so that it works while another process writes: it reads the
// last committed manifest and maps its segments. A commit that lands in
// between may remove a segment the manifest it read names; the open then
// Mapped reports whether rec is read straight from a segment's memory
// map (its bytes are the page cache's, not the heap's).
func (s *Store) Mapped(rec arrow.Record) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mapped[rec]
}

// SetCodec sets how the segments later commits write are compressed
// (CodecNone when never set). Segments already written keep theirs.
func (s *Store) SetCodec(c Codec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codec = c
}

// starts again from the new manifest. Commit returns ErrReadOnly.
func OpenReadOnly(dir string) (*Store, error) {
	var last error
	for attempt := 0; attempt < 10; attempt++ {
		s := &Store{dir: dir, readOnly: true, segs: map[arrow.Record]segmentEntry{}, mapped: map[arrow.Record]bool{}}
		man, found, err := readManifest(dir)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("open database %s read-only: no %s (not a gsql database)", dir, manifestName)
		}
		s.man = man
		err = s.load()
		if err == nil {
			return s, nil
		}
		s.release()
		last = err
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("open database %s read-only: the writer kept replacing segments: %w", dir, last)
}

// checkNew refuses to create a database in a directory holding files that
// are not a database's, so that a mistyped path never mixes with user data.
func checkNew(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("open database %s: %w", dir, err)
	}
	for _, e := range ents {
		if n := e.Name(); n != lockName && n != manifestTemp && !isSegmentName(n) {
			return fmt.Errorf("open database %s: directory holds %s but no %s: not a gsql database", dir, n, manifestName)
		}
	}
	return nil
}

func isSegmentName(n string) bool {
	return strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segSuffix)
}

// readManifest reads and checks dir's manifest; found is false when there
// is none.
func readManifest(dir string) (m manifest, found bool, err error) {
	path := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("open database: %w", err)
	}
	m, err = decodeManifest(b)
	if err != nil {
		return m, false, &CorruptError{File: path, Err: err}
	}
	return m, true, nil
}

// The manifest is JSON followed by a line "crc32 XXXXXXXX" over the JSON.
const crcTag = "\ncrc32 "

// neededVersion is the format version m needs: 1 unless a segment's
// columns are encoded, so that a database without any still opens in
// earlier versions of gsql.
func neededVersion(m *manifest) int {
	for _, t := range m.Tables {
		for _, se := range t.Segments {
			if se.Encodings != nil {
				return 2
			}
		}
	}
	return 1
}

func encodeManifest(m *manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(b, "%s%08x\n", crcTag, crc32.ChecksumIEEE(b)), nil
}

func decodeManifest(b []byte) (manifest, error) {
	var m manifest
	i := bytes.LastIndex(b, []byte(crcTag))
	if i < 0 {
		return m, fmt.Errorf("no checksum line (truncated or not a gsql manifest)")
	}
	body, tail := b[:i], strings.TrimSpace(string(b[i+len(crcTag):]))
	want, err := strconv.ParseUint(tail, 16, 32)
	if err != nil {
		return m, fmt.Errorf("bad checksum line %q", tail)
	}
	if got := crc32.ChecksumIEEE(body); got != uint32(want) {
		return m, fmt.Errorf("checksum mismatch (file says %08x, contents give %08x)", want, got)
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return m, fmt.Errorf("bad JSON: %w", err)
	}
	if m.Format != formatName {
		return m, fmt.Errorf("format %q is not %q", m.Format, formatName)
	}
	if m.Version < 1 || m.Version > FormatVersion {
		return m, fmt.Errorf("unsupported format version %d (this gsql reads version %d)", m.Version, FormatVersion)
	}
	return m, nil
}

// writeManifest commits m: temp file, fsync, rename, directory fsync.
func (s *Store) writeManifest(m *manifest) error {
	m.Version = neededVersion(m)
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.dir, manifestTemp)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, manifestName)); err != nil {
		return err
	}
	if err := syncDir(s.dir); err != nil {
		return &afterCommitError{err}
	}
	return nil
}

// afterCommitError is a failure after the manifest's rename: the commit
// may or may not be on disk.
type afterCommitError struct{ err error }

func (e *afterCommitError) Error() string {
	return fmt.Sprintf("syncing the directory after the commit: %v", e.err)
}
func (e *afterCommitError) Unwrap() error { return e.err }

// load maps every segment and builds the tables.
func (s *Store) load() error {
	for _, te := range s.man.Tables {
		cols, err := columnsOf(te)
		if err != nil {
			return &CorruptError{File: filepath.Join(s.dir, manifestName), Err: fmt.Errorf("table %s: %w", te.Name, err)}
		}
		schema := catalog.Schema(cols)
		keys, err := keysOf(te, cols)
		if err != nil {
			return &CorruptError{File: filepath.Join(s.dir, manifestName), Err: fmt.Errorf("table %s: %w", te.Name, err)}
		}
		t := &catalog.Table{Name: te.Name, Columns: cols, Keys: keys, Zones: [][]catalog.Zone{}}
		if len(te.Stats) == len(cols) {
			if t.Stats, err = statsOf(te.Stats); err != nil {
				return &CorruptError{File: filepath.Join(s.dir, manifestName), Table: te.Name, Err: err}
			}
		}
		for _, se := range te.Segments {
			rec, _, err := s.openSegment(se, schema, te.Name, false)
			if err != nil {
				var ce *CorruptError
				if errors.As(err, &ce) {
					ce.Table = te.Name
				}
				return err
			}
			t.Records = append(t.Records, rec)
			t.Rows += se.Rows
			if t.Zones != nil && len(se.Zones) == len(cols) {
				t.Zones = append(t.Zones, se.Zones)
			} else {
				t.Zones = nil
			}
		}
		s.loaded = append(s.loaded, t)
	}
	return nil
}

func columnsOf(te tableEntry) ([]catalog.Column, error) {
	cols := make([]catalog.Column, len(te.Columns))
	for i, c := range te.Columns {
		t, ok := coldata.ParseType(c.Type)
		if !ok || t == coldata.Null {
			return nil, fmt.Errorf("column %s: unknown type %q", c.Name, c.Type)
		}
		cols[i] = catalog.Column{Name: c.Name, Type: t, NotNull: c.NotNull, Default: c.Default, AutoIncrement: c.Auto}
	}
	return cols, nil
}

// keysOf resolves a stored table's keys against its columns.
func keysOf(te tableEntry, cols []catalog.Column) ([]catalog.Key, error) {
	var keys []catalog.Key
	for _, ke := range te.Keys {
		k := catalog.Key{Name: ke.Name, Primary: ke.Primary}
		for _, name := range ke.Columns {
			i := -1
			for j, c := range cols {
				if c.Name == name {
					i = j
				}
			}
			if i < 0 {
				return nil, fmt.Errorf("key %s: no column %s", ke.Name, name)
			}
			k.Columns = append(k.Columns, name)
			k.Cols = append(k.Cols, i)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// openSegment maps segment se of table and decodes its layout: a plain
// segment's record reads straight from the map, a compressed one's
// decompresses each column when a query first reads it (lazyRecord).
// For a segment just written (fresh), the checks are computed and
// returned; a segment of an older database may have none.
func (s *Store) openSegment(se segmentEntry, schema *arrow.Schema, table string, fresh bool) (arrow.Record, *segmentChecks, error) {
	path := filepath.Join(s.dir, se.File)
	if filepath.Base(se.File) != se.File || !isSegmentName(se.File) {
		return nil, nil, &CorruptError{File: filepath.Join(s.dir, manifestName), Err: fmt.Errorf("bad segment name %q", se.File)}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, &CorruptError{File: path, Err: err}
	}
	if fi.Size() != se.Bytes {
		return nil, nil, &CorruptError{File: path, Err: fmt.Errorf("segment is %d bytes, the manifest says %d (truncated or replaced)", fi.Size(), se.Bytes)}
	}
	data, err := mapFile(path)
	if err != nil {
		return nil, nil, &CorruptError{File: path, Err: err}
	}
	s.maps = append(s.maps, data)
	l, err := parseSegment(data, schema, se.Encodings, se.Rows)
	if err != nil {
		return nil, nil, &CorruptError{File: path, Err: err}
	}
	checks := se.Checks
	if fresh {
		checks = &segmentChecks{Meta: l.meta, Columns: make([]uint32, len(l.raw))}
		for i := range l.raw {
			checks.Columns[i] = l.columnCRC(i)
		}
	} else if checks != nil && checks.Meta != l.meta {
		return nil, nil, &CorruptError{File: path, Err: fmt.Errorf("metadata checksum mismatch (manifest says %08x, contents give %08x)", checks.Meta, l.meta)}
	}
	var rec arrow.Record
	if l.codec >= 0 || se.Encodings != nil {
		var crcs []uint32
		if checks != nil {
			crcs = checks.Columns
		}
		lr := newLazyRecord(l, path, table, crcs)
		if len(se.Zones) == len(l.raw) {
			lr.zones = se.Zones
		}
		rec = lr
	} else {
		cols := make([]arrow.Array, len(l.raw))
		for i := range cols {
			if cols[i], err = l.column(i); err != nil {
				return nil, nil, &CorruptError{File: path, Err: err}
			}
		}
		rec = array.NewRecord(schema, cols, se.Rows)
		s.mapped[rec] = true
	}
	s.segs[rec] = se
	return rec, checks, nil
}

// clean removes files no manifest names: segments of an interrupted commit,
// segments a commit replaced but had no time to remove, the temporary
// manifest.
func (s *Store) clean() error {
	keep := s.referenced(&s.man)
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	removed := false
	for _, e := range ents {
		n := e.Name()
		if n == manifestTemp || isSegmentName(n) && !keep[n] {
			if err := os.Remove(filepath.Join(s.dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			removed = true
		}
	}
	if removed {
		return syncDir(s.dir)
	}
	return nil
}

func (s *Store) referenced(m *manifest) map[string]bool {
	keep := map[string]bool{}
	for _, t := range m.Tables {
		for _, se := range t.Segments {
			keep[se.File] = true
		}
	}
	return keep
}

// Tables returns the tables read at Open, for catalog.Restore; their
// records are memory-mapped.
func (s *Store) Tables() []*catalog.Table { return s.loaded }

// Dir returns the database's directory.
func (s *Store) Dir() string { return s.dir }

// targetSegment is the row count up to which consecutive new records are
// merged into one segment, and segments at the end of a table are merged
// (compaction on commit): a CTAS or a registered table of many small
// batches becomes a few segments, not hundreds, and so does a long run of
// small INSERTs.
const targetSegment = 1 << 20

// smallSegment is the row count under which a table's last segment is
// compacted with the ones before it.
const smallSegment = 64 << 10

// Commit makes a catalog change durable (catalog.Persister): old is the
// table's snapshot before the change (nil for CREATE), nt the one after
// (nil for DROP). Records the store already holds keep their segments; the
// others are written as new segments, small consecutive ones merged, the
// table's last segments compacted, and nt's records replaced by records
// over the segments' memory maps. The old state stays on
// disk until the new manifest is renamed into place.
func (s *Store) Commit(old, nt *catalog.Table) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writableLocked(); err != nil {
		return err
	}
	next := s.man
	next.Generation++
	next.Tables = nil
	for _, t := range s.man.Tables {
		if (old == nil || !strings.EqualFold(t.Name, old.Name)) && (nt == nil || !strings.EqualFold(t.Name, nt.Name)) {
			next.Tables = append(next.Tables, t)
		}
	}
	var written []string
	added := map[arrow.Record]addedSegment{}
	var given []arrow.Record // nt's records as the catalog gave them
	stagedUsed := false
	defer func() {
		if err != nil {
			for _, f := range written {
				os.Remove(filepath.Join(s.dir, f))
			}
		}
	}()
	if nt != nil {
		te := tableEntry{Name: nt.Name}
		for _, c := range nt.Columns {
			if pt, ok := coldata.ParseType(c.Type.String()); !ok || pt != c.Type {
				return fmt.Errorf("column %s: type %s cannot be stored", c.Name, c.Type)
			}
			te.Columns = append(te.Columns, columnEntry{Name: c.Name, Type: c.Type.String(), NotNull: c.NotNull, Default: c.Default, Auto: c.AutoIncrement})
		}
		for _, k := range nt.Keys {
			te.Keys = append(te.Keys, keyEntry{Name: k.Name, Primary: k.Primary, Columns: k.Columns})
		}
		if len(nt.Stats) == len(nt.Columns) {
			te.Stats = statsEntries(nt.Stats)
		}
		haveZones := len(nt.Zones) == len(nt.Records)
		given = nt.Records
		schema := catalog.Schema(nt.Columns)
		// The table's records as segments-to-be: stored ones keep their
		// segment; new ones are grouped (consecutive, up to targetSegment
		// rows) and written below.
		type item struct {
			srcs []int // indexes into nt.Records
			se   *segmentEntry
			rows int64
		}
		var items []item
		for i, rec := range nt.Records {
			n := rec.NumRows()
			if n == 0 {
				continue
			}
			if se, ok := s.segs[rec]; ok {
				items = append(items, item{srcs: []int{i}, se: &se, rows: n})
				continue
			}
			if se, ok := s.staged[rec]; ok {
				items = append(items, item{srcs: []int{i}, se: &se, rows: n})
				stagedUsed = true
				continue
			}
			if k := len(items) - 1; k >= 0 && items[k].se == nil && items[k].rows+n <= targetSegment {
				items[k].srcs = append(items[k].srcs, i)
				items[k].rows += n
				continue
			}
			items = append(items, item{srcs: []int{i}, rows: n})
		}
		// Compaction of the tail, as a binary counter: while the last
		// segment is small and at least half the one before it, merge the
		// two (up to targetSegment rows). A run of single-row INSERTs keeps
		// O(log n) segments and writes each row O(log n) times; a large
		// INSERT stays a segment of its own.
		for len(items) >= 2 {
			x, y := items[len(items)-2], items[len(items)-1]
			if y.rows >= smallSegment || x.rows > 2*y.rows || x.rows+y.rows > targetSegment {
				break
			}
			items = append(items[:len(items)-2], item{srcs: append(append([]int(nil), x.srcs...), y.srcs...), rows: x.rows + y.rows})
		}
		var recs []arrow.Record
		var zones [][]catalog.Zone
		for _, it := range items {
			if it.se != nil {
				recs = append(recs, nt.Records[it.srcs[0]])
				zones = append(zones, it.se.Zones)
				te.Segments = append(te.Segments, *it.se)
				continue
			}
			var rec arrow.Record
			var z []catalog.Zone
			if len(it.srcs) == 1 {
				rec = nt.Records[it.srcs[0]]
				if haveZones {
					z = nt.Zones[it.srcs[0]]
				}
			} else {
				merged, err := mergeRecords(schema, nt.Records, it.srcs)
				if err != nil {
					return fmt.Errorf("merging records: %w", err)
				}
				rec = merged
			}
			if len(z) != len(nt.Columns) {
				z = catalog.ComputeZones(rec)
			}
			name := fmt.Sprintf("%s%012d%s", segPrefix, next.NextSegment, segSuffix)
			next.NextSegment++
			size, encs, err := writeSegment(filepath.Join(s.dir, name), rec, s.codec)
			if err != nil {
				return fmt.Errorf("writing segment %s: %w", name, err)
			}
			written = append(written, name)
			sum, err := fileCRC(filepath.Join(s.dir, name))
			if err != nil {
				return fmt.Errorf("reading back segment %s: %w", name, err)
			}
			se := segmentEntry{File: name, Rows: rec.NumRows(), Bytes: size, CRC32: sum, Zones: z, Encodings: encs}
			// The snapshot reads the segment back from its map: the
			// statement's heap copy of the rows can go.
			mapped, checks, err := s.openSegment(se, schema, nt.Name, true)
			if err != nil {
				return fmt.Errorf("reading back segment %s: %w", name, err)
			}
			se.Checks = checks
			heap := !s.mapped[mapped]
			delete(s.segs, mapped) // registered once the commit succeeds
			delete(s.mapped, mapped)
			added[mapped] = addedSegment{se, heap}
			recs = append(recs, mapped)
			zones = append(zones, z)
			te.Segments = append(te.Segments, se)
		}
		nt.Records = recs
		nt.Zones = zones
		for _, z := range zones {
			if len(z) != len(nt.Columns) {
				nt.Zones = nil
			}
		}
		next.Tables = append(next.Tables, te)
	}
	if len(written) > 0 || stagedUsed {
		// The segments' directory entries must be durable before the
		// manifest that names them.
		if err := syncDir(s.dir); err != nil {
			return fmt.Errorf("syncing %s: %w", s.dir, err)
		}
	}
	if err := s.writeManifest(&next); err != nil {
		var ac *afterCommitError
		if errors.As(err, &ac) {
			s.broken = err
			written = nil // the manifest that names them may be on disk
		}
		return fmt.Errorf("writing the manifest: %w", err)
	}
	for rec, a := range added {
		s.segs[rec] = a.entry
		if !a.heap {
			s.mapped[rec] = true
		}
	}
	s.man = next
	// The staged segments are the table's now (or, merged by the tail
	// compaction, no one's: removed below).
	for _, rec := range given {
		if se, ok := s.staged[rec]; ok {
			delete(s.staged, rec)
			s.segs[rec] = se
		}
	}
	// Remove segments no table names any more. Readers of older snapshots
	// keep their memory maps, which outlive the unlink.
	keep := s.referenced(&next)
	for rec, se := range s.segs {
		if !keep[se.File] {
			delete(s.segs, rec)
			delete(s.mapped, rec)
			os.Remove(filepath.Join(s.dir, se.File))
		}
	}
	return nil
}

// Stage writes rec, a batch of table's rows, as a segment ahead of the
// statement that will commit it, so that a large load (an import) need not
// hold the whole table in memory until its commit. It returns a record over
// the segment, which the caller holds in place of rec: a later Commit of a
// table holding that record keeps the segment instead of writing it again.
// Until then no manifest names the segment: Unstage removes it when the
// statement fails, and a crash leaves it for the next Open to remove.
func (s *Store) Stage(table string, rec arrow.Record) (arrow.Record, error) {
	s.mu.Lock()
	if err := s.writableLocked(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	// The number is taken now; the next manifest written records it.
	name := fmt.Sprintf("%s%012d%s", segPrefix, s.man.NextSegment, segSuffix)
	s.man.NextSegment++
	codec := s.codec
	s.mu.Unlock()
	path := filepath.Join(s.dir, name)
	zones := catalog.ComputeZones(rec)
	// A compressed segment's statistics are computed now, from the rows
	// in memory: its columns would otherwise be decompressed for them. A
	// plain segment's are read from its map when the table is made.
	var stats []catalog.ColumnStats
	if codec != CodecNone && codec != "" {
		stats = catalog.RecordStats(rec)
	}
	size, encs, err := writeSegment(path, rec, codec)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("writing segment %s: %w", name, err)
	}
	sum, err := fileCRC(path)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("reading back segment %s: %w", name, err)
	}
	se := segmentEntry{File: name, Rows: rec.NumRows(), Bytes: size, CRC32: sum, Zones: zones, Encodings: encs}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writableLocked(); err != nil {
		os.Remove(path)
		return nil, err
	}
	mapped, checks, err := s.openSegment(se, rec.Schema(), table, true)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("reading back segment %s: %w", name, err)
	}
	se.Checks = checks
	if lr, ok := mapped.(*lazyRecord); ok {
		lr.stats = stats
	}
	delete(s.segs, mapped) // not committed yet
	if s.staged == nil {
		s.staged = map[arrow.Record]segmentEntry{}
	}
	s.staged[mapped] = se
	return mapped, nil
}

// Unstage removes the staged segments of recs (records Stage returned that
// no commit took); other records are left alone.
func (s *Store) Unstage(recs []arrow.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range recs {
		if se, ok := s.staged[rec]; ok {
			delete(s.staged, rec)
			delete(s.mapped, rec)
			os.Remove(filepath.Join(s.dir, se.File))
		}
	}
}

// fileCRC returns the CRC32 (IEEE) of a file's contents.
func fileCRC(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// writableLocked reports why the store cannot commit, if it cannot; s.mu
// is held.
func (s *Store) writableLocked() error {
	switch {
	case s.closed:
		return errors.New("database is closed")
	case s.readOnly:
		return ErrReadOnly
	case s.broken != nil:
		return fmt.Errorf("an earlier commit failed in an unknown state (%v); reopen the database", s.broken)
	}
	return nil
}

// CommitSchema implements catalog.SchemaPersister: a new manifest with the
// given views and indexes and the same tables, committed as Commit does.
func (s *Store) CommitSchema(views []catalog.ViewDef, indexes []catalog.IndexDef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writableLocked(); err != nil {
		return err
	}
	next := s.man
	next.Generation++
	next.Views, next.Indexes = views, indexes
	if err := s.writeManifest(&next); err != nil {
		var ac *afterCommitError
		if errors.As(err, &ac) {
			s.broken = err
		}
		return fmt.Errorf("writing the manifest: %w", err)
	}
	s.man = next
	return nil
}

// CommitDrop implements catalog.DropPersister: one new manifest without
// the given tables, with the given views and indexes (the schema after the
// drop), so that a DROP of several tables commits all of them or none.
func (s *Store) CommitDrop(tables []*catalog.Table, views []catalog.ViewDef, indexes []catalog.IndexDef) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writableLocked(); err != nil {
		return err
	}
	gone := map[string]bool{}
	for _, t := range tables {
		gone[strings.ToLower(t.Name)] = true
	}
	next := s.man
	next.Generation++
	next.Tables = nil
	for _, t := range s.man.Tables {
		if !gone[strings.ToLower(t.Name)] {
			next.Tables = append(next.Tables, t)
		}
	}
	next.Views, next.Indexes = views, indexes
	if err := s.writeManifest(&next); err != nil {
		var ac *afterCommitError
		if errors.As(err, &ac) {
			s.broken = err
		}
		return fmt.Errorf("writing the manifest: %w", err)
	}
	s.man = next
	keep := s.referenced(&next)
	for rec, se := range s.segs {
		if !keep[se.File] {
			delete(s.segs, rec)
			delete(s.mapped, rec)
			os.Remove(filepath.Join(s.dir, se.File))
		}
	}
	return nil
}

// Schema returns the views and indexes the database was opened with.
func (s *Store) Schema() ([]catalog.ViewDef, []catalog.IndexDef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.man.Views, s.man.Indexes
}

// Verify reads every segment of the committed state in full and checks
// its size and checksum against the manifest, reporting the first damaged
// file as a CorruptError. It returns the number of segments and bytes read.
func (s *Store) Verify(ctx context.Context) (segments int, bytes int64, err error) {
	s.mu.Lock()
	man := s.man
	s.mu.Unlock()
	for _, t := range man.Tables {
		for _, se := range t.Segments {
			if err := ctx.Err(); err != nil {
				return segments, bytes, err
			}
			path := filepath.Join(s.dir, se.File)
			fi, err := os.Stat(path)
			if err != nil {
				return segments, bytes, &CorruptError{File: path, Err: err}
			}
			if fi.Size() != se.Bytes {
				return segments, bytes, &CorruptError{File: path, Err: fmt.Errorf("segment is %d bytes, the manifest says %d", fi.Size(), se.Bytes)}
			}
			sum, err := fileCRC(path)
			if err != nil {
				return segments, bytes, &CorruptError{File: path, Err: err}
			}
			if sum != se.CRC32 {
				return segments, bytes, &CorruptError{File: path, Err: fmt.Errorf("checksum mismatch (manifest says %08x, contents give %08x): table %s", se.CRC32, sum, t.Name)}
			}
			segments++
			bytes += se.Bytes
		}
	}
	return segments, bytes, nil
}

// Close releases the write lock and unmaps the segments. Records read from
// the database (and query results sharing their data) must not be used
// after Close.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.release()
}

func (s *Store) release() error {
	var err error
	for _, m := range s.maps {
		if e := unmap(m); e != nil && err == nil {
			err = e
		}
	}
	s.maps = nil
	s.segs = nil
	s.loaded = nil
	if s.lock != nil {
		if e := unlockFile(s.lock); e != nil && err == nil {
			err = e
		}
		s.lock = nil
	}
	return err
}

// mergeRecords concatenates recs[i] for i in idx into one record.
func mergeRecords(schema *arrow.Schema, recs []arrow.Record, idx []int) (arrow.Record, error) {
	batches := make([]*coldata.Batch, len(idx))
	for k, i := range idx {
		b, err := coldata.RecordToBatch(recs[i])
		if err != nil {
			return nil, err
		}
		batches[k] = b
	}
	return coldata.BatchToRecord(schema, coldata.Concat(batches, len(schema.Fields()))), nil
}
