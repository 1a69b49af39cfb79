package main

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func emptyView() view {
	return view{Claims: map[string]claimView{}, Nodes: map[string]nodeView{}, Pods: map[string]podView{}}
}

// TestChangesNarrateALifecycle walks one claim and node through launch, registration, pods
// running and removal, and checks each step prints what happened and only that.
func TestChangesNarrateALifecycle(t *testing.T) {
	m5 := offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", PricePerHour: 0.04}
	steps := []struct {
		name string
		edit func(v *view)
		want []string
	}{
		{"nothing", func(*view) {}, nil},
		{"pods pending", func(v *view) {
			v.Pods["inflate-a"] = podView{Phase: corev1.PodPending}
			v.Pods["inflate-b"] = podView{Phase: corev1.PodPending}
		}, []string{"pods: 2, 0 Running, 2 Pending"}},
		{"claim created", func(v *view) { v.Claims["c1"] = claimView{Pool: "spot"} },
			[]string{"NodeClaim c1 created for pool spot"}},
		{"claim launched", func(v *view) { v.Claims["c1"] = claimView{Pool: "spot", Offering: m5, Stage: v1.ConditionLaunched} },
			[]string{"NodeClaim c1 launched: m5.large spot in us-east-1a, $0.0400/h"}},
		{"node joins", func(v *view) { v.Nodes["c1"] = nodeView{Pool: "spot", Offering: m5} },
			[]string{"Node c1 joined (pool spot): m5.large spot in us-east-1a, $0.0400/h", "agent nodes: 1, $0.0400/h"}},
		{"registered and ready", func(v *view) {
			v.Claims["c1"] = claimView{Pool: "spot", Offering: m5, Stage: v1.ConditionRegistered, NodeName: "c1"}
			v.Nodes["c1"] = nodeView{Pool: "spot", Offering: m5, Ready: true}
		}, []string{"NodeClaim c1 registered (node c1)", "Node c1 Ready"}},
		{"pods running", func(v *view) {
			v.Pods["inflate-a"] = podView{Node: "c1", Phase: corev1.PodRunning}
			v.Pods["inflate-b"] = podView{Node: "c1", Phase: corev1.PodRunning}
		}, []string{"pods: 2, 2 Running, 0 Pending"}},
		{"scaled down", func(v *view) { clear(v.Pods) }, []string{"pods: 0, 0 Running, 0 Pending"}},
		{"terminating", func(v *view) {
			c := v.Claims["c1"]
			c.Deleting = true
			v.Claims["c1"] = c
			n := v.Nodes["c1"]
			n.Deleting = true
			v.Nodes["c1"] = n
		}, []string{"NodeClaim c1 terminating", "Node c1 draining"}},
		{"gone", func(v *view) { clear(v.Claims); clear(v.Nodes) },
			[]string{"NodeClaim c1 deleted", "Node c1 removed", "agent nodes: 0, $0.0000/h"}},
	}
	prev := emptyView()
	for _, step := range steps {
		next := view{Claims: clone(prev.Claims), Nodes: clone(prev.Nodes), Pods: clone(prev.Pods)}
		step.edit(&next)
		if got := changes(prev, next); !slices.Equal(got, step.want) {
			t.Errorf("%s:\n got %q\nwant %q", step.name, got, step.want)
		}
		prev = next
	}
}

func clone[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestPricerReadsClaimsAndNodes prices a launched claim and a node from the embedded catalog,
// and leaves a claim that has not launched unpriced.
func TestPricerReadsClaimsAndNodes(t *testing.T) {
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	it, ok := cat.Get("m5.large")
	if !ok || len(it.Offerings) == 0 {
		t.Fatal("the catalog has no m5.large offering")
	}
	o := it.Offerings[0]
	p := newPricer()

	claim := &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: map[string]string{scheduling.LabelNodePool: "spot"}},
		Status: v1.NodeClaimStatus{InstanceType: "m5.large", Zone: o.Zone, CapacityType: o.CapacityType, NodeName: "c1",
			Conditions: []metav1.Condition{
				{Type: v1.ConditionLaunched, Status: metav1.ConditionTrue},
				{Type: v1.ConditionRegistered, Status: metav1.ConditionTrue},
				{Type: v1.ConditionInitialized, Status: metav1.ConditionFalse},
			}},
	}
	cv := p.claim(claim)
	if cv.Pool != "spot" || cv.Stage != v1.ConditionRegistered || cv.Offering.PricePerHour != o.PricePerHour {
		t.Errorf("claim view %+v, want pool spot, stage Registered, price %v", cv, o.PricePerHour)
	}
	unlaunched := p.claim(&v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{scheduling.LabelInstanceType: "m5.large"}}})
	if unlaunched.Offering.InstanceType != "" || unlaunched.Offering.PricePerHour != 0 || unlaunched.Stage != "" {
		t.Errorf("unlaunched claim view %+v, want no offering", unlaunched)
	}

	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: map[string]string{
			scheduling.LabelNodePool: "spot", scheduling.LabelInstanceType: "m5.large",
			scheduling.LabelTopologyZone: o.Zone, scheduling.LabelCapacityType: o.CapacityType,
		}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	nv := p.node(node)
	if !nv.Ready || nv.Offering.PricePerHour != o.PricePerHour {
		t.Errorf("node view %+v, want Ready at %v", nv, o.PricePerHour)
	}
	v := emptyView()
	v.Nodes["c1"] = nv
	v.Pods["inflate-a"] = podView{Node: "c1", Phase: corev1.PodRunning}
	out := table(v)
	for _, want := range []string{"c1", "spot", "m5.large", "1 nodes"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
