package simulate

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// kindInfo is what the loader knows about one kind.
type kindInfo struct {
	apiVersion string
	namespaced bool
	add        func(s *Scenario, d *document) []error
}

// kinds lists every kind a scenario may hold.
var kinds = map[string]kindInfo{
	"Pod":                 {"v1", true, (*Scenario).addPod},
	"Node":                {"v1", false, (*Scenario).addNode},
	"Deployment":          {"apps/v1", true, (*Scenario).addDeployment},
	"ReplicaSet":          {"apps/v1", true, (*Scenario).addReplicaSet},
	"StatefulSet":         {"apps/v1", true, (*Scenario).addStatefulSet},
	"DaemonSet":           {"apps/v1", true, (*Scenario).addDaemonSet},
	"Job":                 {"batch/v1", true, (*Scenario).addJob},
	"PodDisruptionBudget": {"policy/v1", true, (*Scenario).addPDB},
	v1.NodePoolKind:       {v1.SchemeGroupVersion.String(), false, (*Scenario).addNodePool},
	v1.NodeClassKind:      {v1.SchemeGroupVersion.String(), false, (*Scenario).addNodeClass},
	v1.NodeClaimKind:      {v1.SchemeGroupVersion.String(), false, (*Scenario).addNodeClaim},
	v1alpha5.ProvisionerKind: {
		v1alpha5.SchemeGroupVersion.String(), false, (*Scenario).addProvisioner,
	},
}

// supportedKinds is the list error messages offer.
const supportedKinds = "Scenario, NodePool, NodeClass, NodeClaim, Provisioner, Pod, Node, Deployment, ReplicaSet, StatefulSet, Job, DaemonSet, PodDisruptionBudget"

// add decodes and validates one document and adds its objects.
func (s *Scenario) add(d *document) []error {
	if d.head.Kind == "" {
		return []error{d.errorf("kind", "Required value: every document needs a kind")}
	}
	info, ok := kinds[d.head.Kind]
	if !ok {
		return []error{d.errorf("kind", "Unsupported value: %q: supported kinds: %s", d.head.Kind, supportedKinds)}
	}
	if d.head.APIVersion != info.apiVersion {
		return []error{d.errorf("apiVersion", "Unsupported value: %q: %s is %s", d.head.APIVersion, d.head.Kind, info.apiVersion)}
	}
	if info.namespaced && d.head.Metadata.Namespace == "" {
		d.head.Metadata.Namespace = corev1.NamespaceDefault
	}
	key := d.describe()
	if prev, dup := s.owners[key]; dup {
		return []error{d.errorf("metadata.name", "Duplicate value: %q: %s already defines %s", d.head.Metadata.Name, prev, key)}
	}
	if errs := info.add(s, d); len(errs) > 0 {
		return errs
	}
	s.owners[key] = d.file
	return nil
}

func (s *Scenario) addPod(d *document) []error {
	p := &corev1.Pod{}
	if errs := d.decodeStrict(p); len(errs) > 0 {
		return errs
	}
	defaultNamespace(&p.Namespace)
	errs := validateMeta(&p.ObjectMeta, true)
	errs = append(errs, validatePodSpec(field.NewPath("spec"), &p.Spec)...)
	if len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.Pods = append(s.Objects.Pods, p)
	return nil
}

func (s *Scenario) addNode(d *document) []error {
	n := &corev1.Node{}
	if errs := d.decodeStrict(n); len(errs) > 0 {
		return errs
	}
	if errs := validateMeta(&n.ObjectMeta, false); len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.Nodes = append(s.Objects.Nodes, n)
	return nil
}

func (s *Scenario) addDeployment(d *document) []error {
	w := &appsv1.Deployment{}
	if errs := d.decodeStrict(w); len(errs) > 0 {
		return errs
	}
	return s.addWorkload(d, w.Kind, &w.ObjectMeta, w.Spec.Replicas, w.Spec.Selector, &w.Spec.Template)
}

func (s *Scenario) addReplicaSet(d *document) []error {
	w := &appsv1.ReplicaSet{}
	if errs := d.decodeStrict(w); len(errs) > 0 {
		return errs
	}
	return s.addWorkload(d, w.Kind, &w.ObjectMeta, w.Spec.Replicas, w.Spec.Selector, &w.Spec.Template)
}

func (s *Scenario) addStatefulSet(d *document) []error {
	w := &appsv1.StatefulSet{}
	if errs := d.decodeStrict(w); len(errs) > 0 {
		return errs
	}
	return s.addWorkload(d, w.Kind, &w.ObjectMeta, w.Spec.Replicas, w.Spec.Selector, &w.Spec.Template)
}

// addJob expands a Job into the pods it runs at once: parallelism (default
// 1), at most completions.
func (s *Scenario) addJob(d *document) []error {
	w := &batchv1.Job{}
	if errs := d.decodeStrict(w); len(errs) > 0 {
		return errs
	}
	n := int32(1)
	if w.Spec.Parallelism != nil {
		n = *w.Spec.Parallelism
	}
	if c := w.Spec.Completions; c != nil && *c < n {
		n = *c
	}
	return s.addWorkload(d, w.Kind, &w.ObjectMeta, &n, w.Spec.Selector, &w.Spec.Template)
}

func (s *Scenario) addDaemonSet(d *document) []error {
	ds := &appsv1.DaemonSet{}
	if errs := d.decodeStrict(ds); len(errs) > 0 {
		return errs
	}
	defaultNamespace(&ds.Namespace)
	errs := validateMeta(&ds.ObjectMeta, true)
	errs = append(errs, validateTemplate(field.NewPath("spec"), ds.Spec.Selector, &ds.Spec.Template, true)...)
	if len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.DaemonSets = append(s.Objects.DaemonSets, ds)
	return nil
}

func (s *Scenario) addPDB(d *document) []error {
	p := &policyv1.PodDisruptionBudget{}
	if errs := d.decodeStrict(p); len(errs) > 0 {
		return errs
	}
	defaultNamespace(&p.Namespace)
	errs := validateMeta(&p.ObjectMeta, true)
	errs = append(errs, validatePDBSpec(field.NewPath("spec"), &p.Spec)...)
	if len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.PDBs = append(s.Objects.PDBs, p)
	return nil
}

func (s *Scenario) addNodePool(d *document) []error {
	np := &v1.NodePool{}
	if errs := d.decodeStrict(np); len(errs) > 0 {
		return errs
	}
	if errs := np.Validate(); len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.NodePools = append(s.Objects.NodePools, np)
	return nil
}

func (s *Scenario) addNodeClass(d *document) []error {
	nc := &v1.NodeClass{}
	if errs := d.decodeStrict(nc); len(errs) > 0 {
		return errs
	}
	if errs := nc.Validate(); len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.NodeClasses = append(s.Objects.NodeClasses, nc)
	return nil
}

func (s *Scenario) addNodeClaim(d *document) []error {
	c := &v1.NodeClaim{}
	if errs := d.decodeStrict(c); len(errs) > 0 {
		return errs
	}
	if errs := c.Validate(); len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	s.Objects.NodeClaims = append(s.Objects.NodeClaims, c)
	return nil
}

func (s *Scenario) addProvisioner(d *document) []error {
	p := &v1alpha5.Provisioner{}
	if errs := d.decodeStrict(p); len(errs) > 0 {
		return errs
	}
	if errs := p.Validate(); len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	if _, _, err := v1alpha5.ToNodePool(p); err != nil {
		return []error{d.errorf("spec", "%v", err)}
	}
	s.Objects.Provisioners = append(s.Objects.Provisioners, p)
	return nil
}

func defaultNamespace(ns *string) {
	if *ns == "" {
		*ns = corev1.NamespaceDefault
	}
}

// ownerOf returns the file an object came from, for converter errors.
func (s *Scenario) ownerOf(kind, namespace, name string) string {
	key := kind + " " + name
	if namespace != "" {
		key = kind + " " + namespace + "/" + name
	}
	if f, ok := s.owners[key]; ok {
		return f
	}
	return fmt.Sprint(s.Files)
}
