package gsql_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gsql "github.com/gsqlengine/gsql"
)

// The crash test: a child process (this test binary, re-executed into
// TestCrashChild) runs numbered statements against an on-disk database and
// prints each number after Exec returns; the parent kills it with SIGKILL
// at a random moment, reopens the database and checks that it holds
// exactly the statements 1..C where C is the last number printed or the one
// after it (in flight when the kill came), never a part of one.
//
// GSQL_CRASH_KILLS sets the number of kills (default 200; 20 with -short).

// crashStmt is statement k of the child's deterministic sequence.
func crashStmt(k int) string {
	switch {
	case k == 1:
		return `CREATE TABLE log (stmt BIGINT NOT NULL, seq BIGINT NOT NULL, payload VARCHAR)`
	case k%7 == 3:
		// A table rewritten from another: new segments for a new snapshot.
		return fmt.Sprintf(`CREATE TABLE snap_%d AS SELECT stmt, seq FROM log WHERE stmt %% 3 = 0`, k)
	case k%7 == 5:
		return fmt.Sprintf(`DROP TABLE snap_%d`, k-2)
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO log VALUES `)
	for j := 0; j < crashRows(k); j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d, %d, '%s')", k, j, crashPayload(k, j))
	}
	return b.String()
}

func crashRows(k int) int {
	if k%11 == 0 {
		return 1000
	}
	return 1 + (k*7919)%40
}

func crashPayload(k, j int) string { return strings.Repeat("x", (k+j)%17) + "-" + strconv.Itoa(k) }

// crashState is a database's contents in a comparable form.
type crashState struct {
	tables  string         // sorted names
	perStmt map[int]int    // log rows per statement
	payload int            // total payload bytes
	snaps   map[string]int // snapshot table -> rows
}

func (s crashState) String() string {
	keys := make([]int, 0, len(s.perStmt))
	for k := range s.perStmt {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	last := ""
	if n := len(keys); n > 0 {
		last = fmt.Sprintf(" last stmt %d (%d rows)", keys[n-1], s.perStmt[keys[n-1]])
	}
	return fmt.Sprintf("tables [%s], %d statements in log%s, payload %d, snapshots %v", s.tables, len(keys), last, s.payload, s.snaps)
}

func (s crashState) equal(o crashState) bool {
	return s.tables == o.tables && s.payload == o.payload && fmt.Sprint(s.perStmt) == fmt.Sprint(o.perStmt) && fmt.Sprint(s.snaps) == fmt.Sprint(o.snaps)
}

// modelState is the state after statements 1..c.
func modelState(c int) crashState {
	st := crashState{perStmt: map[int]int{}, snaps: map[string]int{}}
	var names []string
	if c >= 1 {
		names = append(names, "log")
	}
	for k := 2; k <= c; k++ {
		switch {
		case k%7 == 3:
			n := 0
			for s, rows := range st.perStmt {
				if s%3 == 0 {
					n += rows
				}
			}
			st.snaps[fmt.Sprintf("snap_%d", k)] = n
		case k%7 == 5:
			delete(st.snaps, fmt.Sprintf("snap_%d", k-2))
		default:
			st.perStmt[k] = crashRows(k)
			for j := 0; j < crashRows(k); j++ {
				st.payload += len(crashPayload(k, j))
			}
		}
	}
	for n := range st.snaps {
		names = append(names, n)
	}
	sort.Strings(names)
	st.tables = strings.Join(names, ",")
	return st
}

func readState(t *testing.T, db *gsql.DB) crashState {
	t.Helper()
	st := crashState{perStmt: map[int]int{}, snaps: map[string]int{}}
	names := db.Tables()
	sort.Strings(names)
	st.tables = strings.Join(names, ",")
	for _, n := range names {
		if n == "log" {
			for _, r := range rowsOf(t, db, `SELECT stmt, COUNT(*) FROM log GROUP BY stmt`) {
				a, b, _ := strings.Cut(r, "|")
				k, _ := strconv.Atoi(a)
				c, _ := strconv.Atoi(b)
				st.perStmt[k] = c
			}
			st.payload, _ = strconv.Atoi(rowsOf(t, db, `SELECT COALESCE(SUM(LENGTH(payload)), 0) FROM log`)[0])
			continue
		}
		c, _ := strconv.Atoi(rowsOf(t, db, `SELECT COUNT(*) FROM `+n)[0])
		st.snaps[n] = c
	}
	return st
}

// TestCrashChild is the child's side; it runs only when the parent sets
// GSQL_CRASH_DIR.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv("GSQL_CRASH_DIR")
	if dir == "" {
		t.Skip("the crash test's child process")
	}
	start, _ := strconv.Atoi(os.Getenv("GSQL_CRASH_START"))
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: dir})
	if err != nil {
		fmt.Printf("error %v\n", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	for k := start; ; k++ {
		if _, err := db.Exec(context.Background(), crashStmt(k)); err != nil {
			fmt.Printf("error statement %d: %v\n", k, err)
			os.Exit(3)
		}
		fmt.Println("commit", k)
	}
}

func TestCrashRecovery(t *testing.T) {
	if os.Getenv("GSQL_CRASH_DIR") != "" {
		t.Skip("in the child")
	}
	kills := 200
	if testing.Short() {
		kills = 20
	}
	if s := os.Getenv("GSQL_CRASH_KILLS"); s != "" {
		var err error
		if kills, err = strconv.Atoi(s); err != nil {
			t.Fatalf("GSQL_CRASH_KILLS: %v", err)
		}
	}
	dir := filepath.Join(t.TempDir(), "crash.db")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	committed := 0 // statements 1..committed are in the database
	started := time.Now()
	midCommit := 0 // kills that came with a statement in flight that did commit
	for i := 0; i < kills; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "GSQL_CRASH_DIR="+dir, "GSQL_CRASH_START="+strconv.Itoa(committed+1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill at a random moment: mostly while statements run, sometimes
		// while the child is still opening the database.
		var delay time.Duration
		if rng.Intn(10) > 0 {
			for l := range lines {
				if l == "ready" {
					break
				}
				if strings.HasPrefix(l, "error") {
					t.Fatalf("child: %s", l)
				}
			}
			delay = time.Duration(rng.Intn(150_000)) * time.Microsecond
		} else {
			delay = time.Duration(rng.Intn(20_000)) * time.Microsecond
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		reported := committed
		for l := range lines {
			if strings.HasPrefix(l, "error") {
				t.Fatalf("child: %s", l)
			}
			if n, ok := strings.CutPrefix(l, "commit "); ok {
				k, _ := strconv.Atoi(n)
				if k != reported+1 {
					t.Fatalf("child reported statement %d after %d", k, reported)
				}
				reported = k
			}
		}
		cmd.Wait()
		if os.Getenv("GSQL_CRASH_DEBUG") != "" {
			t.Logf("kill %d after %v: statements %d..%d reported", i, delay, committed+1, reported)
		}

		db, err := gsql.Open(gsql.Options{Device: "cpu", Path: dir})
		if err != nil {
			t.Fatalf("kill %d: reopen after the kill: %v", i, err)
		}
		got := readState(t, db)
		db.Close()
		switch {
		case got.equal(modelState(reported)):
			committed = reported
		case got.equal(modelState(reported + 1)):
			committed = reported + 1
			midCommit++
		default:
			t.Fatalf("kill %d: the database holds neither statements 1..%d nor 1..%d:\n got  %v\n want %v\n or   %v",
				i, reported, reported+1, got, modelState(reported), modelState(reported+1))
		}
	}
	// Leftovers of interrupted commits are gone after the last open.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("leftover %s after reopen", e.Name())
		}
	}
	t.Logf("%d kills in %v: %d statements committed, %d kills after a statement committed but before it was reported",
		kills, time.Since(started).Round(time.Millisecond), committed, midCommit)
	if committed < kills/4 {
		t.Errorf("only %d statements committed in %d runs: the child barely ran", committed, kills)
	}
}

// TestLockHeldByAnotherProcess: while a child process writes, opening the
// database for writing fails naming the child's process id; a read-only
// open works; after the child dies its lock is gone.
func TestLockHeldByAnotherProcess(t *testing.T) {
	if os.Getenv("GSQL_CRASH_DIR") != "" {
		t.Skip("in the child")
	}
	dir := filepath.Join(t.TempDir(), "locked.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GSQL_CRASH_DIR="+dir, "GSQL_CRASH_START=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "commit 1") {
	}
	_, err = gsql.Open(gsql.Options{Device: "cpu", Path: dir})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("process %d holds", cmd.Process.Pid)) {
		t.Errorf("open while process %d writes: %v", cmd.Process.Pid, err)
	}
	ro, err := gsql.Open(gsql.Options{Device: "cpu", Path: dir, ReadOnly: true})
	if err != nil {
		t.Errorf("read-only open while another process writes: %v", err)
	} else {
		if tables := ro.Tables(); len(tables) == 0 || tables[0] != "log" {
			t.Errorf("read-only handle sees tables %v", tables)
		}
		ro.Close()
	}
	cmd.Process.Signal(syscall.SIGKILL)
	go func() {
		for sc.Scan() {
		}
	}()
	cmd.Wait()
	db, err := gsql.Open(gsql.Options{Device: "cpu", Path: dir})
	if err != nil {
		t.Fatalf("open after the writer died: %v", err)
	}
	db.Close()
}
