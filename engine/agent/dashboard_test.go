package agent

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// dashboardPath is the Grafana dashboard the docs tell users to import.
const dashboardPath = "../../examples/observability/grafana/tenon.json"

// scrapeLabels are the labels Prometheus adds to every series it scrapes (the agent does not
// register them); a dashboard may match and group by them.
var scrapeLabels = []string{"job", "instance"}

// grafanaVars are Grafana's built-in interval variables, which PromQL cannot parse: each is
// replaced by a duration before parsing. Dashboard variables such as $job only appear inside
// label matcher strings, where PromQL takes them as text.
var grafanaVars = regexp.MustCompile(`\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}`)

// labelValuesQuery is Grafana's label_values(selector, label) variable query.
var labelValuesQuery = regexp.MustCompile(`^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

// legendLabel is a {{label}} reference in a legend format.
var legendLabel = regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)

// seriesCatalog is what the agent serves: each series name and the labels a query may use with
// it (its registered labels, the scrape labels, and le for a histogram's _bucket series).
type seriesCatalog map[string]map[string]bool

func newSeriesCatalog(ms []metricDoc) seriesCatalog {
	c := seriesCatalog{}
	add := func(name string, extra []string, ls ...string) {
		set := map[string]bool{}
		for _, l := range slices.Concat(ls, scrapeLabels, extra) {
			set[l] = true
		}
		c[name] = set
	}
	for _, m := range ms {
		if m.kind != "histogram" {
			add(m.name, nil, m.labels...)
			continue
		}
		add(m.name+"_bucket", []string{"le"}, m.labels...)
		add(m.name+"_sum", nil, m.labels...)
		add(m.name+"_count", nil, m.labels...)
	}
	return c
}

// dashboardQuery is one PromQL query of a dashboard: a panel target (with its legend format)
// or a variable's label_values query.
type dashboardQuery struct {
	where, expr, legend string
	// label is the label a label_values variable query lists.
	label string
}

type grafanaPanel struct {
	Title   string         `json:"title"`
	Panels  []grafanaPanel `json:"panels"`
	Targets []struct {
		RefID  string `json:"refId"`
		Expr   string `json:"expr"`
		Legend string `json:"legendFormat"`
	} `json:"targets"`
}

// dashboardQueries reads every query of a Grafana dashboard: panel targets (rows' nested
// panels included) and query variables.
func dashboardQueries(raw []byte) ([]dashboardQuery, error) {
	var dash struct {
		Panels     []grafanaPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		return nil, fmt.Errorf("parsing the dashboard: %w", err)
	}
	var out []dashboardQuery
	var walk func([]grafanaPanel)
	walk = func(ps []grafanaPanel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				out = append(out, dashboardQuery{where: fmt.Sprintf("panel %q target %s", p.Title, t.RefID), expr: t.Expr, legend: t.Legend})
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			// Older dashboards hold the query as a plain string.
			if err := json.Unmarshal(v.Query, &q.Query); err != nil {
				return nil, fmt.Errorf("variable %s: reading its query: %w", v.Name, err)
			}
		}
		m := labelValuesQuery.FindStringSubmatch(strings.TrimSpace(q.Query))
		if m == nil {
			return nil, fmt.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, q.Query)
		}
		out = append(out, dashboardQuery{where: "variable " + v.Name, expr: m[1], label: m[2]})
	}
	return out, nil
}

// checkQuery parses a query with Prometheus's own parser and returns what it names that the
// agent does not serve: unknown series, labels in matchers, by/without and on/ignoring
// clauses, and legend or label_values labels the query's result does not carry. It also
// returns the series the query reads.
func (c seriesCatalog) checkQuery(q dashboardQuery) (problems, series []string) {
	expr, err := parser.ParseExpr(grafanaVars.ReplaceAllString(q.expr, "5m"))
	if err != nil {
		return []string{fmt.Sprintf("%s: %q does not parse: %v", q.where, q.expr, err)}, nil
	}
	bad := func(format string, args ...any) {
		problems = append(problems, q.where+": "+fmt.Sprintf(format, args...))
	}
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.VectorSelector:
			name := selectorName(n)
			allowed, ok := c[name]
			if !ok {
				bad("series %q is not one the agent registers (see docs/reference/metrics.md)", name)
				return nil
			}
			series = append(series, name)
			for _, m := range n.LabelMatchers {
				if m.Name != labels.MetricName && !allowed[m.Name] {
					bad("series %s has no label %q (it has %s)", name, m.Name, strings.Join(slices.Sorted(maps.Keys(allowed)), ", "))
				}
			}
		case *parser.AggregateExpr:
			in := c.resultLabels(n.Expr)
			for _, l := range n.Grouping {
				if !in[l] {
					bad("%s by/without %q: the series it aggregates have no such label", n.Op, l)
				}
			}
		case *parser.BinaryExpr:
			if vm := n.VectorMatching; vm != nil {
				in := c.resultLabels(n.LHS)
				maps.Copy(in, c.resultLabels(n.RHS))
				for _, l := range slices.Concat(vm.MatchingLabels, vm.Include) {
					if !in[l] {
						bad("on/ignoring/group %q: neither side has such a label", l)
					}
				}
			}
		}
		return nil
	})
	out := c.resultLabels(expr)
	for _, m := range legendLabel.FindAllStringSubmatch(q.legend, -1) {
		if !out[m[1]] {
			bad("legend {{%s}}: the query's result has no such label (it has %s)", m[1], strings.Join(slices.Sorted(maps.Keys(out)), ", "))
		}
	}
	if q.label != "" && !out[q.label] {
		bad("label_values lists %q, which the selector's series do not have", q.label)
	}
	return problems, series
}

// selectorName is a vector selector's series name, written before the braces or as __name__.
func selectorName(n *parser.VectorSelector) string {
	if n.Name != "" {
		return n.Name
	}
	for _, m := range n.LabelMatchers {
		if m.Name == labels.MetricName {
			return m.Value
		}
	}
	return ""
}

// resultLabels is the set of labels an expression's result may carry, following PromQL's rules
// for aggregations, functions and binary operators closely enough to check legends and clauses.
func (c seriesCatalog) resultLabels(e parser.Expr) map[string]bool {
	switch n := e.(type) {
	case *parser.VectorSelector:
		return maps.Clone(c[selectorName(n)])
	case *parser.MatrixSelector:
		return c.resultLabels(n.VectorSelector)
	case *parser.ParenExpr:
		return c.resultLabels(n.Expr)
	case *parser.UnaryExpr:
		return c.resultLabels(n.Expr)
	case *parser.SubqueryExpr:
		return c.resultLabels(n.Expr)
	case *parser.StepInvariantExpr:
		return c.resultLabels(n.Expr)
	case *parser.AggregateExpr:
		in := c.resultLabels(n.Expr)
		switch {
		case n.Op == parser.TOPK || n.Op == parser.BOTTOMK || n.Op == parser.LIMITK || n.Op == parser.LIMIT_RATIO:
			return in
		case n.Without:
			for _, l := range n.Grouping {
				delete(in, l)
			}
			return in
		}
		out := map[string]bool{}
		for _, l := range n.Grouping {
			out[l] = in[l]
		}
		if n.Op == parser.COUNT_VALUES {
			if s, ok := n.Param.(*parser.StringLiteral); ok {
				out[s.Val] = true
			}
		}
		return out
	case *parser.Call:
		return c.callLabels(n)
	case *parser.BinaryExpr:
		return c.binaryLabels(n)
	}
	return map[string]bool{} // number and string literals
}

func (c seriesCatalog) callLabels(n *parser.Call) map[string]bool {
	switch n.Func.Name {
	case "histogram_quantile":
		out := c.resultLabels(n.Args[1])
		delete(out, "le")
		return out
	case "label_replace":
		out := c.resultLabels(n.Args[0])
		if s, ok := n.Args[1].(*parser.StringLiteral); ok {
			out[s.Val] = true
		}
		return out
	case "vector", "time", "scalar", "pi":
		return map[string]bool{}
	}
	for _, a := range n.Args {
		if a.Type() == parser.ValueTypeVector || a.Type() == parser.ValueTypeMatrix {
			return c.resultLabels(a)
		}
	}
	return map[string]bool{}
}

func (c seriesCatalog) binaryLabels(n *parser.BinaryExpr) map[string]bool {
	lhs, rhs := c.resultLabels(n.LHS), c.resultLabels(n.RHS)
	switch {
	case n.LHS.Type() != parser.ValueTypeVector:
		return rhs
	case n.RHS.Type() != parser.ValueTypeVector:
		return lhs
	case n.Op == parser.LOR:
		maps.Copy(lhs, rhs)
		return lhs
	case n.Op == parser.LAND || n.Op == parser.LUNLESS || (n.Op.IsComparisonOperator() && !n.ReturnBool):
		return lhs
	}
	vm := n.VectorMatching
	if vm == nil {
		return lhs
	}
	switch vm.Card {
	case parser.CardOneToOne:
		if vm.On {
			out := map[string]bool{}
			for _, l := range vm.MatchingLabels {
				out[l] = lhs[l]
			}
			return out
		}
		for _, l := range vm.MatchingLabels {
			delete(lhs, l)
		}
		return lhs
	case parser.CardOneToMany:
		for _, l := range vm.Include {
			rhs[l] = lhs[l]
		}
		return rhs
	default: // many-to-one
		for _, l := range vm.Include {
			lhs[l] = rhs[l]
		}
		return lhs
	}
}

// TestDashboardQueries checks every query of the Grafana dashboard against the series and
// labels the agent registers, with Prometheus's PromQL parser, and that the dashboard shows what
// docs/guides/observability.md promises: cost and capacity per pool, pending pods and
// scheduling latency, disruption decisions and evictions, cloud errors.
func TestDashboardQueries(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	queries, err := dashboardQueries(raw)
	if err != nil {
		t.Fatal(err)
	}
	cat := newSeriesCatalog(registeredMetrics(t))
	used := map[string]bool{}
	for _, q := range queries {
		problems, series := cat.checkQuery(q)
		for _, p := range problems {
			t.Error(p)
		}
		for _, s := range series {
			used[s] = true
		}
	}
	t.Logf("%d queries checked, %d series used", len(queries), len(used))
	for _, want := range []string{
		"tenon_nodepool_cost_per_hour", "tenon_nodepool_nodes", "tenon_nodepool_usage", "tenon_nodepool_limit",
		"tenon_pods_unschedulable", "tenon_provisioner_queue_depth", "tenon_scheduling_duration_seconds_bucket",
		"tenon_pods_startup_duration_seconds_bucket", "tenon_disruption_decisions_total", "tenon_pod_evictions_total",
		"tenon_nodeclaims_launch_failures_total", "tenon_interruption_received_total",
	} {
		if !used[want] {
			t.Errorf("the dashboard shows no panel of %s", want)
		}
	}
}

// TestDashboardCheckerCatches: the checker fails a query that names a series or label the
// agent does not serve, so TestDashboardQueries cannot pass by accident.
func TestDashboardCheckerCatches(t *testing.T) {
	cat := newSeriesCatalog(registeredMetrics(t))
	cases := []struct {
		name, expr, legend, label string
		want                      string // part of the problem; "" means none
	}{
		{name: "good", expr: `sum by (nodepool) (tenon_nodepool_nodes{job=~"$job"})`, legend: "{{nodepool}}"},
		{name: "good histogram", expr: `histogram_quantile(0.9, sum by (le) (rate(tenon_scheduling_duration_seconds_bucket[$__rate_interval])))`},
		{name: "good ratio", expr: `sum by (nodepool) (tenon_nodepool_cost_per_hour) / on (nodepool) sum by (nodepool) (tenon_nodepool_nodes)`, legend: "{{nodepool}}"},
		{name: "unknown series", expr: `tenon_nodepool_cost`, want: `series "tenon_nodepool_cost" is not one the agent registers`},
		{name: "histogram without suffix", expr: `rate(tenon_scheduling_duration_seconds[5m])`, want: "is not one the agent registers"},
		{name: "suffix on a counter", expr: `tenon_pod_evictions_total_count`, want: "is not one the agent registers"},
		{name: "series by __name__", expr: `{__name__="tenon_nope"}`, want: `series "tenon_nope"`},
		{name: "unknown label in a matcher", expr: `tenon_nodepool_nodes{pool="a"}`, want: `has no label "pool"`},
		{name: "le on a sum", expr: `tenon_scheduling_duration_seconds_sum{le="1"}`, want: `has no label "le"`},
		{name: "unknown label in by", expr: `sum by (zone) (tenon_nodepool_nodes)`, want: `by/without "zone"`},
		{name: "unknown label in on", expr: `tenon_nodepool_nodes / on (zone) tenon_nodepool_limit`, want: `on/ignoring/group "zone"`},
		{name: "legend label aggregated away", expr: `sum by (reason) (tenon_nodes_terminated_total)`, legend: "{{nodepool}}", want: "legend {{nodepool}}"},
		{name: "label_values of a missing label", expr: `tenon_build_info`, label: "nodepool", want: `label_values lists "nodepool"`},
		{name: "not PromQL", expr: `sum(tenon_nodepool_nodes`, want: "does not parse"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			problems, _ := cat.checkQuery(dashboardQuery{where: "test", expr: tc.expr, legend: tc.legend, label: tc.label})
			got := strings.Join(problems, "\n")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tc.want)
			}
		})
	}
}
