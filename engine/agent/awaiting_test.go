package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// TestAwaitingPodsTaint: a claim the plan sized for pods still to come
// starts with the awaiting-pods taint, so kube-scheduler cannot bind the
// pods that arrive after its node is Ready anywhere but where the agent
// nominates them; the provisioner lifts it once every pod planned there has
// come and been nominated, from all nodes at once, and the lifecycle lifts it when the
// nomination window ends for pods that never come.
func TestAwaitingPodsTaint(t *testing.T) {
	ctx := context.Background()
	app := burstApp{name: "web", cpu: "2", memory: "1Gi", replicas: 60}
	a, c, _, claims := burstClaims(t, app, true)
	for i := range claims.Items {
		claim := &claims.Items[i]
		if !slices.ContainsFunc(claim.Spec.StartupTaints, func(t v1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods }) {
			t.Errorf("claim %s, sized for pods still to come, has no awaiting-pods startup taint: %v", claim.Name, claim.Spec.StartupTaints)
		}
		registerNode(t, a, c, claim)
		if res := reconcileOnce(t, a, claim.Name); res.RequeueAfter <= 0 || res.RequeueAfter > a.lifecycle.timings.NominationWindow {
			t.Errorf("claim %s: initialization requeued after %s; want within the nomination window", claim.Name, res.RequeueAfter)
		}
		if isTrue(getClaim(t, c, claim.Name), v1.ConditionInitialized) {
			t.Errorf("claim %s initialized with its awaiting-pods taint on", claim.Name)
		}
	}
	// A third of the pods come: their room is held, the rest still awaited.
	for i := 1; i <= 20; i++ {
		if err := c.Create(ctx, app.pod(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.provisioner.provision(ctx); err != nil {
		t.Fatal(err)
	}
	// No node is lifted before the others: kube-scheduler would bind the
	// pods nominated to a node still tainted to one that is not.
	if tainted := awaitingNodes(t, c); len(tainted) != len(claims.Items) {
		t.Errorf("the taint is left on %v of %d nodes while 39 pods planned were still to come", tainted, len(claims.Items))
	}
	for i := 21; i < app.replicas; i++ {
		if err := c.Create(ctx, app.pod(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.provisioner.provision(ctx); err != nil {
		t.Fatal(err)
	}
	if n := nominatedCount(a); n != app.replicas {
		t.Errorf("%d pods nominated; want all %d", n, app.replicas)
	}
	if tainted := awaitingNodes(t, c); len(tainted) != 0 {
		t.Errorf("every pod planned came and was nominated, and %v still carry the awaiting-pods taint", tainted)
	}
	for i := range claims.Items {
		reconcileOnce(t, a, claims.Items[i].Name)
		if !isTrue(getClaim(t, c, claims.Items[i].Name), v1.ConditionInitialized) {
			t.Errorf("claim %s not initialized once its taint was lifted", claims.Items[i].Name)
		}
	}
}

// TestAwaitingPodsTaintEndsWithTheWindow: pods that never come (a
// ReplicaSet scaled back, a quota) keep the taint a nomination window at
// most; the lifecycle lifts it and initializes the node.
func TestAwaitingPodsTaintEndsWithTheWindow(t *testing.T) {
	a, c, clk, claims := burstClaims(t, burstApp{name: "web", cpu: "2", memory: "1Gi", replicas: 20}, true)
	for i := range claims.Items {
		registerNode(t, a, c, &claims.Items[i])
	}
	clk.Step(a.lifecycle.timings.NominationWindow - time.Second)
	for i := range claims.Items {
		reconcileOnce(t, a, claims.Items[i].Name)
	}
	if len(awaitingNodes(t, c)) != len(claims.Items) {
		t.Fatal("the taint was lifted before the nomination window ended")
	}
	clk.Step(2 * time.Second)
	for i := range claims.Items {
		reconcileOnce(t, a, claims.Items[i].Name) // lifts
		reconcileOnce(t, a, claims.Items[i].Name) // initializes
		if !isTrue(getClaim(t, c, claims.Items[i].Name), v1.ConditionInitialized) {
			t.Errorf("claim %s not initialized after its window", claims.Items[i].Name)
		}
	}
	if tainted := awaitingNodes(t, c); len(tainted) != 0 {
		t.Errorf("%v keep the awaiting-pods taint after the nomination window", tainted)
	}
}

// registerNode launches claim on the fake cloud and creates its Ready
// node with the claim's taints and startup taints, as a kubelet registers
// (--register-with-taints); the lifecycle registers the claim.
func registerNode(t *testing.T, a *controllers, c client.Client, claim *v1.NodeClaim) {
	t.Helper()
	created := getClaim(t, c, claim.Name)
	if created.CreationTimestamp.IsZero() { // the fake API server does not set it
		created.CreationTimestamp = metav1.NewTime(a.lifecycle.clock.Now())
		if err := c.Update(context.Background(), created); err != nil {
			t.Fatal(err)
		}
	}
	reconcileOnce(t, a, claim.Name)
	launched := getClaim(t, c, claim.Name)
	labels := launched.NodeLabels()
	labels[scheduling.LabelInstanceType] = launched.Status.InstanceType
	labels[scheduling.LabelTopologyZone] = launched.Status.Zone
	labels[scheduling.LabelCapacityType] = launched.Status.CapacityType
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: claim.Name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: launched.Status.ProviderID},
		Status: corev1.NodeStatus{
			Capacity: launched.Status.Capacity, Allocatable: launched.Status.Allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	for _, tt := range append(slices.Clone(launched.Spec.Taints), launched.Spec.StartupTaints...) {
		node.Spec.Taints = append(node.Spec.Taints, tt.ToCore())
	}
	if err := c.Create(context.Background(), node); err != nil {
		t.Fatal(err)
	}
	reconcileOnce(t, a, claim.Name)
	if !isTrue(getClaim(t, c, claim.Name), v1.ConditionRegistered) {
		t.Fatalf("claim %s did not register", claim.Name)
	}
}

// awaitingNodes are the nodes that carry the awaiting-pods taint.
func awaitingNodes(t *testing.T, c client.Client) []string {
	t.Helper()
	var nodes corev1.NodeList
	if err := c.List(context.Background(), &nodes); err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range nodes.Items {
		if hasAwaitingTaint(&nodes.Items[i]) {
			out = append(out, nodes.Items[i].Name)
		}
	}
	return out
}

// TestAwaitPodsOff: --await-pods=false launches the same plan without the
// taint.
func TestAwaitPodsOff(t *testing.T) {
	_, _, _, claims := burstClaims(t, burstApp{name: "web", cpu: "2", memory: "1Gi", replicas: 60}, false)
	for _, claim := range claims.Items {
		if slices.ContainsFunc(claim.Spec.StartupTaints, func(t v1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods }) {
			t.Errorf("claim %s has the awaiting-pods taint with --await-pods=false", claim.Name)
		}
	}
}

// burstClaims runs one batch for app's first pod (the ReplicaSet creating
// the rest), with the awaiting-pods taint on or off, and returns the
// claims it created.
func burstClaims(t *testing.T, app burstApp, await bool) (*controllers, client.WithWatch, *clocktesting.FakeClock, *v1.NodeClaimList) {
	t.Helper()
	a, c, _, clk := testAgent(t, emptyNodeClass(), emptyNodePool("30s"), app.replicaSet(), app.pod(0))
	a.provisioner.recorder = &events.FakeRecorder{}
	a.provisioner.await = await
	if err := a.provisioner.provision(context.Background()); err != nil {
		t.Fatal(err)
	}
	claims := &v1.NodeClaimList{}
	if err := c.List(context.Background(), claims); err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) == 0 {
		t.Fatal("no claim for the burst")
	}
	return a, c, clk, claims
}

// TestAwaitingWindowFollowsArrivals: the awaiting-pods taint's window runs
// from registration, or from the last arrival of a pod slots held when
// later (a burst still coming), but never past maxAwaitWindows windows
// after registration.
func TestAwaitingWindowFollowsArrivals(t *testing.T) {
	const window = 30 * time.Second
	reg := time.Unix(1000, 0)
	claim := &v1.NodeClaim{Status: v1.NodeClaimStatus{Conditions: []metav1.Condition{
		{Type: v1.ConditionRegistered, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(reg)}}}}
	for _, tc := range []struct {
		name        string
		at, arrival time.Duration // after registration; arrival < 0: none
		wantExpired bool
		wantLeft    time.Duration
	}{
		{name: "no arrival, inside the window", at: 10 * time.Second, arrival: -1, wantLeft: 20 * time.Second},
		{name: "no arrival, window over", at: window, arrival: -1, wantExpired: true},
		{name: "an arrival before registration", at: window, arrival: -5 * time.Second, wantExpired: true},
		{name: "pods still coming", at: 50 * time.Second, arrival: 40 * time.Second, wantLeft: 20 * time.Second},
		{name: "a window after the last arrival", at: 70 * time.Second, arrival: 40 * time.Second, wantExpired: true},
		{name: "capped", at: maxAwaitWindows*window - time.Second, arrival: maxAwaitWindows*window - 2*time.Second, wantLeft: time.Second},
		{name: "past the cap", at: maxAwaitWindows * window, arrival: maxAwaitWindows*window - time.Second, wantExpired: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var last time.Time
			if tc.arrival >= 0 || tc.arrival == -5*time.Second {
				last = reg.Add(tc.arrival)
			}
			a := &arrivals{}
			a.mark(last)
			expired, left := awaitingExpired(claim, reg.Add(tc.at), window, a.at())
			if expired != tc.wantExpired || left != tc.wantLeft {
				t.Errorf("expired %v, left %v; want %v, %v", expired, left, tc.wantExpired, tc.wantLeft)
			}
		})
	}
	var none *arrivals
	none.mark(reg)
	if !none.at().IsZero() {
		t.Error("a nil arrivals records a time")
	}
}

// TestArrivalsAreNewPods: the last arrival is the newest pod filled into
// its slot, by creation: passes that fill the same pending pods again
// (they wait on a tainted node, even past their nominations' window) do not
// push the awaiting-pods window out; a pod created later does.
func TestArrivalsAreNewPods(t *testing.T) {
	ctx := context.Background()
	app := burstApp{name: "web", cpu: "2", memory: "1Gi", replicas: 60}
	a, c, clk, claims := burstClaims(t, app, true)
	for i := range claims.Items {
		registerNode(t, a, c, &claims.Items[i])
	}
	create := func(i int) {
		pod := app.pod(i)
		pod.CreationTimestamp = metav1.NewTime(clk.Now())
		if err := c.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 20; i++ {
		create(i)
	}
	if err := a.provisioner.provision(ctx); err != nil {
		t.Fatal(err)
	}
	// Creation timestamps are stored to the second.
	first := a.provisioner.arrivals.at()
	if want := clk.Now().Truncate(time.Second); !first.Equal(want) {
		t.Fatalf("last arrival %v; want the pods' creation %v", first, want)
	}
	for _, step := range []time.Duration{5 * time.Second, a.provisioner.timings.NominationWindow} {
		clk.Step(step)
		if err := a.provisioner.provision(ctx); err != nil {
			t.Fatal(err)
		}
		if got := a.provisioner.arrivals.at(); !got.Equal(first) {
			t.Errorf("%v later, a pass over the same pods moved the last arrival from %v to %v", step, first, got)
		}
	}
	create(21)
	if err := a.provisioner.provision(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := a.provisioner.arrivals.at(), clk.Now().Truncate(time.Second); !got.Equal(want) {
		t.Errorf("a new pod did not count as an arrival: last %v, want %v", got, want)
	}
}

// TestAwaitingPodsTaintWithEveryPodThere: a plan of several claims starts
// them with the awaiting-pods taint even when no pod is still to come
// (kube-scheduler would clear the pods' nominated nodes before the nodes
// register, then bind them wherever it scores best), and lifts it once
// every claim has registered; a plan of one claim starts untainted.
func TestAwaitingPodsTaintWithEveryPodThere(t *testing.T) {
	for _, tc := range []struct {
		name    string
		app     burstApp
		tainted bool
	}{
		{name: "several claims", app: burstApp{name: "big", cpu: "30", memory: "1Gi", replicas: 12}, tainted: true},
		{name: "one claim", app: burstApp{name: "small", cpu: "1", memory: "1Gi", replicas: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			objs := []client.Object{emptyNodeClass(), emptyNodePool("30s"), tc.app.replicaSet()}
			for i := range tc.app.replicas {
				objs = append(objs, tc.app.pod(i))
			}
			a, c, _, _ := testAgent(t, objs...)
			a.provisioner.recorder = &events.FakeRecorder{}
			a.provisioner.await = true
			if err := a.provisioner.provision(ctx); err != nil {
				t.Fatal(err)
			}
			var claims v1.NodeClaimList
			if err := c.List(ctx, &claims); err != nil {
				t.Fatal(err)
			}
			if several := len(claims.Items) > 1; several != tc.tainted {
				t.Fatalf("the plan launched %d claims (%s); the case needs several: %v", len(claims.Items), describe(claims.Items), tc.tainted)
			}
			for i := range claims.Items {
				claim := &claims.Items[i]
				if got := slices.ContainsFunc(claim.Spec.StartupTaints, func(t v1.Taint) bool { return t.Key == v1.TaintKeyAwaitingPods }); got != tc.tainted {
					t.Errorf("claim %s: awaiting-pods startup taint %v; want %v", claim.Name, got, tc.tainted)
				}
			}
			for i := range claims.Items {
				if tainted := awaitingNodes(t, c); tc.tainted && len(tainted) != i {
					t.Errorf("%d of %d claims registered and %v carry the taint; want every registered node to keep it until all have registered", i, len(claims.Items), tainted)
				}
				registerNode(t, a, c, &claims.Items[i])
				if err := a.provisioner.fillAwaiting(ctx, a.lifecycle.clock.Now()); err != nil {
					t.Fatal(err)
				}
			}
			if tainted := awaitingNodes(t, c); len(tainted) != 0 {
				t.Errorf("every claim registered and every pod is nominated, and %v still carry the awaiting-pods taint", tainted)
			}
		})
	}
}

func describe(claims []v1.NodeClaim) string {
	var out []string
	for _, c := range claims {
		out = append(out, fmt.Sprintf("%s %v", c.Name, c.Spec.Requirements))
	}
	return strings.Join(out, "; ")
}

// TestSettleHintsWritesAgainWhatTheSchedulerCleared: kube-scheduler's
// clear of a pod's nominated node (each failed try) can land after the
// agent wrote it; settleHints writes such hints again until they hold,
// for at most maxHintRounds rounds, and writes none the cache shows.
func TestSettleHintsWritesAgainWhatTheSchedulerCleared(t *testing.T) {
	saved := hintSettle
	hintSettle = time.Millisecond
	t.Cleanup(func() { hintSettle = saved })
	for _, tc := range []struct {
		name       string
		nominated  bool // the pods show their hints before
		clears     int  // late clears per pod
		wantRounds int
		wantHeld   bool
	}{
		{name: "already nominated", nominated: true, wantRounds: 0, wantHeld: true},
		{name: "nothing cleared", clears: 0, wantRounds: 1, wantHeld: true},
		{name: "cleared once", clears: 1, wantRounds: 2, wantHeld: true},
		{name: "cleared twice", clears: 2, wantRounds: 3, wantHeld: true},
		{name: "cleared for ever", clears: 1000, wantRounds: maxHintRounds, wantHeld: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			hints := []hint{{namespace: "default", name: "a", node: "n1"}, {namespace: "default", name: "b", node: "n1"}, {namespace: "default", name: "c", node: "n2"}}
			var pods []client.Object
			for _, h := range hints {
				pod := pendingPod(h.name, "1")
				if tc.nominated {
					pod.Status.NominatedNodeName = h.node
				}
				pods = append(pods, pod)
			}
			sched := &lateClearing{clears: tc.clears, done: map[string]int{}}
			a, c, _, _ := testAgentWith(t, func(c client.WithWatch) client.Client { sched.Client = c; return sched }, pods...)
			rounds, held := a.provisioner.settleHints(ctx, hints, true)
			if rounds != tc.wantRounds || held != tc.wantHeld {
				t.Errorf("settleHints: %d rounds, held %v; want %d, %v", rounds, held, tc.wantRounds, tc.wantHeld)
			}
			for _, h := range hints {
				var pod corev1.Pod
				if err := c.Get(ctx, client.ObjectKey{Namespace: h.namespace, Name: h.name}, &pod); err != nil {
					t.Fatal(err)
				}
				if got := pod.Status.NominatedNodeName == h.node; got != tc.wantHeld {
					t.Errorf("pod %s nominated to %q after settling; want %q held: %v", h.name, pod.Status.NominatedNodeName, h.node, tc.wantHeld)
				}
			}
		})
	}
}

// lateClearing is a client on which kube-scheduler clears a pod's
// nominated node right after the agent writes it, clears times per pod.
type lateClearing struct {
	client.Client
	clears int
	mu     sync.Mutex // the agent writes hints from many goroutines
	done   map[string]int
}

func (l *lateClearing) Status() client.SubResourceWriter {
	return lateClearingWriter{SubResourceWriter: l.Client.Status(), l: l}
}

type lateClearingWriter struct {
	client.SubResourceWriter
	l *lateClearing
}

func (w lateClearingWriter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := w.SubResourceWriter.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	if _, ok := obj.(*corev1.Pod); !ok || !w.l.clear(obj.GetName()) {
		return nil
	}
	return w.SubResourceWriter.Patch(ctx, obj, client.RawPatch(types.MergePatchType, []byte(`{"status":{"nominatedNodeName":""}}`)))
}

// clear reports whether the scheduler clears pod's nominated node now.
func (l *lateClearing) clear(pod string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done[pod] >= l.clears {
		return false
	}
	l.done[pod]++
	return true
}
