package clienttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gsqlengine/gsql/server/files"
	"github.com/gsqlengine/gsql/server/mysql"
)

func TestFileAccess(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "people.csv")
	if err := os.WriteFile(csv, []byte("name,age\nAda,36\nBob,41\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(other, []byte("x\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Off by default.
	s := start(t, mysql.Config{})
	db := s.open(t, "root", "")
	_, err := db.Exec(`SELECT * FROM read_csv('` + csv + `')`)
	if me := mysqlErr(t, err); me.Number != 1227 {
		t.Fatalf("default: %v", me)
	}
	// Inside --files DIR only.
	s = start(t, mysql.Config{Files: files.Policy{Dir: dir}})
	db = s.open(t, "root", "")
	var n int
	if err := db.QueryRow(`SELECT SUM(age) FROM read_csv('` + csv + `')`).Scan(&n); err != nil || n != 77 {
		t.Fatalf("inside: %d, %v", n, err)
	}
	for _, stmt := range []string{
		`SELECT * FROM read_csv('` + other + `')`,
		`CREATE TABLE stolen AS SELECT * FROM read_csv('` + filepath.Join(dir, "..", filepath.Base(filepath.Dir(other)), "secret.csv") + `')`,
		"SELECT * FROM `__file__:" + other + "`",
	} {
		if _, err := db.Exec(stmt); mysqlErr(t, err).Number != 1227 {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
