package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/gsqlengine/gsql/datagen/clickbench"
)

// Cold runs: the first run of a query in a fresh process, what a person
// meets who opens a database and types a query nobody ran on this machine.
// The suite starts itself once per engine and query as a child
// ("cold-one"): the child generates the table, loads it (and makes it
// resident on the GPU), then times the query's first run. GPU engines get
// a kernel cache that holds what any earlier use of gsql on the machine
// leaves (the interpreter and the runtime module, compiled by a
// "cold-prime" child) and none of the query's own kernels.

// coldSpec is what a cold child runs.
type coldSpec struct {
	Suite  string `json:"suite,omitempty"` // "" (micro) or "clickbench"
	Engine string `json:"engine"`
	Query  string `json:"query"`
	Rows   int    `json:"rows"`
	Seed   int64  `json:"seed"`
}

// coldOutcome is what a cold child reports on its stdout.
type coldOutcome struct {
	Ms    float64 `json:"ms"`
	Error string  `json:"error,omitempty"`
}

const (
	coldOneCmd   = "cold-one"
	coldPrimeCmd = "cold-prime"
)

// runChild runs a cold child's command; ok is false when args name none.
func runChild(ctx context.Context, args []string, stdout io.Writer) (ok bool, err error) {
	if len(args) == 0 {
		return false, nil
	}
	switch args[0] {
	case coldPrimeCmd:
		e, err := openEngine("gsql-gpu")
		if err != nil {
			return true, err
		}
		defer e.Close()
		return true, e.(gsqlGPU).db.WaitGPU(ctx)
	case coldOneCmd:
		if len(args) != 2 {
			return true, fmt.Errorf("%s wants one JSON argument", coldOneCmd)
		}
		var spec coldSpec
		if err := json.Unmarshal([]byte(args[1]), &spec); err != nil {
			return true, fmt.Errorf("%s: %w", coldOneCmd, err)
		}
		out := coldOutcome{}
		if ms, err := coldOne(ctx, spec); err != nil {
			out.Error = err.Error()
		} else {
			out.Ms = ms
		}
		return true, json.NewEncoder(stdout).Encode(out)
	}
	return false, nil
}

// coldOne loads spec's table into a new engine and times the query's
// first run.
func coldOne(ctx context.Context, spec coldSpec) (float64, error) {
	var (
		q      benchQuery
		schema *arrow.Schema
		recs   []arrow.Record
	)
	switch spec.Suite {
	case "":
		qs, err := selectQueries(spec.Query)
		if err != nil {
			return 0, err
		}
		q = qs[0]
		schema, recs = generate(q.Table, spec.Rows, spec.Seed)
	case "clickbench":
		qs, err := clickbenchQueries(spec.Query)
		if err != nil {
			return 0, err
		}
		q = qs[0]
		g, err := clickbench.New(int64(spec.Rows), uint64(spec.Seed))
		if err != nil {
			return 0, err
		}
		if recs, err = g.Records(ctx); err != nil {
			return 0, err
		}
		schema = clickbench.Schema()
	default:
		return 0, fmt.Errorf("%s: no cold runs for suite %q", coldOneCmd, spec.Suite)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	e, err := openEngine(spec.Engine)
	if err != nil {
		return 0, err
	}
	defer e.Close()
	if err := e.Load(ctx, q.Table, schema, recs); err != nil {
		return 0, err
	}
	if g, ok := e.(gsqlGPU); ok {
		// The table resident and the precompiled tier loaded, as after
		// any earlier query of the session: not part of the query's time.
		// A GPU filter over every column uploads them all.
		var conds []string
		for _, f := range schema.Fields() {
			conds = append(conds, f.Name+" IS NULL")
		}
		if _, err := e.Run(ctx, "SELECT COUNT(*) FROM "+q.Table+" WHERE "+strings.Join(conds, " AND "), nil); err != nil {
			return 0, err
		}
		if err := g.db.WaitGPU(ctx); err != nil {
			return 0, err
		}
	}
	t0 := time.Now()
	if _, err := e.Run(ctx, q.sqlFor(spec.Engine), nil); err != nil {
		return 0, err
	}
	return ms(time.Since(t0)), nil
}

// coldRunner starts cold children.
type coldRunner struct {
	exe   string
	seed  string // kernel cache primed with the interpreter (GPU engines)
	stage string // parent of the children's kernel caches
}

// newColdRunner primes a kernel cache when a GPU engine runs.
func newColdRunner(ctx context.Context, engines []string, stderr io.Writer) (*coldRunner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cold runs: %w", err)
	}
	stage, err := os.MkdirTemp("", "gsql-bench-cold")
	if err != nil {
		return nil, fmt.Errorf("cold runs: %w", err)
	}
	c := &coldRunner{exe: exe, stage: stage}
	for _, e := range engines {
		if strings.HasPrefix(e, "gsql-gpu") {
			c.seed = filepath.Join(stage, "seed")
			t0 := time.Now()
			if err := c.child(ctx, c.seed, []string{coldPrimeCmd}, nil); err != nil {
				c.Close()
				return nil, fmt.Errorf("priming the kernel cache: %w", err)
			}
			fmt.Fprintf(stderr, "cold runs: kernel cache primed with the interpreter in %.1fs\n", time.Since(t0).Seconds())
			break
		}
	}
	return c, nil
}

// Close removes the children's kernel caches.
func (c *coldRunner) Close() error { return os.RemoveAll(c.stage) }

// child runs the executable with args, XDG_CACHE_HOME=cache.
func (c *coldRunner) child(ctx context.Context, cache string, args []string, stdout io.Writer) error {
	cmd := exec.CommandContext(ctx, c.exe, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// run times one cold run of spec in a child with a fresh copy of the
// primed kernel cache.
func (c *coldRunner) run(ctx context.Context, spec coldSpec) (float64, error) {
	cache, err := os.MkdirTemp(c.stage, "run")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(cache)
	if c.seed != "" && strings.HasPrefix(spec.Engine, "gsql-gpu") {
		if err := copyTree(c.seed, cache); err != nil {
			return 0, fmt.Errorf("copying the primed kernel cache: %w", err)
		}
	}
	arg, err := json.Marshal(spec)
	if err != nil {
		return 0, err
	}
	var out bytes.Buffer
	if err := c.child(ctx, cache, []string{coldOneCmd, string(arg)}, &out); err != nil {
		return 0, err
	}
	var res coldOutcome
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return 0, fmt.Errorf("cold child's answer %q: %w", out.String(), err)
	}
	if res.Error != "" {
		return 0, errors.New(res.Error)
	}
	return res.Ms, nil
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
}

// measure times the cold run of q at rows rows on the engine of each
// result row, recording its time or why there is none.
func (c *coldRunner) measure(ctx context.Context, suite string, q benchQuery, rows int, seed int64, out []resultRow, stderr io.Writer) {
	for i := range out {
		r := &out[i]
		fmt.Fprintf(stderr, "%s @ %d rows on %s, cold ...\n", q.Name, rows, r.Engine)
		v, err := c.run(ctx, coldSpec{Suite: suite, Engine: r.Engine, Query: q.Name, Rows: rows, Seed: seed})
		if err != nil {
			r.ColdError = err.Error()
			continue
		}
		r.ColdMs = &v
	}
}
