package simulate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// addWorkload validates a Deployment, ReplicaSet, StatefulSet or Job and
// expands it into the pods it stands for: X-0 … X-(N-1) in its namespace,
// with the template's labels, annotations and spec, controlled by it.
func (s *Scenario) addWorkload(d *document, kind string, meta *metav1.ObjectMeta, replicas *int32, selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec) []error {
	defaultNamespace(&meta.Namespace)
	n := int32(1)
	if replicas != nil {
		n = *replicas
	}
	errs := validateMeta(meta, true)
	if n < 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "replicas"), n, "must be greater than or equal to 0"))
	}
	errs = append(errs, validateTemplate(field.NewPath("spec"), selector, tmpl, kind != "Job" || selector != nil)...)
	if len(errs) > 0 {
		return d.fieldErrors(errs)
	}
	controller := true
	owner := metav1.OwnerReference{APIVersion: d.head.APIVersion, Kind: kind, Name: meta.Name, UID: meta.UID, Controller: &controller}
	for i := range n {
		p := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name:            fmt.Sprintf("%s-%d", meta.Name, i),
				Namespace:       meta.Namespace,
				Labels:          tmpl.Labels,
				Annotations:     tmpl.Annotations,
				OwnerReferences: []metav1.OwnerReference{owner},
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
