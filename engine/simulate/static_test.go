package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStaticCapacityExample runs examples/static-capacity: the static pool
// launches its three replicas (its cheapest allowed type, one per zone)
// before the pods, the pods fill them first, and only the rest go to the
// dynamic pool; every static node is priced in the total.
func TestStaticCapacityExample(t *testing.T) {
	requirePacking(t)
	dir := filepath.Join("..", "..", "examples", "static-capacity")
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	args := []string{"-f", filepath.Join(dir, "policy.yaml"), "-f", filepath.Join(dir, "workload.yaml"), "-o", "json", "--check"}
	if code := c.run(context.Background(), args, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var rep Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	zones := map[string]bool{}
	staticPods, cost := 0, 0.0
	for _, n := range rep.Nodes {
		cost += n.PricePerHour
		if n.NodePool != "baseline" {
			continue
		}
		zones[n.Zone] = true
		staticPods += len(n.Pods)
		if n.InstanceType != "m5.xlarge" || n.Existing {
			t.Errorf("static node %+v: want a new m5.xlarge", n)
		}
	}
	if len(zones) != 3 || staticPods != 9 || len(rep.Unschedulable) != 0 {
		t.Fatalf("static nodes in zones %v holding %d pods, %d unschedulable; want 3 zones, 9 pods, none:\n%s", zones, staticPods, len(rep.Unschedulable), stdout.String())
	}
	if diff := rep.Summary.CostPerHour - cost; diff > 1e-3 || diff < -1e-3 {
		t.Errorf("summary cost %v, nodes add up to %v", rep.Summary.CostPerHour, cost)
	}
	if rep.Summary.LowerBoundPerHour < 3*0.192 {
		t.Errorf("lower bound %v leaves out the static nodes every answer pays for", rep.Summary.LowerBoundPerHour)
	}
}

// TestStaticPoolConsolidation: tenon simulate --consolidate on a static
// pool above its replicas removes the emptiest node, and leaves the others
// alone however underused.
func TestStaticPoolConsolidation(t *testing.T) {
	requirePacking(t)
	scenario := `
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: fixed}
spec:
  replicas: 1
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}
  disruption: {consolidateAfter: 0s, budgets: [{nodes: "100%"}]}
` + staticNode("fixed-a", "us-east-1a") + staticNode("fixed-b", "us-east-1b") + `
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u1, controller: true}]}
spec:
  nodeName: fixed-a
  containers: [{name: web, image: pause, resources: {requests: {cpu: 100m}}}]
`
	file := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(file, []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: time.Now}
	if code := c.run(context.Background(), []string{"--consolidate", "-f", file}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s\n%s", code, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"Overprovisioned", "fixed-b", "scale down nodepool fixed to its replicas", "nodepool fixed is static (replicas 1): consolidation leaves its nodes alone"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
}

func staticNode(name, zone string) string {
	return `
---
apiVersion: v1
kind: Node
metadata:
  name: ` + name + `
  labels: {tenon.dev/nodepool: fixed, node.kubernetes.io/instance-type: m5.xlarge, topology.kubernetes.io/zone: ` + zone + `, tenon.dev/capacity-type: on-demand, kubernetes.io/arch: amd64}
status:
  allocatable: {cpu: "3920m", memory: 15Gi, pods: "58"}
  capacity: {cpu: "4", memory: 16Gi, pods: "58"}
`
}

// TestBalancedConsolidationExample runs examples/balanced-consolidation:
// under Balanced the node of costly pods stays, naming its score, and the
// other node goes for the same saving; under WhenEmptyOrUnderutilized the
// costly pods are moved.
func TestBalancedConsolidationExample(t *testing.T) {
	requirePacking(t)
	scenario, err := os.ReadFile(filepath.Join("..", "..", "examples", "balanced-consolidation", "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, scenario, removed, kept string
	}{
		{"Balanced", string(scenario), "remove n2", "n1    Balanced: saves 37.5% of nodepool services's cost for 81.5% of its disruption (score 0.46, needs 0.5)"},
		{"WhenEmptyOrUnderutilized", strings.Replace(string(scenario), "consolidationPolicy: Balanced", "consolidationPolicy: WhenEmptyOrUnderutilized", 1), "remove n1", "n2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "scenario.yaml")
			if err := os.WriteFile(file, []byte(tc.scenario), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			c := command{engine: packingSolver{}, now: time.Now}
			if code := c.run(context.Background(), []string{"--consolidate", "-f", file}, &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			for _, want := range []string{tc.removed, tc.kept, "saves $0.2880/h"} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the report does not say %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}
