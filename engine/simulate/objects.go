package simulate

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// scenarioKinds are the kinds a scenario may hold, in the order messages
// list them; add keeps each.
var scenarioKinds = &manifest.Scheme{
	Kinds: []manifest.Kind{
		manifest.KindOf[ScenarioHeader](ScenarioAPIVersion, ScenarioKind, false),
		manifest.KindOf[v1.NodePool](v1.SchemeGroupVersion.String(), v1.NodePoolKind, false),
		manifest.KindOf[v1.NodeClass](v1.SchemeGroupVersion.String(), v1.NodeClassKind, false),
		manifest.KindOf[v1.NodeClaim](v1.SchemeGroupVersion.String(), v1.NodeClaimKind, false),
		manifest.KindOf[v1.NodeOverlay](v1.SchemeGroupVersion.String(), v1.NodeOverlayKind, false),
		manifest.KindOf[v1alpha5.Provisioner](v1alpha5.SchemeGroupVersion.String(), v1alpha5.ProvisionerKind, false),
		manifest.KindOf[corev1.Pod]("v1", "Pod", true),
		manifest.KindOf[corev1.Node]("v1", "Node", false),
		manifest.KindOf[appsv1.Deployment]("apps/v1", "Deployment", true),
		manifest.KindOf[appsv1.ReplicaSet]("apps/v1", "ReplicaSet", true),
		manifest.KindOf[appsv1.StatefulSet]("apps/v1", "StatefulSet", true),
		manifest.KindOf[batchv1.Job]("batch/v1", "Job", true),
		manifest.KindOf[appsv1.DaemonSet]("apps/v1", "DaemonSet", true),
		manifest.KindOf[policyv1.PodDisruptionBudget]("policy/v1", "PodDisruptionBudget", true),
	},
	Source:    "in a scenario",
	Elsewhere: "remove it; a scenario holds workloads, nodes, disruption budgets and Tenon policy",
}

// add validates a decoded object and, when it is valid, adds it to the
// scenario: workloads as the pods they stand for, the others as they are.
func (s *Scenario) add(obj any) field.ErrorList {
	o := &s.Objects
	switch obj := obj.(type) {
	case *corev1.Pod:
		errs := validateMeta(&obj.ObjectMeta, true)
		errs = append(errs, validatePodSpec(field.NewPath("spec"), &obj.Spec)...)
		if len(errs) == 0 {
			if err := s.makeRoom(1, field.NewPath("metadata", "name")); err != nil {
				return field.ErrorList{err}
			}
		}
		if obj.CreationTimestamp.IsZero() {
			obj.CreationTimestamp = fileOrder(len(o.Pods))
		}
		return keep(obj, errs, &o.Pods)
	case *corev1.Node:
		errs := validateMeta(&obj.ObjectMeta, false)
		return keep(obj, append(errs, validateNodeStatus(field.NewPath("status"), &obj.Status)...), &o.Nodes)
	case *appsv1.Deployment:
		return s.addWorkload(workload{obj.TypeMeta, &obj.ObjectMeta, obj.Spec.Replicas, obj.Spec.Selector, &obj.Spec.Template, replicasPath})
	case *appsv1.ReplicaSet:
		return s.addWorkload(workload{obj.TypeMeta, &obj.ObjectMeta, obj.Spec.Replicas, obj.Spec.Selector, &obj.Spec.Template, replicasPath})
	case *appsv1.StatefulSet:
		return s.addWorkload(workload{obj.TypeMeta, &obj.ObjectMeta, obj.Spec.Replicas, obj.Spec.Selector, &obj.Spec.Template, replicasPath})
	case *batchv1.Job:
		return s.addWorkload(jobWorkload(obj))
	case *appsv1.DaemonSet:
		errs := validateMeta(&obj.ObjectMeta, true)
		return keep(obj, append(errs, validateTemplate(field.NewPath("spec"), obj.Spec.Selector, &obj.Spec.Template, true)...), &o.DaemonSets)
	case *policyv1.PodDisruptionBudget:
		errs := validateMeta(&obj.ObjectMeta, true)
		return keep(obj, append(errs, validatePDBSpec(field.NewPath("spec"), &obj.Spec)...), &o.PDBs)
	case *v1.NodePool:
		return keep(obj, obj.Validate(), &o.NodePools)
	case *v1.NodeClass:
		return keep(obj, obj.Validate(), &o.NodeClasses)
	case *v1.NodeClaim:
		return keep(obj, obj.Validate(), &o.NodeClaims)
	case *v1.NodeOverlay:
		return keep(obj, obj.Validate(), &o.NodeOverlays)
	case *v1alpha5.Provisioner:
		return keep(obj, validateProvisioner(obj), &o.Provisioners)
	}
	// The scheme decodes no other kind.
	return field.ErrorList{field.InternalError(nil, fmt.Errorf("simulate reads %T but does not keep it; this is a bug", obj))}
}

// fileOrder is the creation time of the pod at ordinal n of a scenario
// that gives it none: the pods of a file are created in its order, as
// `kubectl apply -f` creates them, and before any pod that carries a
// creationTimestamp. kube-scheduler's queue takes pods of equal priority
// in creation order, which decides which of two competing pods binds.
func fileOrder(n int) metav1.Time {
	return metav1.NewTime(time.Unix(0, 0).UTC().Add(time.Duration(n) * time.Second))
}

// keep appends obj to list when it has no validation errors, and returns
// them.
func keep[T any](obj T, errs field.ErrorList, list *[]T) field.ErrorList {
	if len(errs) == 0 {
		*list = append(*list, obj)
	}
	return errs
}

var replicasPath = field.NewPath("spec", "replicas")

// jobWorkload is a Job as the pods it runs at once: parallelism (default
// 1), at most completions.
func jobWorkload(j *batchv1.Job) workload {
	n := int32(1)
	path := field.NewPath("spec", "parallelism")
	if j.Spec.Parallelism != nil {
		n = *j.Spec.Parallelism
	}
	if c := j.Spec.Completions; c != nil && *c < n {
		n, path = *c, field.NewPath("spec", "completions")
	}
	return workload{j.TypeMeta, &j.ObjectMeta, &n, j.Spec.Selector, &j.Spec.Template, path}
}

// validateProvisioner checks a Provisioner as the API does and that it
// maps to the pool the agent would run.
func validateProvisioner(p *v1alpha5.Provisioner) field.ErrorList {
	if errs := p.Validate(); len(errs) > 0 {
		return errs
	}
	if _, _, err := v1alpha5.ToNodePool(p); err != nil {
		return field.ErrorList{{Type: field.ErrorTypeInvalid, Field: "spec", BadValue: field.OmitValueType{}, Detail: err.Error()}}
	}
	return nil
}
