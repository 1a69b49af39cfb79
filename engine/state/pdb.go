package state

import (
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// pdbs converts pod disruption budgets, sorted by namespace/name.
func pdbs(in []*policyv1.PodDisruptionBudget) ([]*PDB, error) {
	out := make([]*PDB, 0, len(in))
	var errs []*ObjectError
	for _, p := range in {
		pdb, err := ConvertPDB(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, pdb)
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	byKey(out, func(p *PDB) string { return objectKey(p.Namespace, p.Name) })
	return out, nil
}

// ConvertPDB converts a pod disruption budget. As in policy/v1, a missing
// selector selects no pods and an empty one every pod in the namespace.
// DisruptionsAllowed is the status figure when the disruption controller
// has observed the current generation, and -1 (compute it from the pods)
// otherwise, as for a PDB read from a file.
func ConvertPDB(p *policyv1.PodDisruptionBudget) (*PDB, *ObjectError) {
	sel := labels.Nothing()
	if p.Spec.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil {
			return nil, objectErrorf("PodDisruptionBudget", p.Namespace, p.Name, "spec.selector", "%v", err)
		}
		sel = s
	}
	out := &PDB{
		Namespace:          p.Namespace,
		Name:               p.Name,
		Selector:           sel,
		MinAvailable:       copyIntOrString(p.Spec.MinAvailable),
		MaxUnavailable:     copyIntOrString(p.Spec.MaxUnavailable),
		DisruptionsAllowed: -1,
	}
	if p.Status.ObservedGeneration > 0 && p.Status.ObservedGeneration == p.Generation {
		out.DisruptionsAllowed = p.Status.DisruptionsAllowed
	}
	return out, nil
}

func copyIntOrString(v *intstr.IntOrString) *intstr.IntOrString {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
