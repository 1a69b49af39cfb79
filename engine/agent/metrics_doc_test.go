package agent

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

var updateMetricsDoc = flag.Bool("update-metrics-doc", false, "rewrite docs/reference/metrics.md from the registered metrics")

const metricsDocPath = "../../docs/reference/metrics.md"

// recordingRegisterer keeps the collectors newMetrics registers, in order.
type recordingRegisterer struct {
	*prometheus.Registry
	collectors []prometheus.Collector
}

func (r *recordingRegisterer) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return r.Registry.Register(c)
}

// descPattern reads the fields prometheus.Desc.String prints; the client library offers no
// accessors for a Desc's name, help or labels.
var descPattern = regexp.MustCompile(`^Desc\{fqName: ("(?:[^"\\]|\\.)*"), help: ("(?:[^"\\]|\\.)*"),(?: unit: "(?:[^"\\]|\\.)*",)? constLabels: \{([^}]*)\}, variableLabels: \{([^}]*)\}\}$`)

type metricDoc struct {
	name, kind, help string
	labels           []string
}

func registeredMetrics(t *testing.T) []metricDoc {
	t.Helper()
	reg := &recordingRegisterer{Registry: prometheus.NewPedanticRegistry()}
	if _, err := newMetrics(reg); err != nil {
		t.Fatal(err)
	}
	var out []metricDoc
	for _, c := range reg.collectors {
		var kind string
		switch c.(type) {
		// Gauge before Counter: a Gauge has Inc and Add too, so it satisfies Counter.
		case prometheus.Gauge, *prometheus.GaugeVec:
			kind = "gauge"
		case prometheus.Histogram, *prometheus.HistogramVec:
			kind = "histogram"
		case prometheus.Counter, *prometheus.CounterVec:
			kind = "counter"
		default:
			t.Fatalf("collector %T: teach this test its kind", c)
		}
		ch := make(chan *prometheus.Desc, 4)
		c.Describe(ch)
		close(ch)
		for d := range ch {
			m := descPattern.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("cannot read %s: the client library changed Desc.String; update descPattern", d)
			}
			name, err1 := strconv.Unquote(m[1])
			help, err2 := strconv.Unquote(m[2])
			if err1 != nil || err2 != nil {
				t.Fatalf("unquoting %s: %v %v", d, err1, err2)
			}
			var labels []string
			if m[4] != "" {
				labels = strings.Split(m[4], ",")
			}
			out = append(out, metricDoc{name: name, kind: kind, help: help, labels: labels})
		}
	}
	slices.SortFunc(out, func(a, b metricDoc) int { return strings.Compare(a.name, b.name) })
	return out
}

// The page's fixed text; ´ stands for a backtick, which a raw string cannot hold.
const metricsPageHead = `---
page_title: "Metrics reference"
description: |-
  Every Prometheus series the Tenon agent serves on --metrics-addr.
---

# Metrics reference

<!-- Generated from the collectors engine/agent registers: go test ./engine/agent -run TestMetricsReference -update-metrics-doc -->

The agent serves these series at ´/metrics´ on ´--metrics-addr´ (default ´:8080´), on the
controller-runtime registry, next to controller-runtime's and client-go's own series (workqueue,
REST client, reconcile counts). A test fails when a series the agent registers is missing here.

| Metric | Type | Labels | Meaning |
|---|---|---|---|
`

const metricsPageTail = `
Histograms are served as ´_bucket´, ´_sum´ and ´_count´ series. ´nodepool´ is a NodePool's name,
´resource´ a resource name such as ´cpu´ or ´memory´; ´reason´ is the word the agent also puts on
the object's event (a disruption reason such as ´Empty´ or ´Underutilized´, or a launch failure such
as ´InsufficientCapacity´); ´decision´ says what became of a disruption command (´delete´,
´skipped´, ´invalidated´, ´replacement-failed´, ´blocked-…´ with what held it, ´waiting-for-drain´ for a
consolidation tick that planned nothing while an earlier command's nodes still drained).
`

func metricsPage(ms []metricDoc) string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(metricsPageHead, "´", "`"))
	for _, m := range ms {
		labels := "—"
		if len(m.labels) > 0 {
			labels = "`" + strings.Join(m.labels, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.name, m.kind, labels, strings.ReplaceAll(m.help, "|", `\|`))
	}
	b.WriteString(strings.ReplaceAll(metricsPageTail, "´", "`"))
	return b.String()
}

// TestMetricsReference keeps docs/reference/metrics.md equal to what the agent registers, so
// no series goes undocumented and no documented series is gone.
func TestMetricsReference(t *testing.T) {
	ms := registeredMetrics(t)
	if len(ms) == 0 {
		t.Fatal("no metrics registered")
	}
	for _, m := range ms {
		if !strings.HasPrefix(m.name, "tenon_") || m.help == "" {
			t.Errorf("%s: every series is named tenon_* and has a help text", m.name)
		}
	}
	want := metricsPage(ms)
	if *updateMetricsDoc {
		if err := os.WriteFile(metricsDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(metricsDocPath)
	if err != nil {
		t.Fatalf("%v (write it with go test ./engine/agent -run TestMetricsReference -update-metrics-doc)", err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run go test ./engine/agent -run TestMetricsReference -update-metrics-doc (or make generate) and commit it", metricsDocPath)
	}
}

// TestBuildInfo: the agent says which build it is, as Prometheus exporters do.
func TestBuildInfo(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if _, err := newMetrics(reg); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "tenon_build_info" {
			continue
		}
		m := f.GetMetric()
		labels := map[string]string{}
		for _, l := range m[0].GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if len(m) != 1 || m[0].GetGauge().GetValue() != 1 || labels["version"] != version.Version() || labels["goversion"] != runtime.Version() {
			t.Errorf("tenon_build_info = %v, want one series of 1 labelled version=%s goversion=%s", m, version.Version(), runtime.Version())
		}
		return
	}
	t.Error("tenon_build_info is not served")
}
