package state

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// daemonSets converts daemonsets into the template pod each runs per node,
// sorted by namespace/name.
func daemonSets(in []*appsv1.DaemonSet) ([]*DaemonSet, error) {
	out := make([]*DaemonSet, 0, len(in))
	seen := map[string]bool{}
	var errs []*ObjectError
	for _, ds := range in {
		key := objectKey(ds.Namespace, ds.Name)
		if seen[key] {
			errs = append(errs, objectErrorf("DaemonSet", ds.Namespace, ds.Name, "metadata.name", "another DaemonSet has the same namespace and name"))
			continue
		}
		seen[key] = true
		out = append(out, &DaemonSet{Namespace: ds.Namespace, Name: ds.Name, Pod: DaemonSetPod(ds)})
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	byKey(out, func(d *DaemonSet) string { return objectKey(d.Namespace, d.Name) })
	return out, nil
}

// DaemonSetPod returns the pod a daemonset runs on each node it selects,
// with the tolerations the DaemonSet controller adds to every daemon pod
// (not-ready, unreachable, disk/memory/pid pressure, unschedulable, and
// network-unavailable for host-network pods), so the packer judges its
// taints as Kubernetes will.
func DaemonSetPod(ds *appsv1.DaemonSet) *Pod {
	p := &corev1.Pod{
		ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(),
		Spec:       *ds.Spec.Template.Spec.DeepCopy(),
	}
	p.Namespace = ds.Namespace
	p.Name = ds.Name
	controller := true
	p.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &controller,
	}}
	p.Spec.Tolerations = addDaemonTolerations(p.Spec.Tolerations, p.Spec.HostNetwork)
	return ConvertPod(p)
}

// addDaemonTolerations mirrors the DaemonSet controller's
// AddOrUpdateDaemonPodTolerations: it adds each toleration the pod does not
// already have (by key and effect).
func addDaemonTolerations(tols []corev1.Toleration, hostNetwork bool) []corev1.Toleration {
	add := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if hostNetwork {
		add = append(add, corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	out := append([]corev1.Toleration(nil), tols...)
	for _, t := range add {
		found := false
		for _, have := range tols {
			if have.Key == t.Key && have.Effect == t.Effect {
				found = true
				break
			}
		}
		if !found {
			out = append(out, t)
		}
	}
	return out
}
