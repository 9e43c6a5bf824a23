package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// A node's cluster counters, read from its admin /metrics (Prometheus
// text format; the cluster metrics carry no labels).

// NodeMetrics is one node's cluster counters at one moment.
type NodeMetrics struct {
	Node      string  `json:"node"`
	Owned     float64 `json:"ownedBusinesses"`
	Forwarded float64 `json:"forwardedRequests"`
	Served    float64 `json:"servedRequests"`
	Fenced    float64 `json:"fencingRefusals"`
	Appends   float64 `json:"journalAppends"`
	Error     string  `json:"error,omitempty"`
}

// scrape reads n's cluster counters; a failure is kept in Error.
func scrape(ctx context.Context, n *node) NodeMetrics {
	m := NodeMetrics{Node: n.name}
	status, _, body, err := control.get(ctx, n.admin+"/metrics", "Bearer "+adminToken)
	if err != nil || status != 200 {
		m.Error = describe(status, body, err)
		return m
	}
	fields := map[string]*float64{
		"slotd_cluster_owned_businesses":         &m.Owned,
		"slotd_cluster_forwarded_requests_total": &m.Forwarded,
		"slotd_cluster_served_requests_total":    &m.Served,
		"slotd_journal_fencing_refusals_total":   &m.Fenced,
		"slotd_journal_appends_total":            &m.Appends,
	}
	seen := 0
	for line := range strings.SplitSeq(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if dst := fields[name]; ok && dst != nil {
			if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
				*dst = v
				seen++
			}
		}
	}
	if seen < len(fields) {
		m.Error = fmt.Sprintf("only %d of the %d cluster metrics found", seen, len(fields))
	}
	return m
}

// scrapeAll reads the counters of every node still running.
func scrapeAll(ctx context.Context, nodes []*node) []NodeMetrics {
	var out []NodeMetrics
	for _, n := range nodes {
		if !n.p.Exited() {
			out = append(out, scrape(ctx, n))
		}
	}
	return out
}

// minus is m less an earlier reading of the same node: what happened in
// between (the gauge of owned businesses stays as it is now).
func (m NodeMetrics) minus(before NodeMetrics) NodeMetrics {
	m.Forwarded -= before.Forwarded
	m.Served -= before.Served
	m.Fenced -= before.Fenced
	m.Appends -= before.Appends
	return m
}
