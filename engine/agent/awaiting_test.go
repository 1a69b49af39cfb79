package agent

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
