package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/tenonhq/terraform-provider-tenon/engine/deletioncost"
)

// Pod deletion cost (--pod-deletion-cost, off by default): every plan of
// the consolidation loop, and every tick it waits for a drain, ranks the
// nodes with engine/deletioncost (the nodes the plan's walk removes first)
// and hands the writes to deletionCosts, which patches
// controller.kubernetes.io/pod-deletion-cost on ReplicaSet pods, so a
// scale-down deletes the replicas on the nodes consolidation would remove.
// Each pod is written only when its value changes, never over a value the
// agent did not write, at most deletionCostBatch pods per plan and one
// every deletionCostPace; a newer plan replaces the one being written.
//
// It is opt-in, as in Karpenter: it changes pods users own. The agent's
// patch on pods, which it needs for the awaiting-pods toleration too, is
// limited by the ValidatingAdmissionPolicy of its manifests
// (manifests.PodPatchPolicyName) to these annotations and that toleration.

const (
	// deletionCostBatch bounds the pods written for one plan; the next plan
	// writes what is still different.
	deletionCostBatch = 500
	// deletionCostPace is the time between two writes: 50 pods a second,
	// a quarter of the agent's request rate, so launches and drains keep
	// the rest.
	deletionCostPace = 20 * time.Millisecond
)

// deletionCosts writes the latest deletioncost.Plan it was offered. It runs
// on the leader only.
type deletionCosts struct {
	client  client.Client
	metrics *metrics
	log     logr.Logger
	clock   agentClock
	// pace is the time between two writes; 0 writes without waiting (tests).
	pace  time.Duration
	batch int

	mu   sync.Mutex
	next *deletioncost.Plan
	wake chan struct{}
}

func newDeletionCosts(c client.Client, m *metrics, log logr.Logger, clk agentClock) *deletionCosts {
	return &deletionCosts{client: c, metrics: m, log: log, clock: clk, pace: deletionCostPace, batch: deletionCostBatch, wake: make(chan struct{}, 1)}
}

// Register adds the writer.
func (w *deletionCosts) Register(mgr manager.Manager) error {
	if err := mgr.Add(manager.RunnableFunc(w.run)); err != nil {
		return fmt.Errorf("adding the pod deletion cost writer: %w", err)
	}
	return nil
}

// offer replaces the plan to write with p.
func (w *deletionCosts) offer(p *deletioncost.Plan) {
	w.mu.Lock()
	w.next = p
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take returns the plan offered last, once, or nil.
func (w *deletionCosts) take() *deletioncost.Plan {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.next
	w.next = nil
	return p
}

// newer reports whether a plan was offered since the last take.
func (w *deletionCosts) newer() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.next != nil
}

func (w *deletionCosts) run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.wake:
		}
		if p := w.take(); p != nil {
			w.write(ctx, p)
		}
	}
}

// write makes p's writes in order, at most w.batch, one every w.pace,
// until a newer plan is offered; it returns how many pods it patched.
func (w *deletionCosts) write(ctx context.Context, p *deletioncost.Plan) int {
	written, skipped, failed := 0, 0, 0
	for i, wr := range p.Writes {
		if i >= w.batch || ctx.Err() != nil || w.newer() {
			break
		}
		if i > 0 && w.pace > 0 && !sleep(ctx, w.clock, w.pace) {
			break
		}
		ok, err := w.apply(ctx, wr)
		switch {
		case err != nil:
			failed++
			w.metrics.deletionCostWrites.WithLabelValues(wr.Action.String(), "error").Inc()
			w.log.Error(err, "writing a pod deletion cost", "pod", wr.Key(), "action", wr.Action.String())
		case ok:
			written++
			w.metrics.deletionCostWrites.WithLabelValues(wr.Action.String(), "written").Inc()
		default:
			skipped++
			w.metrics.deletionCostWrites.WithLabelValues(wr.Action.String(), "skipped").Inc()
		}
	}
	if written+failed > 0 {
		w.log.Info("wrote pod deletion costs", "written", written, "skipped", skipped, "failed", failed, "planned", len(p.Writes),
			"rankedNodes", len(p.Nodes), "userOwnedReplicaSets", len(p.UserOwned))
	}
	return written
}

// apply makes one write on the pod as it is now: not when the pod is gone
// or was recreated under its name, nor when its annotations changed so
// that the write no longer applies (deletioncost.Write.Still: someone
// else's value is never touched). The patch carries the pod's
// resourceVersion, so a change between this read and the write fails it
// (skipped) rather than being overwritten.
func (w *deletionCosts) apply(ctx context.Context, wr deletioncost.Write) (bool, error) {
	pod := &corev1.Pod{}
	if err := w.client.Get(ctx, client.ObjectKey{Namespace: wr.Namespace, Name: wr.Name}, pod); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	if (wr.UID != "" && string(pod.UID) != wr.UID) || pod.DeletionTimestamp != nil || !wr.Still(pod.Annotations) {
		return false, nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": pod.ResourceVersion,
		"annotations":     wr.Annotations(),
	}})
	if err != nil {
		return false, fmt.Errorf("encoding the patch of pod %s: %w", wr.Key(), err)
	}
	if err := w.client.Patch(ctx, pod, client.RawPatch(types.MergePatchType, patch)); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("patching the deletion cost of pod %s: %w", wr.Key(), err)
	}
	return true, nil
}

// rankForScaleDown offers the deletion-cost plan of v with leaving, the
// nodes the last plan's walk removes, when --pod-deletion-cost is on.
func (d *disruption) rankForScaleDown(v *clusterView, leaving []string) {
	if d.deletionCosts == nil {
		return
	}
	d.deletionCosts.offer(deletioncost.Compute(v.snap, leaving))
}
