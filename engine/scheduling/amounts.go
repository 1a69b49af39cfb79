package scheduling

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The engine holds resource amounts as int64: cpu in millicores, every other
// resource in its base unit (bytes, pods, devices). A Quantity holds any
// decimal, so one written as 8E, 1e400 or 9999999Ei has no int64 form and,
// converted anyway, wraps (a pod "fits" a t3.nano, a limit turns negative).
// The bounds below keep every amount that enters the engine convertible, and
// every sum of them too: a request is at most MaxRequest, and a scenario of
// up to 2^17 pods, each at the bound, still sums within int64. They are far
// above any machine (the largest EC2 instances have 896 vCPUs and 32 TiB of
// memory), so no real workload meets them.
var (
	// maxCPURequest bounds cpu requests, capacities and allocatables:
	// 1,000,000 cores.
	maxCPURequest = resource.MustParse("1M")
	// maxByteRequest bounds memory, ephemeral-storage, storage and
	// hugepages-*: 64Ti, 2^46 bytes.
	maxByteRequest = resource.MustParse("64Ti")
	// maxCountRequest bounds every other resource (pods, devices): 10^12.
	maxCountRequest = resource.MustParse("1T")

	// The limits of a pool are compared, never summed: they only need to
	// fit in int64 with room for the usage subtracted from them.
	maxCPULimit   = resource.MustParse("1P")
	maxByteLimit  = resource.MustParse("4Ei")
	maxCountLimit = resource.MustParse("1E")
)

// MaxRequest is the largest amount of resource name that a pod, container,
// node or claim may request or offer: see the bounds above.
func MaxRequest(name corev1.ResourceName) resource.Quantity {
	switch {
	case name == corev1.ResourceCPU:
		return maxCPURequest
	case isByteResource(name):
		return maxByteRequest
	}
	return maxCountRequest
}

// MaxLimit is the largest limit of resource name a node pool may set.
func MaxLimit(name corev1.ResourceName) resource.Quantity {
	switch {
	case name == corev1.ResourceCPU:
		return maxCPULimit
	case isByteResource(name):
		return maxByteLimit
	}
	return maxCountLimit
}

// isByteResource reports whether name counts bytes.
func isByteResource(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourceStorage:
		return true
	}
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// ValidateRequests reports each amount of list above MaxRequest or below
// zero, at path.<name>, in name order.
func ValidateRequests(path *field.Path, list corev1.ResourceList) field.ErrorList {
	return validateAmounts(path, list, MaxRequest, "no machine is that large")
}

// ValidateLimits reports each limit of list above MaxLimit or below zero,
// at path.<name>, in name order.
func ValidateLimits(path *field.Path, list corev1.ResourceList) field.ErrorList {
	return validateAmounts(path, list, MaxLimit, "leave the resource out for no limit")
}

func validateAmounts(path *field.Path, list corev1.ResourceList, bound func(corev1.ResourceName) resource.Quantity, why string) field.ErrorList {
	var errs field.ErrorList
	for _, name := range slices.Sorted(maps.Keys(list)) {
		q := list[name]
		if err := checkAmount(q, bound(name), why); err != "" {
			errs = append(errs, field.Invalid(path.Child(string(name)), q.String(), err))
		}
	}
	return errs
}

func checkAmount(q, bound resource.Quantity, why string) string {
	switch {
	case q.Sign() < 0:
		return "must be greater than or equal to 0"
	case q.Cmp(bound) > 0:
		return fmt.Sprintf("must be at most %s (%s; larger amounts would overflow Tenon's arithmetic)", bound.String(), why)
	}
	return ""
}

// ClampRequests returns list with every amount above MaxRequest lowered to
// it, or list itself when none is: what the agent does with a pod the API
// server accepted but no machine can hold, so the pod stays unschedulable
// (too large) instead of wrapping around into a small request.
func ClampRequests(list corev1.ResourceList) corev1.ResourceList { return clamp(list, MaxRequest) }

// ClampLimits is ClampRequests for a pool's limits, with MaxLimit.
func ClampLimits(list corev1.ResourceList) corev1.ResourceList { return clamp(list, MaxLimit) }

func clamp(list corev1.ResourceList, bound func(corev1.ResourceName) resource.Quantity) corev1.ResourceList {
	var out corev1.ResourceList
	for name, q := range list {
		if b := bound(name); q.Cmp(b) > 0 {
			if out == nil {
				out = list.DeepCopy()
			}
			out[name] = b
		}
	}
	if out == nil {
		return list
	}
	return out
}

// MaxExponent is the largest power of ten a number in input may carry
// (1e30, 1e-30). A resource.Quantity parses any exponent, and then takes
// minutes or hours to round 1e-99999999 to nano units or to compare
// 1e99999999 with a bound: one such field would hang `tenon simulate`, the
// agent or a plan. No amount the engine reads needs more.
const MaxExponent = 30

// exponentRE matches a decimal number with an exponent, as JSON writes it
// and as a Quantity reads it.
var exponentRE = regexp.MustCompile(`^[+-]?[0-9.]+[eE]([+-]?[0-9]+)$`)

// ExponentTooLarge reports whether s is a number whose exponent is past
// ±MaxExponent. Parse such a string before handing it to
// resource.ParseQuantity.
func ExponentTooLarge(s string) bool {
	m := exponentRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	exp, err := strconv.Atoi(m[1])
	return err != nil || exp > MaxExponent || exp < -MaxExponent
}

// ParseQuantity is resource.ParseQuantity for input: a number whose
// exponent is past ±MaxExponent is an error, returned at once.
func ParseQuantity(s string) (resource.Quantity, error) {
	if ExponentTooLarge(s) {
		return resource.Quantity{}, fmt.Errorf("%q has an exponent past ±%d: no amount is that large or that small", s, MaxExponent)
	}
	return resource.ParseQuantity(s)
}
