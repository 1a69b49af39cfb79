package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

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

// hinter writes pods' status.nominatedNodeName.
type hinter struct {
	client client.Client
	log    logr.Logger
}

// hint is one pod to point at a node.
type hint struct {
	namespace, name, node string
}

// write sets status.nominatedNodeName of each pod that does not say node
// already, by merge patch (no read, no conflict). A pod gone or bound
// meanwhile is skipped; other errors are logged and the rest written: the
// hint only steers kube-scheduler, it never decides.
// Patches go out hintWorkers at a time, paced by the client's rate
// limiter like every other request.
func (h *hinter) write(ctx context.Context, hints []hint) {
	work := make(chan hint)
	var wg sync.WaitGroup
	for range min(hintWorkers, len(hints)) {
		wg.Go(func() {
			for hi := range work {
				if err := h.patch(ctx, hi); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) && ctx.Err() == nil {
					// Invalid: the pod was bound meanwhile.
					h.log.V(1).Info("could not write the pod's nominated node", "pod", hi.namespace+"/"+hi.name, "node", hi.node, "error", err.Error())
				}
			}
		})
	}
	for _, hi := range hints {
		work <- hi
	}
	close(work)
	wg.Wait()
}

// hintWorkers is how many nominated-node patches are in flight at once:
// enough for the client's rate limiter (200 a second, burst 300), not the
// round trip, to pace them; a burst's pods are nominated again all at once
// when the awaiting-pods taint lifts (awaiting.go), and their nodes wait.
const hintWorkers = 32

func (h *hinter) patch(ctx context.Context, hi hint) error {
	body, err := json.Marshal(map[string]any{"status": map[string]any{"nominatedNodeName": hi.node}})
	if err != nil {
		return fmt.Errorf("encoding the patch: %w", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: hi.namespace, Name: hi.name}}
	return h.client.Status().Patch(ctx, pod, client.RawPatch(types.MergePatchType, body))
}

// hintsFor are the hints of pods (unbound, not saying node already)
// nominated to the targets given by pod key.
func hintsFor(pods []*corev1.Pod, targets map[string]string) []hint {
	var out []hint
	for _, p := range pods {
		node, ok := targets[p.Namespace+"/"+p.Name]
		if !ok || node == "" || p.Spec.NodeName != "" || p.Status.NominatedNodeName == node {
			continue
		}
		out = append(out, hint{namespace: p.Namespace, name: p.Name, node: node})
	}
	return out
}
