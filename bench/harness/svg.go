package main

import (
	"bytes"
	"fmt"
	"html"
	"math"
)

// chartSVG draws the latency percentiles of every phase: percentiles
// along the x axis, milliseconds on a logarithmic y axis (phases differ
// by four orders of magnitude), one line per phase. Plain SVG written by
// hand: no plotting dependency for one chart.
func chartSVG(r *Report) []byte {
	const (
		width        = 960
		left, top    = 70, 50
		plotW, plotH = 520, 400
		legendX      = left + plotW + 30
		legendStep   = 38
	)
	palette := []string{"#2ca02c", "#e377c2", "#8c564b", "#9467bd"}
	labels := []string{"p50", "p90", "p99", "p99.9", "max"}

	var phases []Phase
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range r.Phases {
		v := percentiles(p)
		if v[len(v)-1] <= 0 || drawnByParts[p.Name] {
			continue // nothing answered, or its kinds have lines of their own
		}
		phases = append(phases, p)
		for _, x := range v {
			if x > 0 {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	height := max(520, top+8+len(phases)*legendStep)
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="bold">Latency percentiles per phase (ms, log scale)</text>`+"\n", left)
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#555">%s, %d CPUs, %s; load generator on the same cores</text>`+"\n",
		left, r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Machine.CPUs, html.EscapeString(r.Machine.GoVersion))
	if len(phases) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no phase answered</text></svg>`+"\n", left, top+plotH/2)
		return b.Bytes()
	}
	// Whole decades, so the grid lines are round numbers.
	dlo, dhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dhi == dlo {
		dhi++
	}
	y := func(v float64) float64 {
		v = math.Max(v, math.Pow(10, dlo))
		return top + plotH - (math.Log10(v)-dlo)/(dhi-dlo)*plotH
	}
	x := func(i int) float64 { return left + 30 + float64(i)*(plotW-60)/float64(len(labels)-1) }

	for d := dlo; d <= dhi; d++ {
		yy := y(math.Pow(10, d))
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, yy, left+plotW, yy)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", left-6, yy+4, decadeText(d))
	}
	for i, l := range labels {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`+"\n", x(i), top, x(i), top+plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(i), top+plotH+18, l)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", left, top, plotW, plotH)
	fmt.Fprintf(&b, `<text transform="translate(18,%d) rotate(-90)" text-anchor="middle" fill="#555">milliseconds</text>`+"\n", top+plotH/2)

	for k, p := range phases {
		color, ok := phaseColors[p.Name]
		if !ok {
			color = palette[k%len(palette)]
		}
		// Baselines are dashed, slotd's phases solid.
		dash := ""
		if p.Server != "slotd" {
			dash = ` stroke-dasharray="6 4"`
		}
		v := percentiles(p)
		var pts bytes.Buffer
		for i, val := range v {
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(i), y(val))
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", bytes.TrimSpace(pts.Bytes()), color, dash)
		for i, val := range v {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s: %s</title></circle>`+"\n",
				x(i), y(val), color, html.EscapeString(p.Name), labels[i], msText(val))
		}
		ly := top + 8 + k*legendStep
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`+"\n", legendX, ly, legendX+22, ly, color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", legendX+30, ly+4, html.EscapeString(p.Name))
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555" font-size="11">%s · %s/s · p99 %s</text>`+"\n", legendX+30, ly+18, p.Server, kText(p.RPS), msText(p.Latency.P99))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// phaseColors keep a phase's colour from run to run: a baseline and the
// slotd phase it is the denominator of in neighbouring hues.
var phaseColors = map[string]string{
	"static-hello": "#7f7f7f", "availability-day": "#17becf",
	"static-week": "#bcbd22", "availability-week": "#1f77b4",
	"pg-before": "#ff7f0e", "pg-after": "#ffbb78", "storm": "#d62728",
	"race":         "#9467bd",
	"pg-before-16": "#ff7f0e", "pg-after-16": "#ffbb78", "pg-before-64": "#e6550d", "pg-after-64": "#fdae6b",
	"mixed-read": "#3182bd", "mixed-booking": "#a50f15", "smtp-storm": "#fb6a4a", "tenancy": "#31a354",
	"storm-new": "#67000d", "tenancy-idle": "#74c476",
}

// drawnByParts are the phases whose kinds are phases of their own (a
// mixed load's reads and bookings): their line would mix the two.
var drawnByParts = map[string]bool{"mixed": true}

func percentiles(p Phase) []float64 {
	l := p.Latency
	return []float64{l.P50, l.P90, l.P99, l.P999, l.Max}
}

// decadeText labels 10^d milliseconds.
func decadeText(d float64) string {
	v := math.Pow(10, d)
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0fs", v/1000)
	case v >= 1:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%g", v)
	}
}
