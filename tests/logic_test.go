package tests

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"

	gsql "github.com/gsqlengine/gsql"
	"github.com/gsqlengine/gsql/gpuexec"
)

// gsqlEngine adapts *gsql.DB to the runner's Engine interface.
type gsqlEngine struct{ db *gsql.DB }

func (e gsqlEngine) Exec(ctx context.Context, sql string) error {
	_, err := e.db.Exec(ctx, sql)
	return err
}

func (e gsqlEngine) Query(ctx context.Context, sql string) (array.RecordReader, error) {
	return e.db.Query(ctx, sql)
}

// testDevice is the device the regression files run on: GSQL_TEST_DEVICE
// (gpu, cpu or auto), default cpu.
func testDevice() string {
	if d := strings.TrimSpace(os.Getenv("GSQL_TEST_DEVICE")); d != "" {
		return d
	}
	return "cpu"
}

// engineNames are the names skipif/onlyif match on a device: also
// gsql-<device>, so a record can name what one backend does not do yet
// (with a reason in the file).
func engineNames(device string) []string {
	return append(append([]string(nil), DefaultEngineNames...), "gsql-"+device)
}

// testFiles lists tests/sql/**/*.test relative to the package directory.
func testFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("sql", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".test") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list regression files: %v", err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no regression files under tests/sql")
	}
	return files
}

// TestSQLLogic runs every regression file against a fresh database.
func TestSQLLogic(t *testing.T) {
	device := testDevice()
	for _, path := range testFiles(t) {
		name := strings.TrimPrefix(filepath.ToSlash(path), "sql/")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db, err := gsql.Open(gsql.Options{Device: device})
			if err != nil {
				t.Fatalf("open database on device %q: %v", device, err)
			}
			defer db.Close()
			r := &Runner{Engine: gsqlEngine{db}, Names: engineNames(device), Timeout: recordTimeout(device)}
			sum, err := r.RunFile(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range sum.Failures {
				t.Error(f.Error())
			}
			t.Logf("%s: %d statements, %d queries, %d explains, %d skipped, %d failed",
				path, sum.Statements, sum.Queries, sum.Explains, sum.Skipped, len(sum.Failures))
		})
	}
}

// diskEngine runs statements on an on-disk database and reopens it after
// each one, so that every query reads tables from their memory-mapped
// segments and every change must have survived a close.
//
// Settings belong to a session, which ends with the database, so the
// engine keeps the SET statements that succeeded and runs them again in
// the reopened database.
type diskEngine struct {
	path string
	db   **gsql.DB
	sets *[]string
}

func (e diskEngine) Exec(ctx context.Context, sql string) error {
	_, err := (*e.db).Exec(ctx, sql)
	if err == nil && strings.HasPrefix(strings.ToUpper(strings.TrimSpace(sql)), "SET ") {
		*e.sets = append(*e.sets, sql)
	}
	if cerr := (*e.db).Close(); cerr != nil {
		return cerr
	}
	db, oerr := gsql.Open(gsql.Options{Device: testDevice(), Path: e.path})
	if oerr != nil {
		return oerr
	}
	*e.db = db
	for _, s := range *e.sets {
		if _, serr := db.Exec(ctx, s); serr != nil {
			return fmt.Errorf("replay %q after reopening: %w", s, serr)
		}
	}
	return err
}

func (e diskEngine) Query(ctx context.Context, sql string) (array.RecordReader, error) {
	return (*e.db).Query(ctx, sql)
}

// TestSQLLogicOnDisk runs every regression file against an on-disk
// database reopened after each statement (skipped with -short).
func TestSQLLogicOnDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("on-disk regression run skipped with -short")
	}
	device := testDevice()
	if device != "cpu" {
		// Each statement closes and reopens the database: keep the shared
		// GPU state (context, kernels, interpreter) across the gap.
		old := gpuexec.SetLinger(time.Minute)
		t.Cleanup(func() { gpuexec.SetLinger(old) })
	}
	for _, path := range testFiles(t) {
		name := strings.TrimPrefix(filepath.ToSlash(path), "sql/")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dbPath := filepath.Join(t.TempDir(), "db")
			db, err := gsql.Open(gsql.Options{Device: device, Path: dbPath})
			if err != nil {
				t.Fatalf("open database on device %q: %v", device, err)
			}
			defer func() { db.Close() }()
			r := &Runner{Engine: diskEngine{path: dbPath, db: &db, sets: new([]string)}, Names: engineNames(device), Timeout: recordTimeout(device)}
			sum, err := r.RunFile(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range sum.Failures {
				t.Error(f.Error())
			}
		})
	}
}

// recordTimeout bounds each record: strict GPU runs wait for the kernel
// compiles of every new query shape, dozens of them at once when the files
// run in parallel on an empty kernel cache.
func recordTimeout(device string) time.Duration {
	if device == "gpu" {
		return 2 * time.Minute
	}
	return 0
}
