package shell

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar draws "label [#####.....]  45%  12.0/27.0 MiB" on one line of
// a terminal, redrawn in place with '\r'.
type progressBar struct {
	w     io.Writer
	label string
	start time.Time
	last  int // last percentage drawn
	drawn bool
}

func (p *progressBar) update(read, total int64) {
	if total <= 0 {
		return
	}
	pct := int(read * 100 / total)
	if pct > 100 {
		pct = 100
	}
	if p.drawn && pct == p.last {
		return
	}
	p.last, p.drawn = pct, true
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %.1f/%.1f MiB", p.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		pct, float64(read)/(1<<20), float64(total)/(1<<20))
}

func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprintf(p.w, " %.1fs\n", time.Since(p.start).Seconds())
	}
}
