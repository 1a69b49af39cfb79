package v1

import (
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
)

// Messages of the NodeOverlay's CEL rules, repeated by its Go validation.
const (
	msgOverlayPriceBoth       = "set price or priceAdjustment, not both: price replaces the price, priceAdjustment changes it"
	msgOverlayNothing         = "an overlay changes nothing without price, priceAdjustment or capacity; set one of them"
	msgOverlayMinValues       = "minValues has no meaning in an overlay's requirements; remove it"
	msgOverlayPrice           = "price must be a non-negative decimal number of USD per hour such as 0.042"
	msgOverlayPriceAdjustment = "priceAdjustment must be a signed amount such as -0.01 or +0.005, or a signed percentage such as -15% or +10% (at most -100%)"
	msgOverlayCapacityNative  = "capacity adds extended resources only; cpu, memory, ephemeral-storage and pods come from the instance type, remove them"
	msgOverlayCapacityName    = "capacity keys must be hugepages-<size> or an extended resource in your own domain such as example.com/fpga"
	msgOverlayCapacityValue   = "capacity must be a positive quantity such as 1Gi or 4; remove the resource to add none"
	msgOverlayWeight          = "weight must be between 1 and 10000; the highest weight wins where overlays set the same value"
)

const (
	maxOverlayPriceLength = 32
	maxOverlayCapacity    = 32
	maxOverlayWeight      = 10000
)

var (
	// OverlayPriceRE is the form of a NodeOverlay's price, as the CRD's CEL rule matches it.
	OverlayPriceRE = regexp.MustCompile(`^[0-9]+([.][0-9]+)?$`)
	// OverlayPriceAdjustmentRE is the form of a NodeOverlay's priceAdjustment, as the CRD's CEL
	// rule matches it.
	OverlayPriceAdjustmentRE = regexp.MustCompile(`^([+-]([0-9]+([.][0-9]+)?|[.][0-9]+)|[+]([0-9]+([.][0-9]+)?|[.][0-9]+)%|-(100([.]0+)?|[0-9]{1,2}([.][0-9]+)?|[.][0-9]+)%)$`)
	kubernetesDomainRE       = regexp.MustCompile(`^([^/]+[.])?kubernetes[.]io/`)
)

// overlayNativeResources are the resources an instance type defines and an overlay cannot add.
var overlayNativeResources = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods,
}

// Validate checks the NodeOverlay as the API server's schema and CEL rules do, returning errors
// with the paths of the offending fields.
func (in *NodeOverlay) Validate() field.ErrorList {
	errs := apivalidation.ObjectName(in.Name, in.GenerateName)
	return append(errs, in.Spec.validate(field.NewPath("spec"))...)
}

// ValidateUpdate checks an update from old: a NodeOverlay has no immutable fields.
func (in *NodeOverlay) ValidateUpdate(_ *NodeOverlay) field.ErrorList {
	return in.Validate()
}

// SetDefaults fills the fields the API server would default: a NodeOverlay has none.
func (in *NodeOverlay) SetDefaults() {}

func (in *NodeOverlaySpec) validate(path *field.Path) field.ErrorList {
	reqPath := path.Child("requirements")
	errs := apivalidation.Requirements(reqPath, in.Requirements, operators)
	for i, r := range in.Requirements {
		if r.MinValues != nil {
			errs = append(errs, field.Invalid(reqPath.Index(i).Child("minValues"), *r.MinValues, msgOverlayMinValues))
			errs = append(errs, validateMinValues(reqPath.Index(i).Child("minValues"), r)...)
		}
	}
	switch {
	case in.Price != nil && in.PriceAdjustment != nil:
		errs = append(errs, field.Invalid(path, "price and priceAdjustment", msgOverlayPriceBoth))
	case in.Price == nil && in.PriceAdjustment == nil && len(in.Capacity) == 0:
		errs = append(errs, field.Invalid(path, "", msgOverlayNothing))
	}
	errs = append(errs, validateOverlayString(path.Child("price"), in.Price, OverlayPriceRE, msgOverlayPrice)...)
	errs = append(errs, validateOverlayString(path.Child("priceAdjustment"), in.PriceAdjustment, OverlayPriceAdjustmentRE, msgOverlayPriceAdjustment)...)
	errs = append(errs, validateOverlayCapacity(path.Child("capacity"), in.Capacity)...)
	if in.Weight != nil && (*in.Weight < 1 || *in.Weight > maxOverlayWeight) {
		errs = append(errs, field.Invalid(path.Child("weight"), *in.Weight, msgOverlayWeight))
	}
	return errs
}

func validateOverlayString(path *field.Path, s *string, re *regexp.Regexp, msg string) field.ErrorList {
	switch {
	case s == nil:
		return nil
	case len(*s) > maxOverlayPriceLength:
		return field.ErrorList{field.TooLong(path, *s, maxOverlayPriceLength)}
	case !re.MatchString(*s):
		return field.ErrorList{field.Invalid(path, *s, msg)}
	}
	return nil
}

// validateOverlayCapacity checks the extended resources an overlay adds, in the order of their
// names so errors are stable.
func validateOverlayCapacity(path *field.Path, capacity corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	if len(capacity) > maxOverlayCapacity {
		errs = append(errs, field.TooMany(path, len(capacity), maxOverlayCapacity))
	}
	names := make([]string, 0, len(capacity))
	for name := range capacity {
		names = append(names, string(name))
	}
	slices.Sort(names)
	for _, name := range names {
		q := capacity[corev1.ResourceName(name)]
		switch {
		case slices.Contains(overlayNativeResources, corev1.ResourceName(name)):
			errs = append(errs, field.Invalid(path, name, msgOverlayCapacityNative))
		case !IsOverlayResourceName(name):
			errs = append(errs, field.Invalid(path, name, msgOverlayCapacityName))
		case q.Sign() <= 0:
			errs = append(errs, field.Invalid(path.Key(name), q.String(), msgOverlayCapacityValue))
		}
	}
	return errs
}

// IsOverlayResourceName reports whether an overlay may add the resource: hugepages-<size>, or an
// extended resource outside the kubernetes.io domains.
func IsOverlayResourceName(name string) bool {
	return strings.HasPrefix(name, corev1.ResourceHugePagesPrefix) ||
		(strings.Contains(name, "/") && !kubernetesDomainRE.MatchString(name))
}
