package convert

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Karpenter's label and annotation domains.
const (
	karpenterCore = "karpenter.sh"
	karpenterAWS  = "karpenter.k8s.aws"
)

// Karpenter annotation keys the converter knows.
const (
	karpenterDoNotDisrupt  = karpenterCore + "/do-not-disrupt"
	karpenterDoNotConsolid = karpenterCore + "/do-not-consolidate"
	karpenterDoNotEvict    = karpenterCore + "/do-not-evict"
)

// mapLabelKey returns the Tenon key of a node label key, or "" and why it has
// none.
func mapLabelKey(key string) (string, string) {
	if tenon, ok := scheduling.FromKarpenterLabel(key); ok {
		if tenon == v1.LabelNodePool {
			return "", fmt.Sprintf("the agent sets %s to the pool's name itself; remove it", v1.LabelNodePool)
		}
		return tenon, ""
	}
	if inKarpenterDomain(key) {
		return "", "Karpenter-specific label with no Tenon equivalent"
	}
	return key, ""
}

// inKarpenterDomain reports whether key is in karpenter.sh or
// karpenter.k8s.aws, or a subdomain of either.
func inKarpenterDomain(key string) bool {
	domain, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range []string{karpenterCore, karpenterAWS} {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// labels maps the node labels at key.
func (n *node) labels(key string) map[string]string {
	in := n.strMap(key)
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for _, k := range sortedKeys(in) {
		v := in[k]
		tenon, why := mapLabelKey(k)
		if tenon == "" {
			n.c.unmap(n.at(key).Key(k), why)
			continue
		}
		if tenon != k {
			n.c.from(n.at(key).Key(tenon), n.at(key).Key(k))
		}
		out[tenon] = v
	}
	return out
}

// nodeAnnotations maps the node annotations at key: karpenter.sh/do-not-disrupt
// becomes tenon.dev/do-not-disrupt; v1alpha5's karpenter.sh/do-not-consolidate
// is kept, as Tenon honours it on nodes (disruption.karpenterAnnotations,
// Honor by default); other Karpenter annotations have no equivalent
// (karpenter.sh/do-not-evict is a pod annotation, which Tenon honours on
// pods, but on a node it does nothing).
func (n *node) nodeAnnotations(key string) map[string]string {
	in := n.strMap(key)
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for _, k := range sortedKeys(in) {
		v := in[k]
		switch {
		case k == karpenterDoNotDisrupt:
			out[v1.AnnotationDoNotDisrupt] = v
			n.c.from(n.at(key).Key(v1.AnnotationDoNotDisrupt), n.at(key).Key(k))
		case k == karpenterDoNotConsolid:
			out[k] = v
		case k == v1.AnnotationKarpenterDoNotRepair:
			out[v1.AnnotationDoNotRepair] = v
			n.c.from(n.at(key).Key(v1.AnnotationDoNotRepair), n.at(key).Key(k))
		case k == karpenterDoNotEvict:
			n.c.unmap(n.at(key).Key(k), fmt.Sprintf("a pod annotation (Tenon honours it on pods); on a node it does nothing in Karpenter either; to keep the pool's nodes from disruption set %s", v1.AnnotationDoNotDisrupt))
		case inKarpenterDomain(k):
			n.c.unmap(n.at(key).Key(k), "Karpenter-specific annotation with no Tenon equivalent")
		default:
			out[k] = v
		}
	}
	return out
}

// requirement is a requirement read from the input, before it is typed.
type requirement struct {
	key       string
	operator  string
	values    []string
	minValues *int32
	// path is the requirement's path in the input.
	path *field.Path
}

// requirements reads the requirements at key, mapping label keys and
// dropping (and reporting) those Tenon has no label for. withMinValues
// says whether the input version has minValues.
func (n *node) requirements(key string, withMinValues bool) []requirement {
	var out []requirement
	for _, item := range n.items(key) {
		r := requirement{key: item.str("key"), operator: item.str("operator"), values: item.strings("values"), path: item.path}
		if withMinValues {
			r.minValues = item.int32p("minValues")
		}
		item.finish()
		tenon, why := mapLabelKey(r.key)
		if tenon == "" {
			n.c.unmap(item.path, fmt.Sprintf("requirement on %s: %s", r.key, why))
			continue
		}
		r.key = tenon
		out = append(out, r)
	}
	return out
}

// taint is a taint read from the input.
type taint struct{ key, value, effect string }

// taints reads the taints at key.
func (n *node) taints(key string) []taint {
	var out []taint
	for _, item := range n.items(key) {
		t := taint{key: item.str("key"), value: item.str("value"), effect: item.str("effect")}
		item.skip("timeAdded", "set by the node lifecycle controller, not by a policy")
		item.finish()
		out = append(out, t)
	}
	return out
}

func taintsV1(in []taint) []v1.Taint {
	if in == nil {
		return nil
	}
	out := make([]v1.Taint, len(in))
	for i, t := range in {
		out[i] = v1.Taint{Key: t.key, Value: t.value, Effect: corev1.TaintEffect(t.effect)}
	}
	return out
}

var (
	durationSMH = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	durationHM  = regexp.MustCompile(`^([0-9]+h([0-9]+m)?|[0-9]+m)$`)
	// zeroUnit finds the empty components Go's Duration.String writes
	// (720h0m0s), which Kubernetes prints for metav1.Duration fields.
	zeroUnit = regexp.MustCompile(`[hm]0+[ms]`)
)

// normalizeDuration rewrites a Go duration Karpenter accepts (such as 1h0m0s
// or 1.5h) into the shortest form Tenon's schema takes (1h, 1h30m); values
// already in that form (90s stays 90s), Never, and values that do not parse
// stay as they are, for validation to judge.
func normalizeDuration(d string, re *regexp.Regexp) string {
	if d == "" || d == v1.NeverDuration || re.MatchString(d) && !zeroUnit.MatchString(d) {
		return d
	}
	parsed, err := time.ParseDuration(d)
	if err != nil || parsed < 0 || parsed%time.Second != 0 {
		return d
	}
	h, m, s := int64(parsed/time.Hour), int64(parsed%time.Hour/time.Minute), int64(parsed%time.Minute/time.Second)
	var sb strings.Builder
	if h > 0 {
		fmt.Fprintf(&sb, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&sb, "%dm", m)
	}
	if s > 0 || sb.Len() == 0 {
		if re == durationHM && sb.Len() > 0 && s == 0 {
			return sb.String()
		}
		fmt.Fprintf(&sb, "%ds", s)
	}
	if out := sb.String(); re.MatchString(out) {
		return out
	}
	return d
}
