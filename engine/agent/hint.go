package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kube-scheduler binds a pod to any node it fits, scoring nodes by how
// empty they are: on the nodes of a plan, which packs pods of different
// shapes onto nodes of different shapes, it spreads the first pods it
// binds and leaves the last without room, and the next batch buys a node
// for them (live: 10 of 120 pods, 14 % above the plan). Since Kubernetes
// 1.35 (NominatedNodeNameForExpectation, beta and on by default) a pod's
// status.nominatedNodeName may be written by a component other than the
// scheduler to say where the pod is expected, and the scheduler tries that
// node first (KEP-5278; PreferNominatedNode, KEP-1923): the agent writes
// the node or claim each pod was nominated to there, so kube-scheduler
// follows the plan wherever the pod fits. Older schedulers use the field
// the same way or ignore it; a name that is no node yet (a claim whose
// node registers under another name) is re-pointed at registration.

// A node a plan launches for several pods starts with the awaiting-pods
// taint, valued with its claim's name (awaiting.go); each pod nominated
// there gets a toleration of that value alone, written before its
// nominated node. So a pod binds to its own node the moment the node
// registers, however many others of the burst are still to come, and no
// other pod can take the room held for it: the taint keeps out everything
// the plan did not put there.

// hinter writes pods' status.nominatedNodeName, and the toleration of
// the awaiting-pods taint of their new node.
type hinter struct {
	client client.Client
	log    logr.Logger
	// denied is set once the API server refused a toleration: an agent
	// without patch on pods leaves its pods to wait for the taint's lift.
	denied atomic.Bool
}

// hint is one pod to point at a node.
type hint struct {
	namespace, name, node string
	// tolerate is the value of the awaiting-pods taint to add to the
	// pod's tolerations (empty: none to add); appendTo says the pod has
	// tolerations already, so the new one is appended to them.
	tolerate string
	appendTo bool
	// nominated says the pod names node already: only the toleration is
	// to write.
	nominated bool
}

// write adds each hint's toleration, then sets the pod's
// status.nominatedNodeName, by patches that need no read and cannot
// conflict. A pod gone or bound meanwhile is skipped; other errors are
// logged and the rest written: the hint only steers kube-scheduler, it
// never decides.
// Patches go out hintWorkers at a time, paced by the client's rate
// limiter like every other request.
func (h *hinter) write(ctx context.Context, hints []hint) {
	work := make(chan hint)
	var wg sync.WaitGroup
	for range min(hintWorkers, len(hints)) {
		wg.Go(func() {
			for hi := range work {
				h.one(ctx, hi)
			}
		})
	}
	for _, hi := range hints {
		work <- hi
	}
	close(work)
	wg.Wait()
}

func (h *hinter) one(ctx context.Context, hi hint) {
	if hi.tolerate != "" && !h.denied.Load() {
		err := h.addToleration(ctx, hi)
		switch {
		case err == nil:
			// Its node is the only one of the plan's new nodes it
			// tolerates, and only pods planned there tolerate it:
			// the nominated node adds nothing kube-scheduler needs
			// (and it clears it whenever it finds no node for the
			// pod, as before the node registers). Half the writes.
			return
		case apierrors.IsForbidden(err):
			if !h.denied.Swap(true) {
				h.log.Info("the agent may not patch pods: the pods of a burst wait for the awaiting-pods taint's lift instead of binding as their nodes register (grant patch on pods, as the agent's manifests do)",
					"pod", hi.namespace+"/"+hi.name, "error", err.Error())
			}
		case err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) && ctx.Err() == nil:
			// Invalid: bound meanwhile, or a toleration list changed
			// under the patch; the next pass writes it again.
			h.log.V(1).Info("could not add the awaiting-pods toleration", "pod", hi.namespace+"/"+hi.name, "node", hi.node, "error", err.Error())
		}
	}
	if hi.nominated {
		return
	}
	if err := h.patch(ctx, hi); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) && ctx.Err() == nil {
		// Invalid: the pod was bound meanwhile.
		h.log.V(1).Info("could not write the pod's nominated node", "pod", hi.namespace+"/"+hi.name, "node", hi.node, "error", err.Error())
	}
}

// hintWorkers is how many nominated-node patches are in flight at once:
// enough for the client's rate limiter (200 a second, burst 300), not the
// round trip, to pace them; a burst's pods are nominated again all at once
// when the awaiting-pods taint lifts (awaiting.go), and their nodes wait.
const hintWorkers = 32

// addToleration adds the toleration of the awaiting-pods taint valued
// hi.tolerate to the pod by JSON patch: appended to the list the pod has
// (a pod's tolerations can only grow, so the list is there), or as the
// whole list when it has none (should one appear meanwhile, the add would
// replace it, which the API server refuses: tolerations cannot be
// removed).
func (h *hinter) addToleration(ctx context.Context, hi hint) error {
	t := awaitingToleration(hi.tolerate)
	op := map[string]any{"op": "add", "path": "/spec/tolerations", "value": []corev1.Toleration{t}}
	if hi.appendTo {
		op = map[string]any{"op": "add", "path": "/spec/tolerations/-", "value": t}
	}
	body, err := json.Marshal([]any{op})
	if err != nil {
		return fmt.Errorf("encoding the patch: %w", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: hi.namespace, Name: hi.name}}
	return h.client.Patch(ctx, pod, client.RawPatch(types.JSONPatchType, body))
}

func (h *hinter) patch(ctx context.Context, hi hint) error {
	body, err := json.Marshal(map[string]any{"status": map[string]any{"nominatedNodeName": hi.node}})
	if err != nil {
		return fmt.Errorf("encoding the patch: %w", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: hi.namespace, Name: hi.name}}
	return h.client.Status().Patch(ctx, pod, client.RawPatch(types.MergePatchType, body))
}

// hintsFor are the hints of pods (unbound) nominated to the targets
// given by pod key, where the pod does not say its node already or lacks
// the toleration of the node's awaiting-pods taint (awaiting, the taint's
// value by node or claim name).
func hintsFor(pods []*corev1.Pod, targets, awaiting map[string]string) []hint {
	var out []hint
	for _, p := range pods {
		node, ok := targets[p.Namespace+"/"+p.Name]
		if !ok || node == "" || p.Spec.NodeName != "" {
			continue
		}
		h := hint{namespace: p.Namespace, name: p.Name, node: node, nominated: p.Status.NominatedNodeName == node}
		if value := awaiting[node]; value != "" && !toleratesAwaiting(p, value) {
			h.tolerate, h.appendTo = value, len(p.Spec.Tolerations) > 0
		}
		if h.nominated && h.tolerate == "" {
			continue
		}
		out = append(out, h)
	}
	return out
}
