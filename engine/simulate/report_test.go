package simulate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

const existing = `---
apiVersion: v1
kind: Node
metadata:
  name: old-node
  labels: {tenon.dev/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1b, tenon.dev/capacity-type: on-demand}
---
apiVersion: v1
kind: Pod
metadata: {name: bound}
spec:
  nodeName: old-node
  containers: [{name: c, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
`

func TestNewReport(t *testing.T) {
	s, err := Parse(File{Name: "r.yaml", Data: []byte(header + pool + existing + deployment("500m"))})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.snapshotAndPending()
	if err != nil {
		t.Fatal(err)
	}
	result := &packing.Result{
		Claims: []*packing.Claim{{
			Name: "default-1", Pool: "default",
			Options: []packing.InstanceOption{
				{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "on-demand", PricePerHour: 0.096},
				{InstanceType: "m5a.large", Zone: "us-east-1a", CapacityType: "on-demand", PricePerHour: 0.086},
			},
			Pods:     []string{"default/web-1"},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("965m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
		}},
		Placements:  []packing.Placement{{Pod: "default/web-0", Node: "old-node"}, {Pod: "default/web-1", Node: "default-1"}},
		CostPerHour: 0.0960000001, LowerBoundPerHour: 0.05,
	}
	rep := newReport(s, sp.snap, sp.pending, result)
	tests := []struct {
		name string
		ok   bool
	}{
		{"the new node comes first, priced at its first option", len(rep.Nodes) == 2 && rep.Nodes[0].Name == "default-1" &&
			rep.Nodes[0].InstanceType == "m5.large" && rep.Nodes[0].PricePerHour == 0.096 && !rep.Nodes[0].Existing && rep.Nodes[0].Options == 2},
		{"new node utilisation is requests over the type's allocatable", rep.Nodes[0].CPUUtilization == 0.5},
		{"the existing node receiving a pod is listed", rep.Nodes[1].Name == "old-node" && rep.Nodes[1].Existing &&
			rep.Nodes[1].Zone == "us-east-1b" && len(rep.Nodes[1].Pods) == 1 && rep.Nodes[1].Pods[0] == "default/web-0"},
		{"existing node utilisation counts the pods already bound", rep.Nodes[1].CPUUtilization == 0.5181},
		{"the summary counts pods and nodes and rounds the cost", rep.Summary.Pods == 2 && rep.Summary.NewNodes == 1 &&
			rep.Summary.ExistingNodes == 1 && rep.Summary.Placed == 2 && rep.Summary.CostPerHour == 0.096 && rep.Summary.LowerBoundPerHour == 0.05},
		{"lists are empty, not null", rep.Unschedulable != nil && rep.Summary.SolveRuns != nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Errorf("report: %+v", rep)
			}
		})
	}
}

func TestParseJSONAndLists(t *testing.T) {
	stream := `{"apiVersion":"tenon.dev/v1","kind":"NodeClass","metadata":{"name":"default"},"spec":{"kwok":{}}}
{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c"}]}},
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"b","namespace":"x"},"spec":{"containers":[{"name":"c"}]}}]}`
	array := "# a comment\n[" + `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c"}]}}` + "]"
	yamlList := "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c}]}}\n"
	tests := []struct {
		name string
		data string
		pods []string
	}{
		{"a JSON stream with a List", stream, []string{"default/a", "x/b"}},
		{"a JSON array after a comment", array, []string{"default/a"}},
		{"a YAML List", yamlList, []string{"default/a"}},
		{"YAML flow style that looks like JSON", "{apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c}]}}\n", []string{"default/a"}},
		{"empty documents are skipped", "---\n# nothing\n---\n" + yamlList + "---\n", []string{"default/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(File{Name: "f", Data: []byte(tt.data)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range s.Objects.Pods {
				got = append(got, p.Namespace+"/"+p.Name)
			}
			if len(got) != len(tt.pods) {
				t.Fatalf("pods = %v, want %v", got, tt.pods)
			}
			for i := range got {
				if got[i] != tt.pods[i] {
					t.Errorf("pods = %v, want %v", got, tt.pods)
				}
			}
		})
	}
}

func TestWorkloadExpansion(t *testing.T) {
	data := header + pool + `---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec: {containers: [{name: c}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  parallelism: 4
  completions: 2
  template:
    spec: {restartPolicy: Never, containers: [{name: c}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: none}
spec:
  replicas: 0
  selector: {matchLabels: {app: none}}
  template:
    metadata: {labels: {app: none}}
    spec: {containers: [{name: c}]}
`
	s, err := Parse(File{Name: "e.yaml", Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range snap.PendingPods() {
		got = append(got, p.Key()+"<"+p.Owner.Kind)
	}
	want := []string{"data/db-0<StatefulSet", "data/db-1<StatefulSet", "data/db-2<StatefulSet", "default/job-0<Job", "default/job-1<Job", "default/rs-0<ReplicaSet"}
	if len(got) != len(want) {
		t.Fatalf("pods = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pods = %v, want %v", got, want)
		}
	}
	if s.Workloads != 4 {
		t.Errorf("workloads = %d, want 4", s.Workloads)
	}
}
