package difftest

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestProbeFile(t *testing.T) {
	b, err := os.ReadFile("/tmp/probe.sql")
	if err != nil {
		t.Skip()
	}
	ctx := context.Background()
	for _, seed := range []int64{1, 2, 3, 1000003} {
		d := genDataset(seed)
		e, err := load(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "--") {
				continue
			}
			gq, sq, _ := strings.Cut(line, " ||| ")
			if sq == "" {
				sq = gq
			}
			gr := e.queryGSQL(ctx, gq)
			sr := e.querySQLite(ctx, sq)
			if why := diff(gr, sr, false); why != "" {
				t.Errorf("seed %d: %s\n%s\ngsql:\n%sSQLite:\n%s", seed, why, line, formatRows(gr, 8), formatRows(sr, 8))
			}
		}
		e.close()
	}
}
