package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
)

// chart is a horizontal bar chart of speedups (log scale, bars growing from
// 1x: right when faster than the baseline, left when slower).
type chart struct {
	Title    string
	Subtitle string
	Series   []string // bar series in legend order
	Groups   []chartGroup
}

type chartGroup struct {
	Label string
	Bars  []chartBar
}

type chartBar struct {
	Series string
	Value  float64 // speedup; <= 0 when there is no figure
	Note   string  // FAIL, ERROR: drawn in red instead of a plain bar
}

var seriesColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948"}

// chartFromReport charts every non-DuckDB engine's speedup over DuckDB.
func chartFromReport(rep *report) chart {
	c := chart{
		Title:    "gsql speedup over DuckDB (median of warm runs; log scale; > 1x is faster)",
		Subtitle: fmt.Sprintf("%s, %d cores, %s", rep.CPUModel, rep.Cores, rep.Date),
	}
	seen := map[string]bool{}
	index := map[string]int{}
	for _, r := range rep.Results {
		if r.Engine == "duckdb" {
			continue
		}
		if !seen[r.Engine] {
			seen[r.Engine] = true
			c.Series = append(c.Series, r.Engine)
		}
		label := fmt.Sprintf("%s @ %s", r.Query, human(float64(r.Rows)))
		g, ok := index[label]
		if !ok {
			g = len(c.Groups)
			index[label] = g
			c.Groups = append(c.Groups, chartGroup{Label: label})
		}
		b := chartBar{Series: r.Engine, Value: r.SpeedupVsDuckDB}
		if r.Status != statusOK {
			b.Note = r.Status
		}
		if r.GPUOps != nil && *r.GPUOps == 0 {
			b.Note = "ALL CPU"
		}
		c.Groups[g].Bars = append(c.Groups[g].Bars, b)
	}
	// One more group per size: the geometric mean of the speedups over
	// the queries every engine answered correctly.
	index = map[string]int{}
	for _, s := range rep.Summary {
		if s.Engine == "duckdb" || s.SpeedupVsDuckDB <= 0 {
			continue
		}
		label := fmt.Sprintf("geomean (%d queries) @ %s", s.Queries, human(float64(s.Rows)))
		g, ok := index[label]
		if !ok {
			g = len(c.Groups)
			index[label] = g
			c.Groups = append(c.Groups, chartGroup{Label: label})
		}
		c.Groups[g].Bars = append(c.Groups[g].Bars, chartBar{Series: s.Engine, Value: s.SpeedupVsDuckDB})
	}
	return c
}

// writeSVG renders the chart as a standalone SVG document.
func writeSVG(w io.Writer, c chart) error {
	const (
		width    = 960
		labelW   = 250
		rightPad = 90
		barH     = 13
		groupPad = 8
		top      = 78
		axisH    = 30
	)
	lo, hi := 0.1, 10.0
	for _, g := range c.Groups {
		for _, b := range g.Bars {
			if b.Value > 0 && !math.IsInf(b.Value, 0) {
				lo, hi = math.Min(lo, b.Value), math.Max(hi, b.Value)
			}
		}
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)))
	plotW := float64(width - labelW - rightPad)
	x := func(v float64) float64 {
		v = math.Min(math.Max(v, lo), hi)
		return labelW + (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*plotW
	}
	color := map[string]string{}
	for i, s := range c.Series {
		color[s] = seriesColors[i%len(seriesColors)]
	}
	plotH := 0
	for _, g := range c.Groups {
		plotH += len(g.Bars)*barH + groupPad
	}
	height := top + plotH + axisH + 10

	var buf bytes.Buffer
	fmt.Fprintf(&buf, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&buf, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&buf, `<text x="10" y="20" font-size="15" font-weight="bold">%s</text>`+"\n", esc(c.Title))
	fmt.Fprintf(&buf, `<text x="10" y="38" fill="#555">%s</text>`+"\n", esc(c.Subtitle))
	// Legend.
	lx := 10.0
	for _, s := range c.Series {
		fmt.Fprintf(&buf, `<rect x="%.0f" y="50" width="12" height="12" fill="%s"/><text x="%.0f" y="60">%s</text>`+"\n", lx, color[s], lx+16, esc(s))
		lx += 30 + 7*float64(len(s))
	}
	// Grid lines and ticks.
	axisY := float64(top + plotH)
	for p := lo; p <= hi*1.0001; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := p * m
			if v > hi*1.0001 {
				break
			}
			stroke, sw := "#ddd", 1.0
			if math.Abs(v-1) < 1e-9 {
				stroke, sw = "#333", 1.5
			}
			fmt.Fprintf(&buf, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n", x(v), top-4, x(v), axisY, stroke, sw)
			fmt.Fprintf(&buf, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%sx</text>`+"\n", x(v), axisY+14, trimZero(fmt.Sprintf("%g", v)))
		}
	}
	// Bars.
	y := float64(top)
	for _, g := range c.Groups {
		gh := float64(len(g.Bars) * barH)
		fmt.Fprintf(&buf, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", labelW-8, y+gh/2+4, esc(g.Label))
		for _, b := range g.Bars {
			if b.Value > 0 {
				x0, x1 := x(1), x(b.Value)
				if x1 < x0 {
					x0, x1 = x1, x0
				}
				fill, stroke := color[b.Series], "none"
				if b.Note != "" {
					stroke = "#d00"
				}
				fmt.Fprintf(&buf, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" stroke="%s" stroke-width="2"><title>%s: %.2fx</title></rect>`+"\n",
					x0, y+1, math.Max(x1-x0, 1), barH-2, fill, stroke, esc(b.Series), b.Value)
			}
			label := ""
			if b.Value > 0 {
				label = fmt.Sprintf("%.2fx", b.Value)
			}
			if b.Note != "" {
				label += " " + b.Note
			}
			tx, anchor := x(math.Max(b.Value, 1))+4, "start"
			if b.Value > 0 && b.Value < 1 {
				tx, anchor = x(1)+4, "start"
			}
			fill := "#222"
			if b.Note != "" {
				fill = "#d00"
			}
			fmt.Fprintf(&buf, `<text x="%.1f" y="%.1f" text-anchor="%s" fill="%s" font-size="10">%s</text>`+"\n", tx, y+barH-3, anchor, fill, esc(label))
			y += barH
		}
		y += groupPad
	}
	buf.WriteString("</svg>\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// esc escapes text for XML.
func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
