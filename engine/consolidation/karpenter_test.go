package consolidation

import (
	"testing"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// TestKarpenterAnnotations: Karpenter's disruption annotations protect
// nodes as Tenon's does in a pool that honours them (the default), and do
// nothing in a pool whose disruption.karpenterAnnotations is Ignore.
func TestKarpenterAnnotations(t *testing.T) {
	ignoring := func(types ...string) *state.Pool {
		p := fixedPool(types...)
		p.IgnoreKarpenterAnnotations = true
		return p
	}
	podAnnotated := func(key, value string) func(*state.Node, *state.Pod) {
		return func(_ *state.Node, p *state.Pod) {
			p.Name = "web-7"
			annotated(key, value)(p)
		}
	}
	nodeAnnotated := func(key string) func(*state.Node, *state.Pod) {
		return func(n *state.Node, _ *state.Pod) { n.Annotations = map[string]string{key: "true"} }
	}
	drifted := func(key string) func(*state.Node, *state.Pod) {
		return func(n *state.Node, _ *state.Pod) {
			n.Annotations = map[string]string{key: "true"}
			n.TemplateHash = "hash-0"
		}
	}
	runRuleCases(t, []ruleCase{
		{
			name:    "a karpenter.sh/do-not-disrupt pod pins its node",
			snap:    one(fixedPool(), podAnnotated(v1.AnnotationKarpenterDoNotDisrupt, "true")),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "do-not-disrupt pod default/web-7 (karpenter.sh/do-not-disrupt)"},
		},
		{
			name: "a karpenter.sh/do-not-disrupt duration pins as Tenon's does",
			snap: one(fixedPool(), func(n *state.Node, p *state.Pod) {
				podAnnotated(v1.AnnotationKarpenterDoNotDisrupt, "30m")(n, p)
				p.StartTime = t0.Add(-10 * time.Minute)
			}),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "do-not-disrupt pod default/web-7 (karpenter.sh/do-not-disrupt) for 30m (running for 10m)"},
		},
		{
			name:    "a v1alpha5 karpenter.sh/do-not-evict pod pins its node",
			snap:    one(fixedPool(), podAnnotated(v1.AnnotationKarpenterDoNotEvict, "true")),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "do-not-disrupt pod default/web-7 (karpenter.sh/do-not-evict)"},
		},
		{
			name:    "do-not-evict other than true is no pin",
			snap:    one(fixedPool(), podAnnotated(v1.AnnotationKarpenterDoNotEvict, "false")),
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name:    "a node annotated karpenter.sh/do-not-disrupt is skipped",
			snap:    one(fixedPool(), nodeAnnotated(v1.AnnotationKarpenterDoNotDisrupt)),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "node annotated karpenter.sh/do-not-disrupt"},
		},
		{
			name:    "a node annotated karpenter.sh/do-not-consolidate is not consolidated",
			snap:    one(fixedPool(), nodeAnnotated(v1.AnnotationKarpenterDoNotConsolidate)),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "node annotated karpenter.sh/do-not-consolidate"},
		},
		{
			name:    "do-not-consolidate does not hold back drift",
			snap:    one(fixedPool(), drifted(v1.AnnotationKarpenterDoNotConsolidate)),
			removed: map[string]Reason{"n1": ReasonDrifted},
		},
		{
			name:    "karpenter.sh/do-not-disrupt holds back drift",
			snap:    one(fixedPool(), drifted(v1.AnnotationKarpenterDoNotDisrupt)),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "drifted: nodepool default template or node class changed since launch (hash hash-0, now hash-1), but node annotated karpenter.sh/do-not-disrupt"},
		},
		{
			name:    "an empty node annotated do-not-consolidate stays",
			snap:    emptyNodesAnnotated(fixedPool(), v1.AnnotationKarpenterDoNotConsolidate),
			removed: map[string]Reason{"e2": ReasonEmpty},
			kept:    map[string]string{"e1": "empty, but node annotated karpenter.sh/do-not-consolidate"},
		},
		// A pool that ignores Karpenter's annotations.
		{
			name:    "Ignore: a karpenter.sh/do-not-disrupt pod pins nothing",
			snap:    one(ignoring(), podAnnotated(v1.AnnotationKarpenterDoNotDisrupt, "true")),
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name:    "Ignore: a do-not-evict pod pins nothing",
			snap:    one(ignoring(), podAnnotated(v1.AnnotationKarpenterDoNotEvict, "true")),
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name:    "Ignore: a node annotated do-not-consolidate is consolidated",
			snap:    one(ignoring(), nodeAnnotated(v1.AnnotationKarpenterDoNotConsolidate)),
			removed: map[string]Reason{"n1": ReasonUnderutilized},
		},
		{
			name:    "Ignore: Tenon's annotation still pins",
			snap:    one(ignoring(), podAnnotated(v1.AnnotationDoNotDisrupt, "true")),
			removed: map[string]Reason{"n2": ReasonUnderutilized},
			kept:    map[string]string{"n1": "do-not-disrupt pod default/web-7"},
		},
	})
}

// emptyNodesAnnotated is two empty nodes, e1 annotated key: "true".
func emptyNodesAnnotated(p *state.Pool, key string) func() *state.Snapshot {
	return func() *state.Snapshot {
		s := emptyNodes(p, 2)()
		s.Nodes[0].Annotations = map[string]string{key: "true"}
		return s
	}
}
