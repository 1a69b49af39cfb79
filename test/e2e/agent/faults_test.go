package agent_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/test/e2e/agent/internal/cloudfault"
)

// The agent's fault tests: the control plane or the cloud fails while the agent launches or
// drains, and afterwards
//   - no instance leaked: every node of the pool belongs to a live NodeClaim, and every claim
//     has at most one node (no duplicate launch);
//   - the pool's limit was never exceeded, counted over claims and nodes every 200 ms;
//   - no pod of a PodDisruptionBudget was evicted past its budget (mid-drain test);
//   - the pods run again within the stated recovery time.
// The agent process must survive the fault: a controller that exits on a lost connection would
// be restarted by its Deployment, but would also drop its in-flight work.

// faultRecovery is the time the pods get to run again once a fault ends. The agent's informers
// re-list after a reconnect and controller-runtime retries failed reconciles with exponential
// backoff capped well below this.
const faultRecovery = 90 * time.Second

// faultPool is a pool limited to 8 CPUs: the pods below need 6.
const faultLimit = "8"

func faultPolicy(pool string) string {
	return kwokClass(pool) + "\n---\n" + poolYAML(pool, pool, "  limits:\n    cpu: \""+faultLimit+"\"")
}

// poolWatch polls a pool every 200 ms while a fault runs: the most CPU its claims or nodes
// held at once. Lists that fail (the API server is down) are skipped; nothing can change
// meanwhile either.
type poolWatch struct {
	mu      sync.Mutex
	maxCPU  resource.Quantity
	samples int
	stop    chan struct{}
	done    chan struct{}
}

func watchPool(e env, pool string) *poolWatch {
	w := &poolWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			var claims v1.NodeClaimList
			var nodes corev1.NodeList
			errC := e.client.List(ctx, &claims, client.MatchingLabels{v1.LabelNodePool: pool})
			errN := e.client.List(ctx, &nodes, client.MatchingLabels{v1.LabelNodePool: pool})
			cancel()
			if errC != nil || errN != nil {
				continue
			}
			claimCPU, nodeCPU := resource.Quantity{}, resource.Quantity{}
			for _, c := range claims.Items {
				claimCPU.Add(*c.Status.Capacity.Cpu())
			}
			for _, n := range nodes.Items {
				nodeCPU.Add(*n.Status.Capacity.Cpu())
			}
			w.mu.Lock()
			w.samples++
			for _, q := range []resource.Quantity{claimCPU, nodeCPU} {
				if q.Cmp(w.maxCPU) > 0 {
					w.maxCPU = q
				}
			}
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *poolWatch) finish(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.maxCPU.Cmp(resource.MustParse(faultLimit)) > 0 {
		t.Errorf("the pool reached %s CPU; its limit is %s", w.maxCPU.String(), faultLimit)
	}
	t.Logf("limit: at most %s of %s CPU in %d samples", w.maxCPU.String(), faultLimit, w.samples)
}

// checkNoLeak asserts that every node of the pool belongs to a live claim of the same name and
// provider ID (the kwok cloud names the node after its claim), and no provider ID is used twice.
func checkNoLeak(t *testing.T, e env, pool string) {
	t.Helper()
	claims := map[string]v1.NodeClaim{}
	for _, c := range poolClaims(t, e, pool) {
		claims[c.Name] = c
	}
	seen := map[string]string{}
	for _, n := range poolNodes(t, e, pool) {
		c, ok := claims[n.Name]
		switch {
		case !ok:
			t.Errorf("node %s (%s) has no NodeClaim: a leaked instance", n.Name, n.Spec.ProviderID)
		case c.DeletionTimestamp != nil:
			t.Errorf("node %s still runs for a claim being deleted", n.Name)
		case c.Status.ProviderID != "" && c.Status.ProviderID != n.Spec.ProviderID:
			t.Errorf("node %s has provider ID %s, its claim %s", n.Name, n.Spec.ProviderID, c.Status.ProviderID)
		}
		if other, dup := seen[n.Spec.ProviderID]; dup {
			t.Errorf("nodes %s and %s share provider ID %s: a duplicate launch", other, n.Name, n.Spec.ProviderID)
		}
		seen[n.Spec.ProviderID] = n.Name
	}
}

// agentAlive fails the test when the agent exited during the fault.
func agentAlive(t *testing.T, p *agentProc) {
	t.Helper()
	select {
	case <-p.done:
		t.Errorf("the agent %s exited during the fault; its log ends:\n%s", p.name, lastLines(p.log.String(), 20))
	default:
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitForRunning waits up to faultRecovery for want pods of app Running on the pool, resyncing
// pods KWOK lost (resyncStuckPods) on the way.
func waitForRunning(t *testing.T, e env, ns, app string, want int) time.Duration {
	t.Helper()
	resynced := map[types.UID]bool{}
	return waitFor(t, faultRecovery, fmt.Sprintf("%d pods of %s Running", want, app), func() (bool, string) {
		running, total, states := runningOn(t, e, ns, "app="+app, app)
		if running == want && total == want {
			return true, states
		}
		resyncStuckPods(t, e, ns, "app="+app, resynced)
		return false, states
	})
}

// stuckAfterBinding is how long a pod may stay Pending on its node before resyncStuckPods
// treats it as lost by KWOK: KWOK runs a bound pod within a second.
const stuckAfterBinding = 15 * time.Second

// resyncStuckPods touches each pod of selector that has been bound for stuckAfterBinding and is
// still Pending, once, as a kubelet's periodic pod sync would. KWOK v0.8.0 plays a bound pod only
// when it sees an event for it while it holds the node's Lease in its Lease cache; after etcd or
// kube-apiserver restarts, that cache can lag the node's registration (its watch backs off), and
// the pods bound meanwhile are skipped and never looked at again. That is the simulated kubelet's
// gap, not the agent's: the node exists and the scheduler bound the pods to it. The touch is an
// annotation, so KWOK sees a new event; it is logged.
func resyncStuckPods(t *testing.T, e env, ns, selector string, done map[types.UID]bool) {
	t.Helper()
	ctx := context.Background()
	pods, err := podsOf(t, e, ns, selector)
	if err != nil {
		return // the next poll tries again
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if done[p.UID] || p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending || p.DeletionTimestamp != nil {
			continue
		}
		bound := scheduledAt(p)
		if bound.IsZero() || time.Since(bound) < stuckAfterBinding {
			continue
		}
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"e2e.tenon.dev/resync":"kwok"}}}`))
		if err := e.client.Patch(ctx, p, patch); err != nil {
			continue
		}
		done[p.UID] = true
		t.Logf("resynced pod %s: Pending on %s for %s since it was bound (KWOK lost it)", p.Name, p.Spec.NodeName, time.Since(bound).Round(time.Second))
	}
}

// scheduledAt is when p's PodScheduled condition turned true, else when p was created (earlier
// than its binding); zero while it is not scheduled.
func scheduledAt(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
			if c.LastTransitionTime.IsZero() {
				return p.CreationTimestamp.Time
			}
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// launchingClaim waits until the pool has a claim and no node yet: a launch is in flight (the
// agent runs with a 5 s simulated boot).
func launchingClaim(t *testing.T, e env, pool string) {
	t.Helper()
	waitFor(t, 30*time.Second, "a nodeclaim in flight", func() (bool, string) {
		return len(poolClaims(t, e, pool)) > 0, "no claim yet"
	})
	if nodes := poolNodes(t, e, pool); len(nodes) != 0 {
		t.Fatalf("a node registered already (%d nodes); the launch delay is too short for this test", len(nodes))
	}
}

// TestControlPlaneRestartMidLaunch kills kube-apiserver, then etcd, while the agent launches
// nodes (each launch takes 5 s): the agent survives, launches each claim once, and every pod
// runs within faultRecovery of the restart.
func TestControlPlaneRestartMidLaunch(t *testing.T) {
	for _, component := range []string{controlplane.APIServer, controlplane.Etcd} {
		t.Run(component, func(t *testing.T) {
			e := require(t)
			pool := "restart-" + strings.TrimPrefix(component, "kube-")
			ns := namespace(t, e, pool)
			apply(t, e, ns, faultPolicy(pool))
			agentProc := startAgent(t, e, pool, "--kwok-launch-delay=5s")
			cleanupPool(t, e, ns, pool)
			w := watchPool(e, pool)
			apply(t, e, ns, deploymentYAML(pool, pool, 3, "2"))
			launchingClaim(t, e, pool)

			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := e.cp.Restart(ctx, component, 3*time.Second, true); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s killed and back in %s", component, time.Since(start).Round(100*time.Millisecond))
			took := waitForRunning(t, e, ns, pool, 3)
			time.Sleep(3 * time.Second) // let a duplicate launch or a late orphan show up
			agentAlive(t, agentProc)
			checkNoLeak(t, e, pool)
			w.finish(t)
			t.Logf("3 pods Running %s after %s was back; nodes %v", took.Round(100*time.Millisecond), component, instanceTypes(poolNodes(t, e, pool)))
		})
	}
}

// TestCloudFailsForAMinute makes every cloud call fail for a minute (throttled for 30 s, then
// 503 for 30 s) while pods wait: no node appears meanwhile, nothing is launched twice when the
// cloud answers again, and the pods run within faultRecovery of the end of the fault.
func TestCloudFailsForAMinute(t *testing.T) {
	e := require(t)
	pool := "cloudfault"
	ns := namespace(t, e, pool)
	faults := filepath.Join(t.TempDir(), "faults")
	if err := os.WriteFile(faults, []byte("throttle"), 0o600); err != nil {
		t.Fatal(err)
	}
	apply(t, e, ns, faultPolicy(pool))
	agentProc := startAgentEnv(t, e, pool, []string{cloudfault.EnvFile + "=" + faults})
	cleanupPool(t, e, ns, pool)
	w := watchPool(e, pool)
	apply(t, e, ns, deploymentYAML(pool, pool, 3, "2"))

	time.Sleep(30 * time.Second)
	if err := os.WriteFile(faults, []byte("5xx"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Second)
	if nodes := poolNodes(t, e, pool); len(nodes) != 0 {
		t.Errorf("%d nodes appeared while every cloud call failed", len(nodes))
	}
	claimsDuring := len(poolClaims(t, e, pool))
	if err := os.WriteFile(faults, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	took := waitForRunning(t, e, ns, pool, 3)
	time.Sleep(3 * time.Second)
	agentAlive(t, agentProc)
	checkNoLeak(t, e, pool)
	w.finish(t)
	log := agentProc.log.String()
	if !strings.Contains(log, "injected") {
		t.Errorf("the agent never met the injected cloud errors; the test did not exercise them")
	}
	t.Logf("%d claims waited through the fault; 3 pods Running %s after the cloud answered again, on %v",
		claimsDuring, took.Round(100*time.Millisecond), instanceTypes(poolNodes(t, e, pool)))
}

// TestNodeClaimDeletedMidLaunch deletes a NodeClaim by hand while its instance is being
// launched: the instance must not outlive its claim, and the pods get a new claim and run.
func TestNodeClaimDeletedMidLaunch(t *testing.T) {
	e := require(t)
	pool := "claimdeleted"
	ns := namespace(t, e, pool)
	apply(t, e, ns, faultPolicy(pool))
	agentProc := startAgent(t, e, pool, "--kwok-launch-delay=5s")
	cleanupPool(t, e, ns, pool)
	w := watchPool(e, pool)
	apply(t, e, ns, deploymentYAML(pool, pool, 3, "2"))
	launchingClaim(t, e, pool)
	deleted := map[string]bool{}
	for _, c := range poolClaims(t, e, pool) {
		if err := e.client.Delete(context.Background(), &c); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
		deleted[c.Name] = true
	}
	t.Logf("deleted %d claim(s) in flight", len(deleted))
	took := waitForRunning(t, e, ns, pool, 3)
	// The deleted claims' launches were in flight: their nodes must be gone (or never made).
	waitFor(t, 30*time.Second, "no node of a deleted claim", func() (bool, string) {
		var left []string
		for _, n := range poolNodes(t, e, pool) {
			if deleted[n.Name] {
				left = append(left, n.Name)
			}
		}
		return len(left) == 0, fmt.Sprintf("nodes of deleted claims still there: %v", left)
	})
	agentAlive(t, agentProc)
	checkNoLeak(t, e, pool)
	w.finish(t)
	t.Logf("3 pods Running %s after the deletion, on new claims", took.Round(100*time.Millisecond))
}

// TestAPIServerRestartMidDrain kills kube-apiserver while the agent drains a node for
// consolidation (40 pods under a PDB of maxUnavailable 1 scaled to 10, as in
// TestConsolidationHonoursPDB): the agent survives, the PDB is never broken (the pod watch
// resumes across the restart), no instance leaks, and the pool settles within faultRecovery.
func TestAPIServerRestartMidDrain(t *testing.T) {
	e := require(t)
	ns := namespace(t, e, "middrain")
	apply(t, e, ns, consolidationPolicy)
	agentProc := startAgent(t, e, "middrain")
	cleanupPool(t, e, ns, "packed")
	starter := startPods(t, e, ns, "app=packed")
	apply(t, e, ns, consolidationPods(40))
	waitFor(t, 60*time.Second, "40 pods Running", func() (bool, string) {
		running, _, _ := runningOn(t, e, ns, "app=packed", "packed")
		return running == 40, fmt.Sprintf("%d running", running)
	})
	w := watchBudget(t, e, ns, "app=packed", 40)
	starter.setDelay(replacementStart)
	w.setDesired(10)
	// The pods kept are spread over the nodes (pod deletion cost), so consolidation has to
	// drain nodes that hold pods of the budget: which pods the ReplicaSet controller deletes
	// otherwise depends on the packing, and it can empty whole nodes, which go with no drain.
	keepSpread(t, e, ns, "packed", 10)
	scale(t, e, ns, "packed", 10)

	// The restart must land while a node that still holds pods of the budget is drained
	// (consolidation's Underutilized command): a node of a claim being deleted with a pod of
	// the Deployment still bound to it. (The disrupted taint alone does not say so: a plan
	// taints every node it removes before its first command runs.)
	var draining string
	waitFor(t, 120*time.Second, "a node with pods of the budget being drained", func() (bool, string) {
		deleting := map[string]bool{}
		for _, c := range poolClaims(t, e, "packed") {
			if c.DeletionTimestamp != nil {
				deleting[c.Name] = true
			}
		}
		var pods corev1.PodList
		if err := e.client.List(context.Background(), &pods, client.InNamespace(ns), client.MatchingLabels{"app": "packed"}); err != nil {
			return false, err.Error()
		}
		for _, p := range pods.Items {
			if deleting[p.Spec.NodeName] && p.DeletionTimestamp == nil {
				draining = p.Spec.NodeName
				return true, ""
			}
		}
		return false, "no node with pods drained yet: " + describeClaims(t, e, "packed")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	if err := e.cp.Restart(ctx, controlplane.APIServer, 3*time.Second, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver killed while %s was drained, back in %s", draining, time.Since(start).Round(100*time.Millisecond))

	resynced := map[types.UID]bool{}
	settled := waitFor(t, faultRecovery+60*time.Second, "the pool settled: 10 pods Running, no claim deleting, a node per claim", func() (bool, string) {
		running, total, _ := runningOn(t, e, ns, "app=packed", "packed")
		if running < total {
			resyncStuckPods(t, e, ns, "app=packed", resynced)
		}
		claims := poolClaims(t, e, "packed")
		deleting := 0
		for _, c := range claims {
			if c.DeletionTimestamp != nil {
				deleting++
			}
		}
		nodes := poolNodes(t, e, "packed")
		return running == 10 && total == 10 && deleting == 0 && len(claims) == len(nodes),
			fmt.Sprintf("%d running of %d, %d claims (%d deleting), %d nodes", running, total, len(claims), deleting, len(nodes))
	})
	agentAlive(t, agentProc)
	checkNoLeak(t, e, "packed")
	r := w.stop()
	if r.worst > 1 {
		t.Errorf("%d pods of the budget were unavailable at once (%s); the PDB allows 1", r.worst, r.worstAt)
	}
	if r.evictedWhileUnavailable > 0 {
		t.Errorf("%d evictions happened while a pod of the budget was already unavailable", r.evictedWhileUnavailable)
	}
	// The scale-down's 30 deletions happen before the drain, so before the restart: the
	// watch sees them all. Pods that left while the API server was down (gone) went through
	// the Eviction API, which enforces the budget, or were deleted: the agent's own count
	// says it forced none.
	if r.deleted != 30 {
		t.Errorf("%d pods were seen deleted without the Eviction API; the scale-down accounts for 30", r.deleted)
	}
	if ev := counters(t, agentProc.metricsAddr, "tenon_pod_evictions_total"); ev[`result="forced"`] != 0 {
		t.Errorf("the agent forced %d pod deletions past the budget", ev[`result="forced"`])
	}
	if len(r.evicted)+r.gone == 0 {
		t.Errorf("no pod was evicted: the drain the restart interrupted moved nothing, so the test proved nothing")
	}
	t.Logf("settled %s after the restart on %v; %d evictions seen, %d pods left while the watch was down (%d re-lists), at most %d unavailable at once",
		settled.Round(100*time.Millisecond), instanceTypes(poolNodes(t, e, "packed")), len(r.evicted), r.gone, r.relists, r.worst)
}

// keepSpread marks keep pods of app (label app=<app>) to be kept by the next scale-down, one
// per node in turn, with a pod deletion cost of 1 (the ReplicaSet controller deletes the pods of
// lower cost first; unmarked pods cost 0).
func keepSpread(t *testing.T, e env, ns, app string, keep int) {
	t.Helper()
	ctx := context.Background()
	var pods corev1.PodList
	if err := e.client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"app": app}); err != nil {
		t.Fatal(err)
	}
	byNode := map[string][]*corev1.Pod{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
		}
	}
	nodes := slices.Sorted(maps.Keys(byNode))
	for kept, round := 0, 0; kept < keep && round < len(pods.Items); round++ {
		for _, n := range nodes {
			if kept == keep || round >= len(byNode[n]) {
				continue
			}
			p := byNode[n][round]
			patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"1"}}}`))
			if err := e.client.Patch(ctx, p, patch); err != nil {
				t.Fatalf("marking pod %s to keep: %v", p.Name, err)
			}
			kept++
		}
	}
}
