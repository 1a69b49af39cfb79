package consolidation

import (
	"context"
	"testing"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestApply: the plan's cluster has the removed nodes gone with their
// daemonset pods, each replacement registered with the daemonset pods that
// run there, and the moved pods bound where the plan said.
func TestApply(t *testing.T) {
	p := testPool("default")
	agent := func(pod *state.Pod) { pod.DaemonSet, pod.Owner = true, state.Owner{Kind: "DaemonSet", Name: "agent"} }
	snap := snapshot([]*state.Pool{p}, []*state.Node{testNode(p, "big", "m5.4xlarge", zoneA, od)},
		[]*state.Pod{testPod("agent-big", "100m", "128Mi", "big", agent), testPod("web-1", "1", "2Gi", "big")})
	snap.DaemonSets = []*state.DaemonSet{{Namespace: "default", Name: "agent", Pod: testPod("agent", "100m", "128Mi", "", agent)}}
	res, err := Plan(context.Background(), snap, t0, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 1 || len(res.Commands[0].Replacements) != 1 {
		t.Fatalf("want one replacement, got %+v", res.Commands)
	}
	repl := res.Commands[0].Replacements[0]
	after, err := Apply(snap, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Nodes) != 1 || after.Nodes[0].Name != repl.Name || after.Nodes[0].InstanceType != repl.InstanceType {
		t.Fatalf("nodes after: %+v, want only %s", after.Nodes, repl.Name)
	}
	n := after.Nodes[0]
	if !n.Initialized || n.InFlight || n.TemplateHash != p.TemplateHash || !n.CreatedAt.Equal(t0) || n.Labels[scheduling.LabelNodePool] != "default" {
		t.Errorf("replacement node not registered as launched from the pool at the plan's clock: %+v", n)
	}
	got := map[string]string{}
	for _, pod := range after.Pods {
		got[pod.Name] = pod.NodeName
	}
	want := map[string]string{"web-1": repl.Name, "agent-" + repl.Name: repl.Name}
	if len(got) != len(want) || got["web-1"] != want["web-1"] || got["agent-"+repl.Name] != repl.Name {
		t.Errorf("pods after: %v, want %v", got, want)
	}
	// The cluster after is stable: planning again changes nothing.
	again, err := Plan(context.Background(), after, t0.Add(time.Minute), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Commands) != 0 {
		t.Errorf("a second plan still changes things: %+v", again.Commands)
	}
}

// TestExpiredPodsWithNowhereToGo: expiration is forceful, so a node whose
// pod fits nowhere still goes; the pod is evicted to pending and the plan
// says so.
func TestExpiredPodsWithNowhereToGo(t *testing.T) {
	d := 720 * time.Hour
	p := testPool("default", withReq(scheduling.In(scheduling.LabelInstanceType, "m5.large")), func(p *state.Pool) { p.ExpireAfter = &d })
	n := testNode(p, "old", "m5.xlarge", zoneA, od)
	n.CreatedAt = t0.Add(-721 * time.Hour)
	snap := snapshot([]*state.Pool{p}, []*state.Node{n}, []*state.Pod{testPod("web-1", "3", "8Gi", "old")})
	res, err := Plan(context.Background(), snap, t0, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if v := Validate(snap, res); len(v) > 0 {
		t.Fatalf("plan breaks rules: %v", v)
	}
	if len(res.Commands) != 1 || res.Commands[0].Reason != ReasonExpired || res.Commands[0].Moves[0].To != "" {
		t.Fatalf("want the expired node removed and its pod left pending, got %+v", res.Commands)
	}
	after, err := Apply(snap, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Nodes) != 0 || len(after.Pods) != 1 || after.Pods[0].NodeName != "" {
		t.Errorf("after: nodes %v, pods %+v; want no node and the pod pending", after.Nodes, after.Pods[0])
	}
}
