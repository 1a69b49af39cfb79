package simulate

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// bufferReport is the part of a packing report the buffer tests read.
type bufferReport struct {
	Nodes []struct {
		Name         string   `json:"name"`
		Existing     bool     `json:"existing"`
		PricePerHour float64  `json:"pricePerHour"`
		Pods         []string `json:"pods"`
	} `json:"nodes"`
	Buffers []ReportBuffer `json:"buffers"`
	Summary Summary        `json:"summary"`
}

// TestCapacityBufferExamples runs the buffer examples: the real pods are placed as without a
// buffer, the placeholders after them, and the summary prices the nodes the buffer adds.
func TestCapacityBufferExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "capacity-buffer")
	cases := []struct {
		name string
		args []string
		// pods is the pending pods, existing/newRoom where the 4 placeholders go, bufferCost
		// what the nodes for the buffer alone cost.
		pods, existing, newRoom int
		cost, bufferCost        float64
	}{
		// Six 1-cpu pods on an m5.2xlarge (7.9 cpu) leave room for one placeholder; the other
		// three take an m5.xlarge of their own.
		{name: "examples/capacity-buffer", args: []string{"-f", filepath.Join(dir, "policy.yaml"), "-f", filepath.Join(dir, "workload.yaml")},
			pods: 6, newRoom: 4, cost: 0.576, bufferCost: 0.192},
		// One api pod takes the existing node's room, two a new m5.xlarge with one cpu left for
		// a placeholder; three more take a second m5.xlarge.
		{name: "--example capacity-buffer", args: []string{"--example", "capacity-buffer"},
			pods: 3, newRoom: 4, cost: 0.384, bufferCost: 0.192},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, append(tc.args, "-o", "json", "--check")...)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s\n%s", code, stderr, out)
			}
			var rep bufferReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Buffers) != 1 {
				t.Fatalf("want one buffer, got %+v", rep.Buffers)
			}
			b := rep.Buffers[0]
			if b.NodePool != "web" || b.Pods != 4 || b.Existing != tc.existing || b.New != tc.newRoom || b.Unplaced != 0 || !near(b.CostPerHour, tc.bufferCost) {
				t.Fatalf("buffer %+v; want 4 pods, %d on existing nodes, %d on new, $%v/h", b, tc.existing, tc.newRoom, tc.bufferCost)
			}
			s := rep.Summary
			if s.Pods != tc.pods || s.Placed != tc.pods || s.Unschedulable != 0 || !near(s.CostPerHour, tc.cost) || !near(s.BufferCostPerHour, tc.bufferCost) {
				t.Fatalf("summary %+v; want %d pods placed, $%v/h of which $%v/h for the buffer", s, tc.pods, tc.cost, tc.bufferCost)
			}
			placeholders, price := 0, 0.0
			for _, n := range rep.Nodes {
				if !n.Existing {
					price += n.PricePerHour
				}
				for _, p := range n.Pods {
					if strings.HasPrefix(p, "tenon:buffer/web-") {
						placeholders++
					}
				}
			}
			if placeholders != 4 || !near(price, s.CostPerHour) {
				t.Fatalf("nodes list %d placeholders and cost $%v/h; want 4 and $%v/h", placeholders, price, s.CostPerHour)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-3 && b-a < 1e-3 }

// TestCapacityBufferConsolidation: with no pods pending, tenon simulate --consolidate keeps the
// node that holds the buffer's room and removes the one that does not.
func TestCapacityBufferConsolidation(t *testing.T) {
	const scenario = `apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: web}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
  BUFFER
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s}
---
apiVersion: v1
kind: Node
metadata:
  name: busy
  labels: {tenon.dev/nodepool: web, node.kubernetes.io/instance-type: m5.xlarge, topology.kubernetes.io/zone: us-east-1a, tenon.dev/capacity-type: on-demand}
---
apiVersion: v1
kind: Node
metadata:
  name: spare
  labels: {tenon.dev/nodepool: web, node.kubernetes.io/instance-type: m5.xlarge, topology.kubernetes.io/zone: us-east-1a, tenon.dev/capacity-type: on-demand}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: default
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u1, controller: true}]
spec:
  nodeName: busy
  containers: [{name: web, image: pause, resources: {requests: {cpu: "3", memory: 4Gi}}}]
`
	cases := []struct {
		name    string
		buffer  string
		removed int
	}{
		{name: "no buffer: the empty node goes", buffer: "", removed: 1},
		{name: "a buffer the busy node cannot hold keeps the spare one", buffer: "buffer: {pods: 2, resources: {cpu: '1', memory: 1Gi}}", removed: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "s.yaml")
			writeFile(t, file, strings.Replace(scenario, "BUFFER", tc.buffer, 1))
			out, stderr, code := runCLI(t, "-f", file, "--consolidate", "-o", "json")
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			var rep struct {
				Commands []struct {
					Nodes []string `json:"nodes"`
					Moves []struct {
						Pod string `json:"pod"`
					} `json:"moves"`
				} `json:"commands"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			removed := 0
			for _, c := range rep.Commands {
				removed += len(c.Nodes)
				for _, m := range c.Moves {
					if strings.HasPrefix(m.Pod, "tenon:buffer/") {
						t.Fatalf("a command evicts placeholder %s", m.Pod)
					}
				}
			}
			if removed != tc.removed {
				t.Fatalf("removed %d nodes, want %d:\n%s", removed, tc.removed, out)
			}
		})
	}
}
