package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixedNow is the clock consolidation tests plan at.
const fixedNow = "2026-01-05T10:00:00Z"

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now, zeroTimings: true}
	code := c.run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// TestConsolidationExampleGolden pins `tenon simulate --example
// inflate-scale-down` as text and JSON (timings zeroed, clock fixed), with
// and without --until-stable. Rewrite with -args -update after an intended
// change.
func TestConsolidationExampleGolden(t *testing.T) {
	tests := []struct {
		args   []string
		golden string
	}{
		{[]string{"--example", "inflate-scale-down", "--check", "--now", fixedNow}, "consolidation-example.golden"},
		// The example's spec.now: the README's command line, on any day.
		{[]string{"--example", "inflate-scale-down", "--check"}, "consolidation-example.golden"},
		{[]string{"--example", "inflate-scale-down", "--until-stable", "--check", "--now", fixedNow, "-o", "json"}, "consolidation-example.json.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, stderr, code := runCLI(t, tt.args...)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			golden := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./engine/simulate -run TestConsolidationExampleGolden -args -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (rerun with -args -update if the change is intended):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
			if again, _, _ := runCLI(t, tt.args...); again != got {
				t.Errorf("a second run printed something else:\n%s", again)
			}
		})
	}
}

// TestConsolidationJSON checks the JSON fields the issue fixes on the
// example run until stable: commands with reason, nodes, replacements and
// moves; kept nodes with why; the final nodes in the packing report's
// shape; and the summary.
func TestConsolidationJSON(t *testing.T) {
	out, stderr, code := runCLI(t, "--example", "inflate-scale-down", "--until-stable", "--now", fixedNow, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var rep struct {
		Commands []struct {
			Round        int               `json:"round"`
			Reason       string            `json:"reason"`
			Nodes        []string          `json:"nodes"`
			Replacements []json.RawMessage `json:"replacements"`
			Moves        []struct{ Pod, From, To string }
		} `json:"commands"`
		Kept    []struct{ Node, Reason string } `json:"kept"`
		Nodes   []map[string]any                `json:"nodes"`
		Summary map[string]any                  `json:"summary"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Commands) == 0 || rep.Commands[0].Reason != "Empty" {
		t.Fatalf("want commands starting with the empty nodes, got %+v", rep.Commands)
	}
	for _, key := range []string{"name", "nodePool", "instanceType", "zone", "capacityType", "pricePerHour", "existing", "pods"} {
		for _, n := range rep.Nodes {
			if _, ok := n[key]; !ok {
				t.Errorf("node %v lacks %q", n["name"], key)
			}
		}
	}
	for _, key := range []string{"costBeforePerHour", "costAfterPerHour", "lowerBoundPerHour", "podsEvicted", "rounds", "planSeconds"} {
		if _, ok := rep.Summary[key]; !ok {
			t.Errorf("summary lacks %q", key)
		}
	}
	if before, after := rep.Summary["costBeforePerHour"].(float64), rep.Summary["costAfterPerHour"].(float64); after >= before {
		t.Errorf("cost %v -> %v, want lower", before, after)
	}
	if lb, after := rep.Summary["lowerBoundPerHour"].(float64), rep.Summary["costAfterPerHour"].(float64); lb <= 0 || lb > after {
		t.Errorf("lower bound %v against cost %v", lb, after)
	}
	if rep.Summary["stable"] != true {
		t.Errorf("not stable after --until-stable: %v", rep.Summary)
	}
	pods := 0
	for _, n := range rep.Nodes {
		pods += len(n["pods"].([]any))
	}
	if pods != 5 {
		t.Errorf("final nodes hold %d pods, want the 5 inflate pods", pods)
	}
}

// cluster is a scenario with nodes and pods bound to them.
func cluster(nodes, pods string) string {
	return header + pool + nodes + pods
}

func nodeDoc(name, typ, zone string) string {
	return fmt.Sprintf(`---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {tenon.dev/nodepool: default, node.kubernetes.io/instance-type: %s, topology.kubernetes.io/zone: %s, tenon.dev/capacity-type: on-demand}
`, name, typ, zone)
}

func boundPod(name, node string) string {
	return fmt.Sprintf(`---
apiVersion: v1
kind: Pod
metadata:
  name: %s
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: 0b7d2b1e-8a8c-4a57-9c61-3d7c1b1f2a10, controller: true}]
spec:
  nodeName: %s
  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
`, name, node)
}

// TestConsolidationFromFile runs a scenario file with existing nodes and
// bound pods: it is planned as consolidation without any flag, and the
// plan passes --check.
func TestConsolidationFromFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	data := cluster(nodeDoc("n1", "m5.xlarge", "us-east-1a")+nodeDoc("n2", "m5.xlarge", "us-east-1b")+nodeDoc("n3", "m5.xlarge", "us-east-1c"),
		boundPod("a", "n1")+boundPod("b", "n2")+boundPod("c", "n3"))
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "-f", path, "--check", "--now", fixedNow)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"Scenario s: consolidation of 3 existing nodes holding 3 pods", "Underutilized", "Check: no violations"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestConsolidationBadInput: what consolidation needs of nodes and bound
// pods is checked, and errors name the file, the object and the field,
// with exit code 2.
func TestConsolidationBadInput(t *testing.T) {
	node := nodeDoc("n1", "m5.xlarge", "us-east-1a")
	tests := []struct {
		name string
		data string
		args []string
		want string
	}{
		{"a pod bound to a node that does not exist", cluster(node, boundPod("a", "n9")), nil,
			`c.yaml: Pod default/a: spec.nodeName: Not found: "n9": no Node of that name in the scenario`},
		{"a managed node without an instance type", cluster(strings.Replace(node, "node.kubernetes.io/instance-type: m5.xlarge, ", "", 1), boundPod("a", "n1")), nil,
			"c.yaml: Node n1: metadata.labels[node.kubernetes.io/instance-type]: Required value"},
		{"an instance type not in the catalog", cluster(nodeDoc("n1", "m9.huge", "us-east-1a"), boundPod("a", "n1")), nil,
			`c.yaml: Node n1: metadata.labels[node.kubernetes.io/instance-type]: Unsupported value: "m9.huge"`},
		{"a zone outside the scenario", cluster(nodeDoc("n1", "m5.xlarge", "us-east-1d"), boundPod("a", "n1")), nil,
			`c.yaml: Node n1: metadata.labels[topology.kubernetes.io/zone]: Unsupported value: "us-east-1d"`},
		{"a node of a pool that does not exist", cluster(strings.Replace(node, "tenon.dev/nodepool: default", "tenon.dev/nodepool: gpu", 1), boundPod("a", "n1")), nil,
			`c.yaml: Node n1: metadata.labels[tenon.dev/nodepool]: Not found: "gpu"`},
		{"--consolidate without nodes", cluster("", ""), []string{"--consolidate"},
			"consolidation needs existing nodes"},
		{"a malformed --now", cluster(node, boundPod("a", "n1")), []string{"--now", "yesterday"},
			`invalid value "yesterday" for flag -now`},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runCLI(t, append([]string{"-f", path}, tt.args...)...)
			if code != ExitBadInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitBadInput, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr:\n%s\ndoes not contain:\n%s", stderr, tt.want)
			}
		})
	}
}

// TestConsolidationReasonsFromFile: the reasons a node is kept come through
// from the scenario's objects: a pod annotation, a PDB, a pod without a
// controller, a node annotation.
func TestConsolidationReasonsFromFile(t *testing.T) {
	fixed := strings.Replace(pool, "values: [on-demand]}", "values: [on-demand]}\n        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}", 1)
	nodes := nodeDoc("n1", "m5.xlarge", "us-east-1a") + nodeDoc("n2", "m5.xlarge", "us-east-1a") + nodeDoc("n3", "m5.xlarge", "us-east-1a") +
		strings.Replace(nodeDoc("n4", "m5.xlarge", "us-east-1a"), "  labels:", "  annotations: {tenon.dev/do-not-disrupt: \"true\"}\n  labels:", 1)
	pods := strings.Replace(boundPod("web-7", "n1"), "  ownerReferences:", "  annotations: {tenon.dev/do-not-disrupt: \"true\"}\n  ownerReferences:", 1) +
		strings.Replace(boundPod("api-0", "n2"), "  ownerReferences:", "  labels: {app: api}\n  ownerReferences:", 1) +
		strings.Replace(boundPod("bare", "n3"), "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: 0b7d2b1e-8a8c-4a57-9c61-3d7c1b1f2a10, controller: true}]\n", "", 1) +
		boundPod("pinned", "n4")
	pdb := "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: api}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: api}}\n"
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(header+fixed+nodes+pods+pdb), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "-f", path, "--check", "--now", fixedNow)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"n1    do-not-disrupt pod default/web-7",
		"n2    PDB default/api allows 0 disruptions",
		"n3    pod default/bare has no controller",
		"n4    node annotated tenon.dev/do-not-disrupt",
		"Commands: none",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestConsolidationPDBMaxUnavailableOne: a PDB with maxUnavailable 1 does
// not hold back a node holding two of its pods (the agent's drain evicts
// them one at a time through the Eviction API), so --until-stable merges
// two half-empty nodes into one; pods of the PDB all move in one command.
func TestConsolidationPDBMaxUnavailableOne(t *testing.T) {
	fixed := strings.Replace(pool, "values: [on-demand]}", "values: [on-demand]}\n        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}", 1)
	web := func(name, node string) string {
		return strings.Replace(boundPod(name, node), "  ownerReferences:", "  labels: {app: web}\n  ownerReferences:", 1)
	}
	nodes := nodeDoc("n1", "m5.xlarge", "us-east-1a") + nodeDoc("n2", "m5.xlarge", "us-east-1a")
	pods := web("web-1", "n1") + web("web-2", "n1") + web("web-3", "n2") + web("web-4", "n2")
	pdb := "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n"
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte(header+fixed+nodes+pods+pdb), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "-f", path, "--until-stable", "--check", "--now", fixedNow, "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var rep ConsolidationReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !rep.Summary.Stable || rep.Summary.NodesAfter != 1 || rep.Summary.PodsEvicted != 2 {
		t.Errorf("stable=%v, %d nodes after, %d pods evicted; want stable, 1 node, 2 evicted:\n%s",
			rep.Summary.Stable, rep.Summary.NodesAfter, rep.Summary.PodsEvicted, out)
	}
	if len(rep.Commands) != 1 || len(rep.Commands[0].Moves) != 2 {
		t.Errorf("want one command moving both pods of a node, got %+v", rep.Commands)
	}
	for _, k := range rep.Kept {
		if strings.Contains(k.Reason, "PDB") {
			t.Errorf("%s kept because %q", k.Node, k.Reason)
		}
	}
}

// scaleDownScenario has an empty node (emptiness removes it: leaving) and three busy ones that a
// high minSavingsPerHour keeps: c with 2 web pods, a with 3, and b with 1 web pod beside a
// StatefulSet's pod, which a scale-down cannot remove.
const scaleDownScenario = `
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidateAfter: 0s
    minSavingsPerHour: "5"
`

func scaleDownNode(name string) string {
	return fmt.Sprintf(`
---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels: {tenon.dev/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1b, tenon.dev/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux}
`, name)
}

func scaleDownPod(name, node, kind, owner string) string {
	return fmt.Sprintf(`
---
apiVersion: v1
kind: Pod
metadata:
  name: %s
  ownerReferences: [{apiVersion: apps/v1, kind: %s, name: %s, uid: %s, controller: true}]
spec:
  nodeName: %s
  containers: [{name: c, resources: {requests: {cpu: 300m, memory: 256Mi}}}]
`, name, kind, owner, owner, node)
}

// TestScaleDownOrder: --scale-down-order lists the nodes as the agent's --pod-deletion-cost
// ranks them (the node the plan removes, then fewest pods a scale-down cannot remove, then
// fewest ReplicaSet pods), in text and JSON; without the flag the report has no such list.
func TestScaleDownOrder(t *testing.T) {
	scenario := scaleDownScenario + scaleDownNode("empty") + scaleDownNode("a") + scaleDownNode("b") + scaleDownNode("c") +
		scaleDownPod("web-a1", "a", "ReplicaSet", "web") + scaleDownPod("web-a2", "a", "ReplicaSet", "web") + scaleDownPod("web-a3", "a", "ReplicaSet", "web") +
		scaleDownPod("web-b1", "b", "ReplicaSet", "web") + scaleDownPod("db-0", "b", "StatefulSet", "db") +
		scaleDownPod("web-c1", "c", "ReplicaSet", "web") + scaleDownPod("web-c2", "c", "ReplicaSet", "web")
	file := filepath.Join(t.TempDir(), "scale-down.yaml")
	if err := os.WriteFile(file, []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "-f", file, "--now", fixedNow, "--scale-down-order", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep ConsolidationReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range rep.ScaleDownOrder {
		got = append(got, fmt.Sprintf("%s:%s:%d+%d", n.Node, n.Tier, n.ReplicaSetPods, n.OtherPods))
	}
	if want := "empty:leaving:0+0 c:rest:2+0 a:rest:3+0 b:rest:1+1"; strings.Join(got, " ") != want {
		t.Errorf("scale-down order %q, want %q", strings.Join(got, " "), want)
	}
	text, _, _ := runCLI(t, "-f", file, "--now", fixedNow, "--scale-down-order")
	if !strings.Contains(text, "Scale-down order (tenon agent --pod-deletion-cost)") || !strings.Contains(text, "empty  leaving") {
		t.Errorf("the text report lacks the scale-down order:\n%s", text)
	}
	plain, _, _ := runCLI(t, "-f", file, "--now", fixedNow, "-o", "json")
	if strings.Contains(plain, "scaleDownOrder") {
		t.Error("the report lists the scale-down order without --scale-down-order")
	}
}
