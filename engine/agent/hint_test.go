package agent

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestHintsForAddsTheAwaitingToleration: a pod planned on a node that
// starts with the awaiting-pods taint is given the toleration of that
// node's value (appended to the tolerations it has, or as its first),
// unless it tolerates the taint already; a pod that names its node and
// tolerates it needs no write at all.
func TestHintsForAddsTheAwaitingToleration(t *testing.T) {
	notReady := corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	for _, tc := range []struct {
		name        string
		tolerations []corev1.Toleration
		nominated   string
		target      string
		want        []hint
	}{
		{name: "no tolerations", target: "c1",
			want: []hint{{namespace: "default", name: "p", node: "c1", tolerate: "c1"}}},
		{name: "tolerations to append to", tolerations: []corev1.Toleration{notReady}, target: "c1",
			want: []hint{{namespace: "default", name: "p", node: "c1", tolerate: "c1", appendTo: true}}},
		{name: "nominated, toleration missing", nominated: "c1", target: "c1",
			want: []hint{{namespace: "default", name: "p", node: "c1", tolerate: "c1", nominated: true}}},
		{name: "tolerates this node already", tolerations: []corev1.Toleration{awaitingToleration("c1")}, target: "c1",
			want: []hint{{namespace: "default", name: "p", node: "c1"}}},
		{name: "tolerates another node only", tolerations: []corev1.Toleration{awaitingToleration("c2")}, target: "c1",
			want: []hint{{namespace: "default", name: "p", node: "c1", tolerate: "c1", appendTo: true}}},
		{name: "tolerates every awaiting node", tolerations: []corev1.Toleration{{Key: v1.TaintKeyAwaitingPods, Operator: corev1.TolerationOpExists}},
			target: "c1", want: []hint{{namespace: "default", name: "p", node: "c1"}}},
		{name: "tolerates everything", tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			target: "c1", want: []hint{{namespace: "default", name: "p", node: "c1"}}},
		{name: "nominated and tolerating", tolerations: []corev1.Toleration{awaitingToleration("c1")}, nominated: "c1", target: "c1"},
		{name: "registered node of an awaiting claim", target: "node-a",
			want: []hint{{namespace: "default", name: "p", node: "node-a", tolerate: "c1"}}},
		{name: "claim initialized, its taint lifted", target: "lifted", want: []hint{{namespace: "default", name: "p", node: "lifted"}}},
		{name: "node without the taint", target: "old", want: []hint{{namespace: "default", name: "p", node: "old"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := pendingPod("p", "1")
			pod.Spec.Tolerations = tc.tolerations
			pod.Status.NominatedNodeName = tc.nominated
			claims := map[string]*v1.NodeClaim{
				"c1":     awaitingClaim("c1", "node-a"),
				"c2":     awaitingClaim("c2", ""),
				"old":    {},
				"lifted": initializedAwaitingClaim("lifted"),
			}
			got := hintsFor([]*corev1.Pod{pod}, map[string]string{"default/p": tc.target}, awaitingValues(claims))
			if !slices.Equal(got, tc.want) {
				t.Errorf("hints %+v, want %+v", got, tc.want)
			}
		})
	}
}

func awaitingClaim(name, node string) *v1.NodeClaim {
	c := &v1.NodeClaim{}
	c.Name = name
	c.Spec.StartupTaints = []v1.Taint{awaitingTaintFor(name)}
	c.Status.NodeName = node
	return c
}

func initializedAwaitingClaim(name string) *v1.NodeClaim {
	c := awaitingClaim(name, name)
	setCondition(c, v1.ConditionInitialized, "True", "Initialized", "", time.Unix(1e9, 0))
	return c
}

// TestAwaitingTaintValueIsAValidTaintValue: the claim's name when it fits
// a taint value, a stable hash of it when it is longer.
func TestAwaitingTaintValueIsAValidTaintValue(t *testing.T) {
	valid := regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	long := strings.Repeat("a", 63) + "-x1b2c"
	for _, name := range []string{"default-r9gtb", strings.Repeat("p", 57) + "-abcde", long} {
		got := awaitingTaintValue(name)
		if len(got) > 63 || !valid.MatchString(got) {
			t.Errorf("awaitingTaintValue(%q) = %q: not a taint value", name, got)
		}
		if len(name) <= 63 && got != name {
			t.Errorf("awaitingTaintValue(%q) = %q, want the name", name, got)
		}
	}
	if again := strings.Clone(long); awaitingTaintValue(long) != awaitingTaintValue(again) || awaitingTaintValue(long) == awaitingTaintValue(long+"z") {
		t.Errorf("the hash of a long name is not stable and distinct")
	}
}

// TestHinterWritesTheTolerationNotTheNomination: with the toleration
// written, the pod's nominated node is left alone (its node is the only
// new one it tolerates); an agent refused patch on pods falls back to the
// nominated node, for this pod and every later one.
func TestHinterWritesTheTolerationNotTheNomination(t *testing.T) {
	for _, tc := range []struct {
		name          string
		forbidden     bool
		tolerations   []corev1.Toleration
		wantTolerates bool
		wantNominated bool
	}{
		{name: "first toleration", wantTolerates: true},
		{name: "appended toleration", tolerations: []corev1.Toleration{{Key: "example.com/gpu", Operator: corev1.TolerationOpExists}}, wantTolerates: true},
		{name: "patch on pods refused", forbidden: true, wantNominated: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pods := []client.Object{pendingPod("a", "1"), pendingPod("b", "1")}
			for _, p := range pods {
				p.(*corev1.Pod).Spec.Tolerations = tc.tolerations
			}
			refused := 0
			_, c, _, _ := testAgentWith(t, func(c client.WithWatch) client.Client { return c }, pods...)
			h := &hinter{client: c, log: logr.Discard()}
			if tc.forbidden {
				h.client = interceptor.NewClient(c, interceptor.Funcs{Patch: func(ctx context.Context, cl client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					refused++
					return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, obj.GetName(), nil)
				}})
			}
			var hints []hint
			for _, p := range pods {
				hints = append(hints, hint{namespace: "default", name: p.GetName(), node: "c1", tolerate: "c1", appendTo: len(tc.tolerations) > 0})
			}
			// One at a time, so that the refusal is seen before the second.
			for _, hi := range hints {
				h.write(ctx, []hint{hi})
			}
			if tc.forbidden && refused != 1 {
				t.Errorf("%d tolerations refused; want the first only, the agent then stops asking", refused)
			}
			for _, p := range pods {
				var pod corev1.Pod
				if err := c.Get(ctx, client.ObjectKeyFromObject(p), &pod); err != nil {
					t.Fatal(err)
				}
				if got := toleratesAwaiting(&pod, "c1"); got != tc.wantTolerates {
					t.Errorf("pod %s tolerates c1: %v, want %v (tolerations %v)", pod.Name, got, tc.wantTolerates, pod.Spec.Tolerations)
				}
				if got := pod.Status.NominatedNodeName == "c1"; got != tc.wantNominated {
					t.Errorf("pod %s nominated to %q; want c1: %v", pod.Name, pod.Status.NominatedNodeName, tc.wantNominated)
				}
				if toleratesAwaiting(&pod, "c2") {
					t.Errorf("pod %s tolerates another claim's node", pod.Name)
				}
				if len(tc.tolerations) > 0 && pod.Spec.Tolerations[0] != tc.tolerations[0] {
					t.Errorf("pod %s lost its toleration %v: %v", pod.Name, tc.tolerations[0], pod.Spec.Tolerations)
				}
			}
		})
	}
}
