package simulate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// lastApplied is kubectl's annotation holding an object's whole applied manifest, environment
// values included: a cluster file never carries it.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// ClusterScenario writes a live cluster as a scenario file (docs/guides/scenario-files.md): a
// Scenario header with the region, zones and the instant it was read (spec.now), then every
// object the agent's view admits. Every document is marshalled, never templated, so no name,
// label or message can break out of its field. What scheduling and consolidation never read and
// may hold secrets is left out: managed fields, kubectl's last-applied annotation, containers'
// env, envFrom, command and args, and an aws NodeClass's userData.
func ClusterScenario(lc *LiveCluster) ([]byte, error) {
	name := lc.Cluster
	if name == "" {
		name = "cluster"
	}
	now := metav1.NewTime(lc.Now)
	docs := []any{&ScenarioHeader{
		TypeMeta:   metav1.TypeMeta{APIVersion: ScenarioAPIVersion, Kind: ScenarioKind},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       ScenarioSpec{Region: lc.Region, Zones: lc.Zones, Catalog: CatalogEmbedded, Now: &now},
	}}
	o := lc.Objects
	for _, c := range o.NodeClasses {
		c = c.DeepCopy()
		c.TypeMeta = metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClassKind}
		if c.Spec.AWS != nil {
			c.Spec.AWS.UserData = nil
		}
		docs = append(docs, scrubbed(c, &c.ObjectMeta))
	}
	for _, p := range o.NodePools {
		p = p.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodePoolKind}
		docs = append(docs, scrubbed(p, &p.ObjectMeta))
	}
	for _, p := range o.Provisioners {
		p = p.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{APIVersion: v1alpha5.SchemeGroupVersion.String(), Kind: v1alpha5.ProvisionerKind}
		docs = append(docs, scrubbed(p, &p.ObjectMeta))
	}
	for _, ov := range o.NodeOverlays {
		ov = ov.DeepCopy()
		ov.TypeMeta = metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeOverlayKind}
		ov.Status = v1.NodeOverlayStatus{}
		docs = append(docs, scrubbed(ov, &ov.ObjectMeta))
	}
	for _, c := range o.NodeClaims {
		c = c.DeepCopy()
		c.TypeMeta = metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClaimKind}
		docs = append(docs, scrubbed(c, &c.ObjectMeta))
	}
	for _, n := range o.Nodes {
		n = n.DeepCopy()
		n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
		docs = append(docs, scrubbed(n, &n.ObjectMeta))
	}
	for _, d := range o.DaemonSets {
		d = d.DeepCopy()
		d.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
		scrubPodSpec(&d.Spec.Template.Spec)
		scrubMeta(&d.Spec.Template.ObjectMeta)
		docs = append(docs, scrubbed(d, &d.ObjectMeta))
	}
	for _, p := range o.PDBs {
		p = p.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"}
		docs = append(docs, scrubbed(p, &p.ObjectMeta))
	}
	for _, p := range o.Pods {
		p = p.DeepCopy()
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		scrubPodSpec(&p.Spec)
		docs = append(docs, scrubbed(p, &p.ObjectMeta))
	}
	var buf bytes.Buffer
	buf.WriteString("# A running cluster as Tenon's agent sees it, written by tenon simulate --save.\n")
	buf.WriteString("# Replay it offline with tenon simulate -f FILE. Containers' env, envFrom, command and args,\n")
	buf.WriteString("# managed fields and last-applied annotations are left out.\n")
	for i, d := range docs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := yaml.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("writing the cluster's %T as YAML: %w", d, err)
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// scrubbed drops what the scenario never reads from an object's metadata and returns the
// object.
func scrubbed(obj any, m *metav1.ObjectMeta) any {
	scrubMeta(m)
	return obj
}

func scrubMeta(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	if _, ok := m.Annotations[lastApplied]; ok {
		delete(m.Annotations, lastApplied)
		if len(m.Annotations) == 0 {
			m.Annotations = nil
		}
	}
}

// scrubPodSpec drops what each container is told at run time: values that may be secrets and
// that scheduling never reads.
func scrubPodSpec(spec *corev1.PodSpec) {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			cs[i].Env, cs[i].EnvFrom, cs[i].Command, cs[i].Args = nil, nil, nil, nil
		}
	}
	for i := range spec.EphemeralContainers {
		c := &spec.EphemeralContainers[i].EphemeralContainerCommon
		c.Env, c.EnvFrom, c.Command, c.Args = nil, nil, nil, nil
	}
}

// loadLive reads the cluster, writes it as a scenario file (to save, when given), and parses
// that file back: the live answer is, by construction, the answer `tenon simulate -f` gives on
// the saved file. The cluster's left-out policy and waiting pods become warnings.
func (c *command) loadLive(ctx context.Context, lo LiveOptions, save string) (*Scenario, *LiveCluster, error) {
	if c.cluster == nil {
		return nil, nil, &UsageError{Err: errors.New("--kubeconfig and --context: this build of tenon cannot read clusters; use the tenon binary")}
	}
	lc, err := c.cluster(ctx, lo)
	if err != nil {
		return nil, nil, err
	}
	data, err := ClusterScenario(lc)
	if err != nil {
		return nil, nil, err
	}
	name := "context " + lc.Cluster
	if save != "" {
		if err := os.WriteFile(save, data, 0o600); err != nil {
			return nil, nil, &UsageError{Err: fmt.Errorf("--save %s: %w; pass a file in a writable directory", save, pathReason(err))}
		}
		name = save
	}
	s, err := parse(ctx, []File{{Name: name, Data: data}})
	if err != nil {
		return nil, nil, err
	}
	for _, key := range sortedKeys(lc.LeftOut) {
		c.warnings = append(c.warnings, fmt.Sprintf("the agent leaves out %s: %s", key, lc.LeftOut[key]))
	}
	if n := len(lc.Waiting); n > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%d pod(s) not bound that kube-scheduler has not marked unschedulable yet (the agent acts on them once it does), such as %s", n, lc.Waiting[0]))
	}
	return s, lc, nil
}

// pathReason is an *os.PathError's reason alone, the path being in the message already.
func pathReason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
