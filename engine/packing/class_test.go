package packing

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// printedClassKey is classKey as it was written with a strings.Builder
// and Quantity.String, the reference the buffered one must match byte for
// byte (pods land in the same classes, in the same order).
func printedClassKey(kc *keyCache, p *state.Pod) string {
	var b strings.Builder
	writeMap := func(m map[string]string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(k + "=" + m[k] + ",")
		}
		b.WriteByte('}')
	}
	b.WriteString(p.Namespace)
	writeMap(p.Labels)
	names := make([]corev1.ResourceName, 0, len(p.Requests))
	for name := range p.Requests {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := p.Requests[name]
		b.WriteString(string(name) + "=" + q.String() + ";")
	}
	writeMap(p.NodeSelector)
	if p.Affinity != nil {
		b.WriteString(kc.affinityKey(p.Affinity))
	}
	b.WriteByte('|')
	for _, t := range p.Tolerations {
		b.WriteString(t.Key + "\x00" + string(t.Operator) + "\x00" + t.Value + "\x00" + string(t.Effect) + "\x01")
	}
	b.WriteByte('|')
	b.WriteString(kc.spreadKey(p.TopologySpread))
	b.WriteByte('|')
	for _, hp := range p.HostPorts {
		b.WriteString(string(hp.Protocol) + hp.IP + strconv.Itoa(int(hp.Port)) + ",")
	}
	return b.String()
}

// TestClassKeyAsPrinted checks the buffered classKey against the printed
// reference on pods with requests in every notation (parsed canonical or
// not, decimal and binary, fractions, large and zero), labels, selectors,
// affinity, tolerations, spread and host ports, one buffer reused across
// them all.
func TestClassKeyAsPrinted(t *testing.T) {
	quantities := []string{"0", "1", "1000m", "100m", "0.1", "1.5", "1500m", "2Gi", "2048Mi", "1.5Gi", "1G", "1e3", "12345678901", "128Ki", "3k", "250M", "7Ti", "0.001"}
	aff := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}},
	}}}
	spread := []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule}}
	var pods []*state.Pod
	for i, cpu := range quantities {
		mem := quantities[(i*7+3)%len(quantities)]
		p := &state.Pod{Namespace: "ns" + strconv.Itoa(i%3), Name: "p" + strconv.Itoa(i)}
		p.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
		if i%2 == 0 {
			p.Requests["example.com/dev"] = resource.MustParse(quantities[(i+5)%len(quantities)])
			p.Labels = map[string]string{"app": "a" + strconv.Itoa(i), "tier": "web", "z": ""}
			p.NodeSelector = map[string]string{"kubernetes.io/arch": "amd64"}
		}
		if i%3 == 0 {
			p.Affinity = aff
			p.TopologySpread = spread
			p.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoSchedule}, {Operator: corev1.TolerationOpExists}}
			p.HostPorts = []state.HostPort{{Protocol: corev1.ProtocolTCP, IP: "0.0.0.0", Port: 8080}, {Protocol: corev1.ProtocolUDP, Port: 53}}
		}
		pods = append(pods, p)
	}
	kc := &keyCache{affinity: map[*corev1.Affinity]string{}, spread: map[*corev1.TopologySpreadConstraint]string{}}
	var b []byte
	for _, p := range pods {
		want := printedClassKey(kc, p)
		if b = classKey(b[:0], kc, p); string(b) != want {
			t.Errorf("pod %s: classKey\n%q\nwant\n%q", p.Name, b, want)
		}
	}
}
