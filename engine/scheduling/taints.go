package scheduling

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Taints is a node's (or a pool template's) list of taints.
type Taints []corev1.Taint

// ToleratesPod returns nil when tolerations tolerate every hard taint
// (NoSchedule, NoExecute) in ts, and otherwise an error naming the first one
// that is not tolerated. PreferNoSchedule taints are soft: the scheduler
// avoids them when it can but they never make a pod unschedulable, so they are
// not errors.
func (ts Taints) ToleratesPod(tolerations []corev1.Toleration) error {
	for _, taint := range ts {
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !anyTolerates(tolerations, taint) {
			return fmt.Errorf("taint %s is not tolerated; add the toleration %s to the pod, or remove the taint", taint.ToString(), tolerationFor(taint))
		}
	}
	return nil
}

// Merge returns ts followed by the taints of with whose key and effect ts does
// not already have; on a clash the taint in ts wins. Neither input changes.
func (ts Taints) Merge(with Taints) Taints {
	out := make(Taints, len(ts), len(ts)+len(with))
	copy(out, ts)
	for _, taint := range with {
		if !out.has(taint) {
			out = append(out, taint)
		}
	}
	return out
}

// WithoutStartupTaints returns ts without the pool's startup taints (matched
// by key and effect). Startup taints are placed on a new node only until a
// daemon (a CNI, a GPU driver installer) finishes and removes them, so they
// are ignored for scheduling decisions: a pod need not tolerate them to be
// planned onto the node. Use it on the taints of a node or claim that is not
// yet initialized.
func (ts Taints) WithoutStartupTaints(startup []corev1.Taint) Taints {
	return ts.without(startup)
}

// WithoutEphemeralTaints returns ts without the ephemeral taints, which
// Kubernetes (EphemeralTaints) and readiness controllers (keys under
// EphemeralTaintKeyPrefix) put on a node while it starts; like startup
// taints they are ignored when deciding whether a pod fits a node that is
// still initializing or not Ready yet.
func (ts Taints) WithoutEphemeralTaints() Taints {
	out := make(Taints, 0, len(ts))
	for _, taint := range ts {
		if !Taints(EphemeralTaints()).has(taint) && !strings.HasPrefix(taint.Key, EphemeralTaintKeyPrefix) {
			out = append(out, taint)
		}
	}
	return out
}

// EphemeralTaintKeyPrefix is the key prefix of the taints the Node
// Readiness Controller keeps on a node until its readiness rules pass.
const EphemeralTaintKeyPrefix = "readiness.k8s.io/"

// EphemeralTaints returns the taints Kubernetes itself puts on a node while
// it registers and becomes ready (the list Karpenter ignores on nodes that
// are not initialized).
func EphemeralTaints() []corev1.Taint {
	return []corev1.Taint{
		{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}
}

func (ts Taints) without(drop []corev1.Taint) Taints {
	out := make(Taints, 0, len(ts))
	for _, taint := range ts {
		if !Taints(drop).has(taint) {
			out = append(out, taint)
		}
	}
	return out
}

// has reports whether ts holds a taint with taint's key and effect.
func (ts Taints) has(taint corev1.Taint) bool {
	for i := range ts {
		if ts[i].MatchTaint(&taint) {
			return true
		}
	}
	return false
}

// tolerationFor spells the toleration a pod needs for taint, in YAML flow form.
func tolerationFor(taint corev1.Taint) string {
	if taint.Value == "" {
		return fmt.Sprintf("{key: %q, operator: Exists, effect: %s}", taint.Key, taint.Effect)
	}
	return fmt.Sprintf("{key: %q, operator: Equal, value: %q, effect: %s}", taint.Key, taint.Value, taint.Effect)
}

func anyTolerates(tolerations []corev1.Toleration, taint corev1.Taint) bool {
	for _, t := range tolerations {
		if tolerates(t, taint) {
			return true
		}
	}
	return false
}

// tolerates follows corev1.Toleration.ToleratesTaint, including the numeric
// Gt/Lt operators (the taint's value compared with the toleration's), without
// needing a logger.
func tolerates(t corev1.Toleration, taint corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", corev1.TolerationOpEqual:
		return t.Value == taint.Value
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpGt, corev1.TolerationOpLt:
		want, err1 := strconv.ParseInt(t.Value, 10, 64)
		have, err2 := strconv.ParseInt(taint.Value, 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if t.Operator == corev1.TolerationOpGt {
			return have > want
		}
		return have < want
	default:
		return false
	}
}
