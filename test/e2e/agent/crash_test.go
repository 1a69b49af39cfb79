package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/kwok"
)

// TestCrashBeforeRegistration is the e2e test 4: the agent is
// killed (SIGKILL) right after it created a claim and before the node
// registered (a 5 s simulated boot holds the launch); restarted, it
// launches those claims once and creates claims only for the pods they do
// not cover: no duplicate node, no orphan, no claim removed, every pod
// Running. The kill may land between two claims of one batch, so the
// restart may rightly create the rest.
func TestCrashBeforeRegistration(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "crash")
	apply(t, e, ns, kwokClass("crash")+"\n---\n"+poolYAML("crash", "crash", ""))
	first := startAgent(t, e, "crash-1", "--kwok-launch-delay=5s")
	apply(t, e, ns, deploymentYAML("crash", "crash", 3, "1"))

	waitFor(t, 30*time.Second, "the first nodeclaim", func() (bool, string) {
		return len(poolClaims(t, e, "crash")) > 0, "no claim yet"
	})
	first.kill()
	atCrash := poolClaims(t, e, "crash")
	if nodes := poolNodes(t, e, "crash"); len(nodes) != 0 {
		t.Fatalf("the node registered before the crash (%d nodes); the test's launch delay is too short", len(nodes))
	}
	t.Logf("killed the agent with %d claim(s) persisted and no node", len(atCrash))

	second := startAgent(t, e, "crash-2")
	cleanupPool(t, e, ns, "crash")
	waitFor(t, 30*time.Second, "3 pods Running after the restart", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=crash", "crash")
		return running == 3, states
	})
	// Let any duplicate launch or late garbage show up.
	time.Sleep(5 * time.Second)
	claims := poolClaims(t, e, "crash")
	nodes := poolNodes(t, e, "crash")
	live := map[string]bool{}
	for _, c := range claims {
		live[c.Name] = c.DeletionTimestamp == nil
	}
	for _, c := range atCrash {
		if !live[c.Name] {
			t.Errorf("claim %s, persisted before the crash, was removed after the restart instead of being used", c.Name)
		}
	}
	created := strings.Count(second.log.String(), "created nodeclaim")
	if len(claims) != len(atCrash)+created {
		t.Errorf("%d claims at the end; %d at the crash and %d created after it", len(claims), len(atCrash), created)
	}
	// Each pod needs a node of its own (1 cpu on the cheapest types): a
	// claim more than the pods is a launch for pods already covered.
	if len(claims) > 3 {
		t.Errorf("%d claims for 3 pods: the restart launched for the same pods again", len(claims))
	}
	var pods corev1.PodList
	if err := e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app": "crash"}); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, p := range pods.Items {
		used[p.Spec.NodeName] = true
	}
	for _, n := range nodes {
		if !used[n.Name] {
			t.Errorf("node %s runs none of the pods: a launch for pods already covered", n.Name)
		}
	}
	byProvider := map[string]int{}
	for _, n := range nodes {
		byProvider[n.Spec.ProviderID]++
	}
	for _, c := range claims {
		if byProvider[c.Status.ProviderID] != 1 {
			t.Errorf("claim %s (%s) has %d nodes, want 1", c.Name, c.Status.ProviderID, byProvider[c.Status.ProviderID])
		}
	}
	if len(nodes) != len(claims) {
		t.Errorf("%d nodes for %d claims", len(nodes), len(claims))
	}
	// No KWOK node of this cluster without a claim.
	var all corev1.NodeList
	if err := e.client.List(context.Background(), &all); err != nil {
		t.Fatal(err)
	}
	tracked := map[string]bool{}
	for _, c := range claims {
		tracked[c.Status.ProviderID] = true
	}
	for _, n := range all.Items {
		if n.Annotations[kwok.AnnotationCluster] == "e2e" && strings.HasPrefix(n.Spec.ProviderID, kwok.ProviderIDPrefix) &&
			n.Labels["tenon.dev/nodepool"] == "crash" && !tracked[n.Spec.ProviderID] {
			t.Errorf("orphan node %s", n.Name)
		}
	}
}

// TestLeaderElection is the e2e test 5: of two agents only the
// leader acts; killed, the other takes over and acts within 20 s; never
// both.
func TestLeaderElection(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "leader")
	apply(t, e, ns, kwokClass("leader")+"\n---\n"+poolYAML("leader", "leader", ""))
	args := []string{"--leader-elect", "--leader-elect-namespace=kube-system"}
	a := startAgent(t, e, "leader-a", args...)
	b := startAgent(t, e, "leader-b", args...)
	cleanupPool(t, e, ns, "leader")

	var leader, standby *agentProc
	waitFor(t, 30*time.Second, "one agent elected", func() (bool, string) {
		la, lb := acquired(a), acquired(b)
		switch {
		case la && lb:
			t.Fatalf("both agents acquired the lease")
		case la:
			leader, standby = a, b
		case lb:
			leader, standby = b, a
		}
		return leader != nil, "no leader yet"
	})
	apply(t, e, ns, deploymentYAML("leader", "leader", 1, "1"))
	waitFor(t, 30*time.Second, "the leader's pod Running", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=leader", "leader")
		return running == 1, states
	})
	if acted(standby) {
		t.Fatalf("the standby %s created nodeclaims while %s led", standby.name, leader.name)
	}
	lease := &coordinationv1.Lease{}
	if err := e.client.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "tenon-agent-leader"}, lease); err != nil {
		t.Fatalf("reading the lease: %v", err)
	}
	t.Logf("%s leads (lease holder %s)", leader.name, deref(lease.Spec.HolderIdentity))

	leader.kill()
	killed := time.Now()
	scale(t, e, ns, "leader", 2)
	took := waitFor(t, 20*time.Second, "the standby acting for the new pod", func() (bool, string) {
		running, _, states := runningOn(t, e, ns, "app=leader", "leader")
		return running == 2 && acted(standby), states
	})
	t.Logf("the standby took over and its pod ran %s after the kill", (took + time.Since(killed) - took).Round(100*time.Millisecond))
}

func acquired(p *agentProc) bool {
	return strings.Contains(strings.ToLower(p.log.String()), "successfully acquired lease")
}

func acted(p *agentProc) bool {
	return strings.Contains(p.log.String(), "created nodeclaim")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return fmt.Sprint(*s)
}
