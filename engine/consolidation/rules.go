package consolidation

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// nodeInfo is what the rules need about one node of the working snapshot.
type nodeInfo struct {
	node *state.Node
	pool *state.Pool
	// pods are the workload pods bound to the node (daemonset pods do not
	// count: they go with the node).
	pods []*state.Pod
	// price is the node's price per hour.
	price float64
	// value estimates what its pods cost at least anywhere (see value).
	value float64
	// maxPriority is the highest priority among pods.
	maxPriority int32
	// fresh is set for replacements launched and nodes that received pods
	// earlier in this plan: they are not disrupted again by it.
	fresh bool
}

// awaitsPods is why a nominated node stays (state.Node.Nominated).
const awaitsPods = "pending pods are expected on it (nominated to it, or placed on it by a solve of the pending pods)"

// managed says why a node is outside consolidation's reach, or "".
func managed(n *nodeInfo) string {
	switch {
	case n.node.Pool == "":
		return "not managed by Tenon (no tenon.dev/nodepool label)"
	case n.pool == nil:
		return fmt.Sprintf("nodepool %s not found", n.node.Pool)
	case n.node.InFlight:
		return "still launching (in-flight claim)"
	case n.node.MarkedForDeletion:
		return "already being deleted"
	case !n.node.Initialized:
		return "not initialized yet"
	case n.node.Nominated:
		return awaitsPods
	case n.node.Held != "":
		return n.node.Held
	case n.fresh:
		return "receives pods or was launched in this plan"
	}
	return ""
}

// voluntaryBlocker says why a node may not be disrupted voluntarily (empty,
// drifted or underutilized), or "": the node's own annotation, pods that
// must not be disrupted, and bare pods.
func voluntaryBlocker(n *nodeInfo, now time.Time) string {
	if key := nodeDoNotDisrupt(n); key != "" {
		return "node annotated " + key
	}
	for _, p := range n.pods {
		if why := podPins(n.pool, p, now); why != "" {
			return why
		}
	}
	if !n.pool.DisruptBarePods {
		for _, p := range n.pods {
			if p.Owner.Kind == "" {
				return fmt.Sprintf("pod %s has no controller; bare pods block disruption unless the NodePool is annotated %s: \"true\"",
					p.Key(), state.AnnotationDisruptBarePods)
			}
		}
	}
	return ""
}

// podPins says why a pod pins its node in pool, or "": the pod annotation
// tenon.dev/do-not-disrupt (or, where the pool honours them, Karpenter's:
// see karpenter.go) is "true", or a duration (such as "30m") that has not
// elapsed since the pod started.
func podPins(pool *state.Pool, p *state.Pod, now time.Time) string {
	key, v, ok := podDoNotDisrupt(pool, p)
	if !ok {
		return ""
	}
	pod := p.Key()
	if key != v1.AnnotationDoNotDisrupt {
		pod += " (" + key + ")"
	}
	if v == "true" {
		return "do-not-disrupt pod " + pod
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Sprintf("do-not-disrupt pod %s (%q is neither \"true\" nor a duration, so it counts as \"true\")", pod, v)
	}
	if p.StartTime.IsZero() {
		return fmt.Sprintf("do-not-disrupt pod %s for %s (not started yet)", pod, formatDuration(d))
	}
	if ran := now.Sub(p.StartTime); ran < d {
		return fmt.Sprintf("do-not-disrupt pod %s for %s (running for %s)", pod, formatDuration(d), formatDuration(ran))
	}
	return ""
}

// stableSince is the node's last pod event: when it was created, when a
// pod was last bound to or removed from it (its claim's status), or when a
// pod on it last started, whichever is latest.
func stableSince(n *nodeInfo) time.Time {
	t := n.node.CreatedAt
	if n.node.LastPodEventTime.After(t) {
		t = n.node.LastPodEventTime
	}
	for _, p := range n.pods {
		if p.StartTime.After(t) {
			t = p.StartTime
		}
	}
	return t
}

// waiting says why consolidateAfter holds a node back, or "".
func waiting(n *nodeInfo, now time.Time) string {
	after := n.pool.Disruption.ConsolidateAfter
	if after == nil {
		return fmt.Sprintf("consolidation is off for nodepool %s (consolidateAfter Never)", n.pool.Name)
	}
	since := stableSince(n)
	if since.IsZero() {
		return ""
	}
	if stable := now.Sub(since); stable < *after {
		return fmt.Sprintf("consolidateAfter %s not elapsed (node stable for %s)", formatDuration(*after), formatDuration(max(stable, 0)))
	}
	return ""
}

// expired says whether the node has outlived its pool's expireAfter, and
// by how much it is past it.
func expired(n *nodeInfo, now time.Time) (bool, string) {
	if n.pool == nil || n.pool.ExpireAfter == nil || n.node.CreatedAt.IsZero() {
		return false, ""
	}
	age := now.Sub(n.node.CreatedAt)
	if age < *n.pool.ExpireAfter {
		return false, ""
	}
	return true, fmt.Sprintf("expired: %s old, expireAfter %s", formatDuration(age), formatDuration(*n.pool.ExpireAfter))
}

// drifted says how a node no longer matches its pool, or "": the template
// or node class hash changed since launch, a label its pool requires
// changed, or a taint of the pool is missing.
func drifted(n *nodeInfo) string {
	node, pool := n.node, n.pool
	if node.TemplateHash != "" && pool.TemplateHash != "" && node.TemplateHash != pool.TemplateHash {
		return fmt.Sprintf("nodepool %s template or node class changed since launch (hash %s, now %s)", pool.Name, node.TemplateHash, pool.TemplateHash)
	}
	for _, key := range pool.Requirements.Keys() {
		if key == scheduling.LabelHostname {
			continue
		}
		v, ok := node.Labels[key]
		if !ok {
			continue
		}
		if !pool.Requirements.Get(key).Has(v) {
			return fmt.Sprintf("label %s=%s no longer allowed by nodepool %s", key, v, pool.Name)
		}
	}
	for _, key := range sortedKeys(pool.Labels) {
		if v, ok := node.Labels[key]; !ok || v != pool.Labels[key] {
			return fmt.Sprintf("nodepool %s labels nodes %s=%s; the node has %s", pool.Name, key, pool.Labels[key], describeLabel(node.Labels, key))
		}
	}
	for _, t := range pool.Taints {
		if !slices.ContainsFunc(node.Taints, func(h corev1.Taint) bool {
			return h.Key == t.Key && h.Value == t.Value && h.Effect == t.Effect
		}) {
			return fmt.Sprintf("taint %s of nodepool %s missing from the node", formatTaint(t), pool.Name)
		}
	}
	return ""
}

func describeLabel(labels map[string]string, key string) string {
	if v, ok := labels[key]; ok {
		return fmt.Sprintf("%s=%s", key, v)
	}
	return "no such label"
}

func formatTaint(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// formatDuration prints 8h, 5m, 2m10s, 1h30m: whole seconds, no zero
// units at the end.
func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	if d == 0 {
		return "0s"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
