package simulate

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// workload is what a Deployment, ReplicaSet, StatefulSet or Job says about
// the pods it runs.
type workload struct {
	metav1.TypeMeta
	meta     *metav1.ObjectMeta
	replicas *int32
	selector *metav1.LabelSelector
	template *corev1.PodTemplateSpec
	// countField is the field replicas came from, for messages.
	countField *field.Path
}

// makeRoom counts n more pods, from the field at path, against MaxPods.
func (s *Scenario) makeRoom(n int, path *field.Path) *field.Error {
	have := len(s.Objects.Pods)
	if have+n <= MaxPods {
		return nil
	}
	s.overCap = true
	return field.Invalid(path, n, fmt.Sprintf("the scenario would hold %d pods with these (%d before them), more than the %d tenon simulate accepts; lower the count or simulate a part of the cluster", have+n, have, MaxPods))
}

// addWorkload validates a workload and expands it into the pods it stands
// for: X-0 … X-(N-1) in its namespace, with the template's labels,
// annotations and spec, controlled by it.
func (s *Scenario) addWorkload(w workload) field.ErrorList {
	meta, tmpl := w.meta, w.template
	n := int32(1)
	if w.replicas != nil {
		n = *w.replicas
	}
	errs := validateMeta(meta, true)
	if n < 0 {
		errs = append(errs, field.Invalid(w.countField, n, "must be greater than or equal to 0"))
	}
	errs = append(errs, validateTemplate(field.NewPath("spec"), w.selector, tmpl, w.Kind != "Job" || w.selector != nil)...)
	if len(errs) > 0 {
		return errs
	}
	if err := s.makeRoom(int(n), w.countField); err != nil {
		return field.ErrorList{err}
	}
	prefix := meta.Name
	if s.podPrefixes == nil {
		s.podPrefixes = map[string]bool{}
	}
	if s.podPrefixes[meta.Namespace+"/"+prefix] {
		prefix += "-" + strings.ToLower(w.Kind)
	}
	s.podPrefixes[meta.Namespace+"/"+prefix] = true
	controller := true
	owner := metav1.OwnerReference{APIVersion: w.APIVersion, Kind: w.Kind, Name: meta.Name, UID: meta.UID, Controller: &controller}
	// The pods are created with the workload, in index order.
	have := len(s.Objects.Pods)
	created := func(i int) metav1.Time {
		if !meta.CreationTimestamp.IsZero() {
			return meta.CreationTimestamp
		}
		return fileOrder(have + i)
	}
	for i := range n {
		p := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				CreationTimestamp: created(int(i)),
				Name:              fmt.Sprintf("%s-%d", prefix, i),
				Namespace:         meta.Namespace,
				Labels:            tmpl.Labels,
				Annotations:       tmpl.Annotations,
				OwnerReferences:   []metav1.OwnerReference{owner},
			},
			// The converter copies what it keeps, so the pods share the
			// template's metadata maps and spec.
			Spec: tmpl.Spec,
		}
		s.Objects.Pods = append(s.Objects.Pods, p)
	}
	s.Workloads++
	return nil
}
