// Package conformance_test runs Tenon's scheduling conformance suite:
// Karpenter v1.15.0's scheduling behaviours, each translated into a `tenon
// simulate` scenario with the outcome kube-scheduler would accept (see
// README.md). Every case runs through `tenon simulate -o json --check`, so
// the result is checked twice: against the case's expectations and against
// engine/packing/check's hard rules.
package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// casesDir holds the cases, one folder per area.
const casesDir = "cases"

// minCases is the least number of cases the suite must hold (the issue
// asks for 150 translated behaviours).
const minCases = 150

func TestKarpenterConformance(t *testing.T) {
	files := caseFiles(t)
	if len(files) < minCases {
		t.Errorf("the suite holds %d cases; it must hold at least %d", len(files), minCases)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, casesDir+string(filepath.Separator))), ".yaml")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := loadCase(t, path)
			c.run(t)
		})
	}
}

// caseFiles lists the case files, sorted.
func caseFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(casesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing the cases: %v", err)
	}
	slices.Sort(files)
	return files
}

// testCase is one case file: its header (the first document) and the
// scenario documents that follow, completed with the defaults.
type testCase struct {
	path     string
	header   caseHeader
	scenario []byte
}

// caseHeader is a case file's first document.
type caseHeader struct {
	// It is the title of the Karpenter test the case translates.
	It string `json:"it"`
	// Source is the Karpenter test file, relative to
	// pkg/controllers/provisioning.
	Source string `json:"source"`
	// Deviation, when set, says why Tenon deliberately answers differently
	// from Karpenter here (kube-scheduler would); the expectations are
	// kube-scheduler's answer.
	Deviation string `json:"deviation,omitempty"`
	// Note explains how the case maps Karpenter's fake cloud onto the
	// embedded catalog, where that is not obvious.
	Note string `json:"note,omitempty"`
	// Mismatch, when set, names the issue 17 mismatch that still makes
	// Tenon answer differently from the expectations: the case runs, is
	// reported as skipped with what differs, and fails once it passes, so
	// the marker cannot outlive the fix.
	Mismatch string `json:"mismatch,omitempty"`
	Expect   expect `json:"expect"`
}

// sources are the Karpenter test files the suite translates.
func sources() []string {
	return []string{"scheduling/suite_test.go", "scheduling/topology_test.go", "scheduling/instance_selection_test.go", "suite_test.go"}
}

func loadCase(t *testing.T, path string) *testCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the case: %v", err)
	}
	head, rest, ok := bytes.Cut(data, []byte("\n---\n"))
	if !ok {
		t.Fatalf("%s: a case is a header document, then `---` and the scenario's documents", path)
	}
	c := &testCase{path: path}
	if err := yaml.UnmarshalStrict(head, &c.header); err != nil {
		t.Fatalf("%s: the header: %v", path, err)
	}
	if c.header.It == "" || !slices.Contains(sources(), c.header.Source) {
		t.Fatalf("%s: the header must name the It(...) title and one of the sources %v", path, sources())
	}
	c.scenario, err = withDefaults(rest)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// run simulates the case with `tenon simulate -o json --check` and checks
// the report against the expectations.
func (c *testCase) run(t *testing.T) {
	t.Logf("It(%q) in %s", c.header.It, c.header.Source)
	if c.header.Deviation != "" {
		t.Logf("deliberate deviation from Karpenter: %s", c.header.Deviation)
	}
	problems, report := c.problems(t)
	switch {
	case c.header.Mismatch != "" && len(problems) == 0:
		t.Errorf("the case passes now: remove its mismatch %q", c.header.Mismatch)
	case c.header.Mismatch != "":
		t.Skipf("known mismatch (%s): %s", c.header.Mismatch, strings.Join(problems, "; "))
	case len(problems) > 0:
		for _, p := range problems {
			t.Error(p)
		}
		t.Logf("report:\n%s", report)
	}
}

// problems simulates the case and returns every way the result misses
// the expectations (a rule the checker finds broken among them), and the
// report.
func (c *testCase) problems(t *testing.T) ([]string, string) {
	file := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(file, c.scenario, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := simulate.Command(context.Background(), []string{"-f", file, "-o", "json", "--check"}, &stdout, &stderr)
	if code != simulate.ExitOK {
		return []string{fmt.Sprintf("tenon simulate --check exited %d: %s", code, strings.TrimSpace(stderr.String()))}, ""
	}
	var rep simulate.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("reading the report: %v", err)
	}
	s, err := simulate.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return c.header.Expect.check(newOutcome(snap, &rep)), stdout.String()
}

// withDefaults completes a case's scenario documents: a Scenario header
// (us-east-1, three zones), the NodeClass "default" and, when the case
// defines no pool, the NodePool "default" (spot or on-demand, like
// Karpenter's test pool), each only when the case has none of its own.
func withDefaults(docs []byte) ([]byte, error) {
	split, err := manifest.Split(manifest.File{Name: "case", Data: docs})
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, d := range split {
		has[d.Head.Kind] = true
		if d.Head.Kind == "NodeClass" && d.Head.Metadata.Name == "default" {
			has["default NodeClass"] = true
		}
	}
	var out bytes.Buffer
	if !has[simulate.ScenarioKind] {
		out.WriteString(defaultHeader)
	}
	if !has["default NodeClass"] {
		out.WriteString(defaultNodeClass)
	}
	if !has["NodePool"] && !has["Provisioner"] {
		out.WriteString(defaultNodePool)
	}
	out.Write(docs)
	return out.Bytes(), nil
}

const defaultHeader = `apiVersion: tenon.dev/v1alpha1
kind: Scenario
metadata: {name: conformance}
spec: {region: us-east-1, zones: [us-east-1a, us-east-1b, us-east-1c]}
---
`

const defaultNodeClass = `apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
`

const defaultNodePool = `apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: tenon.dev, kind: NodeClass, name: default}
      requirements:
      - {key: tenon.dev/capacity-type, operator: In, values: [spot, on-demand]}
---
`

// outcome is a case's result as the expectations read it: where each pod
// runs (placed or already bound) and each node's labels.
type outcome struct {
	// pending are the keys of the pods the case asked to place.
	pending []string
	// nodeOf maps every pod that runs (bound or placed) to its node.
	nodeOf map[string]string
	// reasons maps each unschedulable pod to its reason.
	reasons map[string]string
	// labels are each node's labels: existing nodes' and new ones'.
	labels map[string]map[string]string
	// newNodes are the nodes to launch.
	newNodes []string
	pods     map[string]*state.Pod
}

func newOutcome(snap *state.Snapshot, rep *simulate.Report) *outcome {
	out := &outcome{nodeOf: map[string]string{}, reasons: map[string]string{}, labels: map[string]map[string]string{}, pods: map[string]*state.Pod{}}
	for _, n := range snap.Nodes {
		out.labels[n.Name] = n.Labels
	}
	for _, p := range snap.Pods {
		out.pods[p.Key()] = p
		if p.NodeName != "" {
			out.nodeOf[p.Key()] = p.NodeName
		}
	}
	for _, p := range snap.PendingPods() {
		out.pending = append(out.pending, p.Key())
	}
	for _, n := range rep.Nodes {
		if !n.Existing {
			out.labels[n.Name] = n.Labels
			out.newNodes = append(out.newNodes, n.Name)
		}
		for _, p := range n.Pods {
			out.nodeOf[p] = n.Name
		}
	}
	for _, u := range rep.Unschedulable {
		out.reasons[u.Pod] = u.Reason
	}
	return out
}

// podKey turns a case's pod name ("web-0" or "ns/web-0") into a pod key.
func podKey(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return "default/" + name
}

// describe says where a pod ended, for messages.
func (o *outcome) describe(key string) string {
	if n, ok := o.nodeOf[key]; ok {
		l := o.labels[n]
		return fmt.Sprintf("on %s (%s, %s, %s)", n, l[scheduling.LabelInstanceType], l[scheduling.LabelTopologyZone], l[scheduling.LabelArch])
	}
	if r, ok := o.reasons[key]; ok {
		return "pending: " + r
	}
	return "nowhere"
}

// TestReadmeListsDeviationsAndMismatches keeps README.md's lists true:
// every case with a deviation or a mismatch is listed under its heading,
// and nothing else is.
func TestReadmeListsDeviationsAndMismatches(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, devs, _ := strings.Cut(string(data), "## Deliberate deviations from Karpenter")
	devs, mismatches, _ := strings.Cut(devs, "## Known mismatches")
	listed := func(section string) []string {
		var out []string
		for line := range strings.Lines(section) {
			if name, ok := strings.CutPrefix(line, "- `"); ok {
				name, _, _ = strings.Cut(name, "`")
				out = append(out, name)
			}
		}
		return out
	}
	var wantDevs, wantMismatches []string
	for _, path := range caseFiles(t) {
		c := loadCase(t, path)
		name := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, casesDir+string(filepath.Separator))), ".yaml")
		if c.header.Deviation != "" {
			wantDevs = append(wantDevs, name)
		}
		if c.header.Mismatch != "" {
			wantMismatches = append(wantMismatches, name)
		}
	}
	if got := listed(devs); !slices.Equal(got, wantDevs) {
		t.Errorf("README.md lists the deviations %v; the cases with one are %v", got, wantDevs)
	}
	if got := listed(mismatches); !slices.Equal(got, wantMismatches) {
		t.Errorf("README.md lists the mismatches %v; the cases with one are %v", got, wantMismatches)
	}
}
