package agent

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestKeptNodesSayWhy: a node consolidation keeps for a pending pod carries
// Unconsolidatable=True with the reason on its claim, and its claim and Node get one
// Unconsolidatable event; a second plan with the same reason emits nothing; once the reason
// is gone the condition goes.
func TestKeptNodesSayWhy(t *testing.T) {
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(), boundPod("a", "n1")}
	waiting := pendingPod("waiting", "1500m")
	waiting.Spec.NodeSelector[scheduling.LabelHostname] = "n1"
	a, c, _, clk := testAgent(t, append(objs, waiting)...)
	rec := a.disruption.disrupter.recorder.(*events.FakeRecorder)
	ctx := context.Background()

	if err := a.disruption.consolidate(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(getClaim(t, c, "p-abc").Status.Conditions, v1.ConditionUnconsolidatable)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason == "" || !strings.Contains(cond.Message, "pending pods") {
		t.Fatalf("Unconsolidatable = %+v, want True with consolidation's reason", cond)
	}
	if got := drain(rec); len(got) != 2 || !strings.Contains(got[0], "Unconsolidatable Consolidation keeps the node: ") {
		t.Fatalf("events = %q, want one Unconsolidatable on the claim and one on its Node", got)
	}

	if err := a.disruption.consolidate(ctx, clk.Now()); err != nil {
		t.Fatal(err)
	}
	if got := drain(rec); len(got) != 0 {
		t.Errorf("the same reason again emitted %q; events go out only when the reason changes", got)
	}

	// The pending pod is gone: nothing keeps the node for it any more.
	if err := c.Delete(ctx, waiting); err != nil {
		t.Fatal(err)
	}
	// Plan and explain only: executing the replacement this plan now makes would wait for a
	// node to initialize.
	v, err := a.disruption.observe(ctx, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.disruption.plan(ctx, v, clk.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.disruption.explainKept(ctx, v, res); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(getClaim(t, c, "p-abc").Status.Conditions, v1.ConditionUnconsolidatable); cond != nil && strings.Contains(cond.Message, "pending pods") {
		t.Errorf("still kept for pending pods after the pod went: %+v", cond)
	}
}

// drain returns the events the fake recorder holds.
func drain(rec *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}
