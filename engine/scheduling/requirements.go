package scheduling

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Requirements maps a label key to the Requirement on it; several
// requirements on one key are intersected. A nil Requirements reads as empty
// (no constraints) but Add needs a non-nil map.
type Requirements map[string]Requirement

// NewRequirements returns the intersection of reqs, keyed by label.
func NewRequirements(reqs ...Requirement) Requirements {
	r := make(Requirements, len(reqs))
	r.Add(reqs...)
	return r
}

// RequirementsFromSpecs parses specs (the API's requirements, with minValues)
// and intersects them. It reports every invalid spec, each prefixed with its
// index.
func RequirementsFromSpecs(specs ...RequirementSpec) (Requirements, error) {
	r := make(Requirements, len(specs))
	var errs []error
	for i, spec := range specs {
		req, err := ParseRequirement(spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("requirements[%d]: %w", i, err))
			continue
		}
		r.Add(req)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}

// RequirementsFromNodeSelector parses Kubernetes node selector requirements
// (a node selector term's matchExpressions, all of which must hold).
func RequirementsFromNodeSelector(reqs ...corev1.NodeSelectorRequirement) (Requirements, error) {
	specs := make([]RequirementSpec, len(reqs))
	for i, req := range reqs {
		specs[i] = RequirementSpec{Key: req.Key, Operator: string(req.Operator), Values: req.Values}
	}
	return RequirementsFromSpecs(specs...)
}

// RequirementsFromLabels returns one In [value] requirement per label, as for
// a pod's nodeSelector or a pool's template labels.
func RequirementsFromLabels(labels map[string]string) Requirements {
	r := make(Requirements, len(labels))
	for key, value := range labels {
		r.Add(In(key, value))
	}
	return r
}

// Add intersects each requirement into r in place.
func (r Requirements) Add(reqs ...Requirement) {
	for _, req := range reqs {
		if existing, ok := r[req.Key]; ok {
			req = existing.Intersection(req)
		}
		r[req.Key] = req
	}
}

// Intersection returns the requirements both r and other impose: every key of
// either, intersected where both define it. Neither input changes.
func (r Requirements) Intersection(other Requirements) Requirements {
	out := r.Clone()
	if out == nil {
		out = make(Requirements, len(other))
	}
	for _, req := range other {
		out.Add(req)
	}
	return out
}

// Clone returns a copy of r that can be changed without changing r.
func (r Requirements) Clone() Requirements {
	return maps.Clone(r)
}

// Has reports whether r defines key.
func (r Requirements) Has(key string) bool {
	_, ok := r[key]
	return ok
}

// Get returns the requirement on key, or Exists(key) when r does not
// constrain it.
func (r Requirements) Get(key string) Requirement {
	if req, ok := r[key]; ok {
		return req
	}
	return Exists(key)
}

// Keys returns the keys r defines, sorted.
func (r Requirements) Keys() []string {
	return slices.Sorted(maps.Keys(r))
}

// Labels returns the labels r pins: every key whose requirement is In exactly
// one value. A node built to r carries these labels.
func (r Requirements) Labels() map[string]string {
	labels := map[string]string{}
	for key := range r {
		if v, ok := r.Label(key); ok {
			labels[key] = v
		}
	}
	return labels
}

// Label returns the value r pins for key (its requirement is In exactly
// one value), as Labels would list it.
func (r Requirements) Label(key string) (string, bool) {
	if req, ok := r[key]; ok && !req.complement && len(req.values) == 1 {
		return req.values[0], true
	}
	return "", false
}

// Specs returns r as API requirements, sorted by key; RequirementsFromSpecs
// of the result equals r.
func (r Requirements) Specs() []RequirementSpec {
	var specs []RequirementSpec
	for _, key := range r.Keys() {
		specs = append(specs, r[key].Specs()...)
	}
	return specs
}

// String returns the requirements sorted by key, separated by ", ".
func (r Requirements) String() string {
	parts := make([]string, 0, len(r))
	for _, key := range r.Keys() {
		parts = append(parts, r[key].String())
	}
	return strings.Join(parts, ", ")
}
