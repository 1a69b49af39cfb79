package check_test

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// TestResultFindsViolations breaks a valid Solve result in one way at a
// time and checks that Result names the broken rule.
func TestResultFindsViolations(t *testing.T) {
	def := statetest.Snapshot(statetest.Pools(statetest.Pool("default")), nil, nil)
	ps := statetest.Pods(2, "p", "1", "1Gi")
	tests := []struct {
		name   string
		mutate func(r *packing.Result)
		want   string
	}{
		{"missing pod", func(r *packing.Result) { r.Placements = r.Placements[:1] }, "neither placed nor listed"},
		{"wrong price", func(r *packing.Result) { r.Claims[0].Options[0].PricePerHour *= 2 }, "no available offering"},
		{"overcommit", func(r *packing.Result) {
			r.Claims[0].Options[0] = packing.InstanceOption{InstanceType: "t3a.nano", Zone: "us-east-1a", CapacityType: "on-demand", PricePerHour: 0.0047}
		}, "exceeds allocatable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := packing.Solve(t.Context(), def, ps)
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			tt.mutate(r)
			var msgs []string
			for _, v := range check.Result(def, ps, r) {
				msgs = append(msgs, v.String())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tt.want) {
				t.Errorf("violations %q, want one containing %q", msgs, tt.want)
			}
		})
	}
}

// TestResultFindsDaemonSetHostPortClash checks that a pod placed on a new
// node whose daemonset uses the same host port is a violation: the result
// is solved without the daemonset, then checked with it.
func TestResultFindsDaemonSetHostPortClash(t *testing.T) {
	pools := statetest.Pools(statetest.Pool("default"))
	ps := []*state.Pod{statetest.Pod("a", "1", "1Gi", statetest.WithHostPort(8080))}
	r, err := packing.Solve(t.Context(), statetest.Snapshot(pools, nil, nil), ps)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	withDaemon := statetest.Snapshot(pools, nil, nil, statetest.DaemonSet("ds", "10m", "10Mi", statetest.WithHostPort(8080)))
	var msgs []string
	for _, v := range check.Result(withDaemon, ps, r) {
		msgs = append(msgs, v.String())
	}
	if want := "host port clashes with daemonset default/ds"; !strings.Contains(strings.Join(msgs, "\n"), want) {
		t.Errorf("violations %q, want one containing %q", msgs, want)
	}
}

// TestResultJudgesSpreadPerPlacement checks that a placement lowering an
// existing skew is valid, as kube-scheduler judges each placement: zone a
// already holds three matching pods and b and c none; a pod placed in b
// leaves the whole result skewed by 3, yet kube-scheduler allows it.
func TestResultJudgesSpreadPerPlacement(t *testing.T) {
	def := statetest.Pool("default")
	var nodes []*state.Node
	var bound []*state.Pod
	for i, zone := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
		nodes = append(nodes, statetest.Node(def, fmt.Sprintf("n%d", i), "m5.xlarge", zone))
	}
	for i := range 3 {
		bound = append(bound, statetest.Pod(fmt.Sprintf("old-%d", i), "100m", "100Mi", statetest.WithLabel("app", "a"), statetest.BoundTo("n0")))
	}
	spread := statetest.WithSpread("topology.kubernetes.io/zone", 1, corev1.DoNotSchedule, map[string]string{"app": "a"})
	ps := []*state.Pod{statetest.Pod("p", "100m", "100Mi", statetest.WithLabel("app", "a"), spread)}
	snap := statetest.Snapshot(statetest.Pools(def), nodes, append(bound, ps...))
	r := &packing.Result{Placements: []packing.Placement{{Pod: "default/p", Node: "n1"}}}
	if vs := check.Result(snap, ps, r); len(vs) != 0 {
		t.Errorf("violations %v, want none", vs)
	}
	r = &packing.Result{Placements: []packing.Placement{{Pod: "default/p", Node: "n0"}}}
	if vs := check.Result(snap, ps, r); len(vs) == 0 {
		t.Error("a fourth pod in zone a passes, want a spread violation")
	}
}
