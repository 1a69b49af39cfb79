package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// pinnedPod is boundPod annotated do-not-disrupt: its node stays, so the
// only node consolidation can remove is the other one.
func pinnedPod(name, node string) *corev1.Pod {
	p := boundPod(name, node)
	p.Annotations = map[string]string{v1.AnnotationDoNotDisrupt: "true"}
	return p
}

// twoNodes: n1 (claim p-abc) holds a pinned pod, n2 (claim p-def) a pod
// that fits beside it, so the whole plan removes n2 unless it is held.
func twoNodes(n2Claim *v1.NodeClaim) []client.Object {
	return []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(),
		namedNode("n2", "fake://p-def"), n2Claim, pinnedPod("a", "n1"), boundPod("b", "n2")}
}

// planNodes observes and plans at now, returning the nodes the commands
// remove and why each kept node stays.
func planNodes(t *testing.T, a *controllers, now time.Time) (removed []string, kept map[string]string) {
	t.Helper()
	v, err := a.disruption.observe(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.disruption.plan(context.Background(), v, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept = map[string]string{}
	for _, c := range res.Commands {
		removed = append(removed, c.Nodes...)
	}
	for _, k := range res.Kept {
		kept[k.Node] = k.Reason
	}
	return removed, kept
}

// TestReplacementNotConsolidatedAgain (issue 18, bug 2): a replacement a
// disruption command launched is not the subject of another command for
// Timings.ReplacementHold after its launch (the annotation on its claim,
// so a restarted agent holds it too); after that it is an ordinary node.
func TestReplacementNotConsolidatedAgain(t *testing.T) {
	replacement := claimOf("p-def", "n2")
	replacement.Annotations = map[string]string{annotationReplacementOf: "n9"}
	replacement.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Minute))
	a2, c2, _, clk2 := testAgent(t, twoNodes(replacement)...)
	removed, kept := planNodes(t, a2, clk2.Now())
	if len(removed) > 0 {
		t.Fatalf("a replacement launched a minute ago was planned away: commands remove %v", removed)
	}
	if !strings.Contains(kept["n2"], "replacement for n9") {
		t.Errorf("n2 kept as %q, want the replacement hold named", kept["n2"])
	}
	if got := getClaim(t, c2, "p-def").Annotations[annotationReplacementOf]; got != "n9" {
		t.Fatalf("annotation %q", got)
	}

	clk2.Step(a2.disruption.timings.ReplacementHold)
	if removed, _ := planNodes(t, a2, clk2.Now()); !slices.Equal(removed, []string{"n2"}) {
		t.Errorf("after the hold: commands remove %v, want [n2]", removed)
	}
}

// TestEmptyReplacementNotHeld: a replacement that is empty once the nodes
// it replaces are gone (its pods went elsewhere) is not held: emptiness
// removes it after consolidateAfter, evicting nothing. While a replaced
// node is still there, its pods are on their way and it stays.
func TestEmptyReplacementNotHeld(t *testing.T) {
	for _, tc := range []struct {
		name, of string
		wantKept bool
	}{
		{name: "replaced node gone", of: "n9", wantKept: false},
		{name: "replaced node still draining", of: "n2,n9", wantKept: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replacement := initializedClaim()
			replacement.Annotations = map[string]string{annotationReplacementOf: tc.of}
			replacement.CreationTimestamp = metav1.NewTime(time.Now().Add(-time.Minute))
			a, c, _, clk := testAgent(t, emptyNodeClass(), emptyNodePool("0s"), emptyNode(), replacement,
				namedNode("n2", "fake://p-def"), claimOf("p-def", "n2"), pinnedPod("b", "n2"))
			if err := a.disruption.removeEmpty(context.Background(), clk.Now()); err != nil {
				t.Fatal(err)
			}
			if kept := getClaim(t, c, "p-abc").DeletionTimestamp == nil; kept != tc.wantKept {
				t.Errorf("empty replacement of %s kept = %v, want %v", tc.of, kept, tc.wantKept)
			}
		})
	}
}

// TestNodeOfACommandInFlightIsHeld (issue 18, bug 2): while a command acts
// on a node, no other plan takes it; once the command is done it may.
func TestNodeOfACommandInFlightIsHeld(t *testing.T) {
	a, _, _, clk := testAgent(t, twoNodes(claimOf("p-def", "n2"))...)
	a.disruption.inflight.add([]string{"n2"}, "Underutilized: replace n2")
	removed, kept := planNodes(t, a, clk.Now())
	if len(removed) > 0 || !strings.Contains(kept["n2"], "in flight") {
		t.Fatalf("commands remove %v, n2 kept as %q: want n2 held by the command in flight", removed, kept["n2"])
	}
	a.disruption.inflight.done([]string{"n2"})
	if removed, _ := planNodes(t, a, clk.Now()); !slices.Equal(removed, []string{"n2"}) {
		t.Errorf("after the command: commands remove %v, want [n2]", removed)
	}
}

// TestConsolidationWaitsForDrains (issue 18, bug 2): while a node an
// earlier command deleted still drains pods, consolidation runs no new
// command (its replacements would be taken by the draining pods); past
// Timings.ReplacementHold it plans anyway.
func TestConsolidationWaitsForDrains(t *testing.T) {
	objs := append(twoNodes(claimOf("p-def", "n2")), namedNode("n3", "fake://p-ghi"), claimOf("p-ghi", "n3"), pinnedPod("c", "n3"))
	a, c, _, _ := testAgent(t, objs...)
	ctx := context.Background()
	// The claim's finalizer keeps it, being deleted, while its node drains.
	if err := c.Delete(ctx, getClaim(t, c, "p-ghi")); err != nil {
		t.Fatal(err)
	}
	deleting := getClaim(t, c, "p-ghi")
	if deleting.DeletionTimestamp == nil {
		t.Fatal("p-ghi not being deleted")
	}
	start := deleting.DeletionTimestamp.Time
	if err := a.disruption.consolidate(ctx, start.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if getClaim(t, c, "p-def").DeletionTimestamp != nil {
		t.Fatal("consolidated n2 while n3 still drained a pod")
	}
	if err := a.disruption.consolidate(ctx, start.Add(a.disruption.timings.ReplacementHold+time.Second)); err != nil {
		t.Fatal(err)
	}
	claim := getClaim(t, c, "p-def")
	if claim.DeletionTimestamp == nil || claim.Annotations[annotationDisruptionReason] != string(consolidation.ReasonUnderutilized) {
		t.Errorf("n2 not consolidated once the drain outlasted the wait: deleting %v, annotations %v", claim.DeletionTimestamp != nil, claim.Annotations)
	}
}

// TestReplacementClaimNamesWhatItReplaces: the claims a command launches
// carry the nodes it removes, which is what holds them.
func TestReplacementClaimNamesWhatItReplaces(t *testing.T) {
	a, _, _, clk := testAgent(t, twoNodes(claimOf("p-def", "n2"))...)
	v, err := a.disruption.observe(context.Background(), clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	cmd := consolidation.Command{Nodes: []string{"n1", "n2"}}
	claim, err := replacementClaim(v, cmd, consolidation.Replacement{NodePool: "p", InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "on-demand"})
	if err != nil {
		t.Fatal(err)
	}
	if got := claim.Annotations[annotationReplacementOf]; got != "n1,n2" {
		t.Errorf("%s = %q, want n1,n2", annotationReplacementOf, got)
	}
}

// TestReplacementClaimCommitsToOpenKeys: a replacement on a pool that leaves
// a key open (In [a, b]) launches with the value the plan chose, so the
// node carries the label its pods need.
func TestReplacementClaimCommitsToOpenKeys(t *testing.T) {
	a, _, _, clk := testAgent(t, twoNodes(claimOf("p-def", "n2"))...)
	v, err := a.disruption.observe(context.Background(), clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.snap.Pools {
		p.Requirements.Add(scheduling.In("example.com/team", "a", "b"))
	}
	cmd := consolidation.Command{Nodes: []string{"n1"}}
	claim, err := replacementClaim(v, cmd, consolidation.Replacement{NodePool: "p", InstanceType: "m5.large", Zone: "us-east-1a",
		CapacityType: "on-demand", Labels: map[string]string{"example.com/team": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := claim.NodeLabels()["example.com/team"]; got != "b" {
		t.Errorf("the replacement's node would be labelled example.com/team=%q (requirements %+v), want b", got, claim.Spec.Requirements)
	}
}

// TestDestinationOfACommandInFlightIsHeld (issue 18, commands abandoned a
// second after their replacements launched): the existing nodes a
// command's pods move to are held until the nodes it removes are gone.
// Before, emptiness (every second) deleted such a node while it was still
// empty, so the command's re-validation found its pods a node short and
// abandoned it, or its evicted pods bought a new node.
func TestDestinationOfACommandInFlightIsHeld(t *testing.T) {
	// n1 is empty (consolidateAfter 0s); n2's pod b moves to n1.
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(),
		namedNode("n2", "fake://p-def"), claimOf("p-def", "n2"), boundPod("b", "n2")}
	a, c, _, clk := testAgent(t, objs...)
	ctx := context.Background()
	v, err := a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	cmd := consolidation.Command{Reason: consolidation.ReasonUnderutilized, Nodes: []string{"n2"},
		Moves: []consolidation.Move{{Pod: "default/b", From: "n2", To: "n1"}}, Detail: "delete the node: the pods fit on other nodes"}
	if err := a.disruption.execute(ctx, v, cmd, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if getClaim(t, c, "p-def").DeletionTimestamp == nil {
		t.Fatal("the command did not delete n2's claim")
	}
	clk.Step(time.Second)
	if err := a.disruption.removeEmpty(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if getClaim(t, c, "p-abc").DeletionTimestamp != nil {
		t.Fatal("emptiness deleted n1, the node n2's pods move to, while n2 drained")
	}
	_, kept := planNodes(t, a, clk.Now())
	if !strings.Contains(kept["n1"], "the pods of n2 move to it") {
		t.Errorf("n1 kept as %q, want the destination hold named", kept["n1"])
	}

	// Once n2 is gone, n1 is an ordinary node again.
	if err := c.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}); err != nil {
		t.Fatal(err)
	}
	claim := getClaim(t, c, "p-def")
	claim.Finalizers = nil
	if err := c.Update(ctx, claim); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.disruption.removeEmpty(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if getClaim(t, c, "p-abc").DeletionTimestamp == nil {
		t.Error("n1 still held after the nodes its pods came from were gone")
	}
}

// TestConsolidationRunsEveryCommandOfThePlan (issue 18: stable within two
// minutes): the commands of one plan run in the same tick, in order, not
// one plan and one drain apart. n2's and n3's pods each fit on n1 (whose
// pinned pod keeps it): two deletions in one plan, both carried out.
func TestConsolidationRunsEveryCommandOfThePlan(t *testing.T) {
	objs := append(twoNodes(claimOf("p-def", "n2")), namedNode("n3", "fake://p-ghi"), claimOf("p-ghi", "n3"), boundPod("c", "n3"))
	a, c, _, clk := testAgent(t, objs...)
	ctx := context.Background()
	v, err := a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.disruption.plan(ctx, v, clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commands) != 2 {
		t.Fatalf("the plan has %d commands, want 2 (a deletion each for n2 and n3): %+v", len(res.Commands), res.Commands)
	}
	if err := a.disruption.consolidate(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	for _, claim := range []string{"p-def", "p-ghi"} {
		if getClaim(t, c, claim).DeletionTimestamp == nil {
			t.Errorf("claim %s not deleted: the plan's commands did not all run", claim)
		}
	}
	if held := a.disruption.inflight.get("n3"); held != "" {
		t.Errorf("n3 still in flight after its command ran: %q", held)
	}
}
