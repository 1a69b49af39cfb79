package v1

import (
	"maps"
	"net"
	"regexp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

var evictionPercentRE = regexp.MustCompile(`^(100([.]0+)?|[0-9]{1,2}([.][0-9]+)?)%$`)

const (
	msgSoftNeedsGrace    = "every evictionSoft signal needs an evictionSoftGracePeriod entry; add one for each signal"
	msgGraceNeedsSoft    = "every evictionSoftGracePeriod signal needs an evictionSoft threshold; add the threshold or remove the grace period"
	msgImageGC           = "imageGCLowThresholdPercent must be lower than imageGCHighThresholdPercent"
	msgSoftGraceDuration = "evictionSoftGracePeriod values must be durations such as 30s or 1m30s (units s, m, h)"
	msgClusterDNS        = "clusterDNS entries must be IP addresses, such as 10.100.0.10"
)

var (
	reservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}
	evictionSignals   = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}
)

// Validate checks the kubelet settings at path as the schema and CEL rules of the type do. A
// NodeClass's aws.kubelet and a Provisioner's kubeletConfiguration are this type, so both are
// checked alike.
func (in *KubeletConfiguration) Validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(in.ClusterDNS) > 3 {
		errs = append(errs, field.TooMany(path.Child("clusterDNS"), len(in.ClusterDNS), 3))
	}
	for i, ip := range in.ClusterDNS {
		// The agent writes these into the node's bootstrap (Bottlerocket's
		// TOML, nodeadm's NodeConfig): anything but an address is refused
		// here, not rendered there.
		if net.ParseIP(ip) == nil {
			errs = append(errs, field.Invalid(path.Child("clusterDNS").Index(i), ip, msgClusterDNS))
		}
	}
	if v := in.MaxPods; v != nil && (*v < 1 || *v > 1000) {
		errs = append(errs, field.Invalid(path.Child("maxPods"), *v, "maxPods must be between 1 and 1000"))
	}
	errs = append(errs, nonNegative(path.Child("podsPerCore"), in.PodsPerCore)...)
	errs = append(errs, nonNegative(path.Child("evictionMaxPodGracePeriod"), in.EvictionMaxPodGracePeriod)...)
	errs = append(errs, validateReserved(path.Child("systemReserved"), "systemReserved", in.SystemReserved)...)
	errs = append(errs, validateReserved(path.Child("kubeReserved"), "kubeReserved", in.KubeReserved)...)
	errs = append(errs, validateEviction(path.Child("evictionHard"), "evictionHard", in.EvictionHard)...)
	errs = append(errs, validateEviction(path.Child("evictionSoft"), "evictionSoft", in.EvictionSoft)...)
	errs = append(errs, in.validateSoftGracePeriods(path)...)
	errs = append(errs, percent(path.Child("imageGCHighThresholdPercent"), in.ImageGCHighThresholdPercent)...)
	errs = append(errs, percent(path.Child("imageGCLowThresholdPercent"), in.ImageGCLowThresholdPercent)...)
	if hi, lo := in.ImageGCHighThresholdPercent, in.ImageGCLowThresholdPercent; hi != nil && lo != nil && *hi <= *lo {
		errs = append(errs, field.Invalid(path.Child("imageGCLowThresholdPercent"), *lo, msgImageGC))
	}
	return errs
}

func (in *KubeletConfiguration) validateSoftGracePeriods(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	grace := path.Child("evictionSoftGracePeriod")
	if len(in.EvictionSoftGracePeriod) > 6 {
		errs = append(errs, field.TooMany(grace, len(in.EvictionSoftGracePeriod), 6))
	}
	for _, k := range slices.Sorted(maps.Keys(in.EvictionSoftGracePeriod)) {
		if !slices.Contains(evictionSignals, k) {
			errs = append(errs, field.Invalid(grace.Key(k), k, "evictionSoftGracePeriod keys must be "+signalList))
		}
		if v := in.EvictionSoftGracePeriod[k]; len(v) > 64 || !apivalidation.DurationRE.MatchString(string(v)) {
			errs = append(errs, field.Invalid(grace.Key(k), string(v), msgSoftGraceDuration))
		}
		if _, ok := in.EvictionSoft[k]; !ok {
			errs = append(errs, field.Invalid(path.Child("evictionSoft"), k, msgGraceNeedsSoft))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.EvictionSoft)) {
		if _, ok := in.EvictionSoftGracePeriod[k]; !ok {
			errs = append(errs, field.Invalid(grace, k, msgSoftNeedsGrace))
		}
	}
	return errs
}

const signalList = "memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"

func nonNegative(path *field.Path, v *int32) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(path, *v, "must not be negative")}
	}
	return nil
}

func percent(path *field.Path, v *int32) field.ErrorList {
	if v != nil && (*v < 0 || *v > 100) {
		return field.ErrorList{field.Invalid(path, *v, "must be a percentage between 0 and 100")}
	}
	return nil
}

func validateReserved(path *field.Path, name string, reserved map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(reserved) > 4 {
		errs = append(errs, field.TooMany(path, len(reserved), 4))
	}
	for _, k := range slices.Sorted(maps.Keys(reserved)) {
		if !slices.Contains(reservedResources, k) {
			errs = append(errs, field.Invalid(path.Key(k), k, name+" keys must be cpu, memory, ephemeral-storage or pid"))
		}
		switch q, ok := nonNegativeQuantity(reserved[k]); {
		case !ok:
			errs = append(errs, field.Invalid(path.Key(k), reserved[k], name+" values must be non-negative quantities such as 100m or 1Gi"))
		case q.Cmp(scheduling.MaxLimit(corev1.ResourceName(k))) > 0:
			errs = append(errs, field.Invalid(path.Key(k), reserved[k], msgTooLarge(scheduling.MaxLimit(corev1.ResourceName(k)))))
		}
	}
	return errs
}

func validateEviction(path *field.Path, name string, thresholds map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(thresholds) > 6 {
		errs = append(errs, field.TooMany(path, len(thresholds), 6))
	}
	for _, k := range slices.Sorted(maps.Keys(thresholds)) {
		if !slices.Contains(evictionSignals, k) {
			errs = append(errs, field.Invalid(path.Key(k), k, name+" keys must be "+signalList))
		}
		v := thresholds[k]
		switch q, ok := nonNegativeQuantity(v); {
		case len(v) <= 64 && evictionPercentRE.MatchString(v):
		case !ok:
			errs = append(errs, field.Invalid(path.Key(k), v, name+" values must be a percentage such as 10% or a quantity such as 100Mi"))
		case q.Cmp(scheduling.MaxLimit(corev1.ResourceMemory)) > 0:
			errs = append(errs, field.Invalid(path.Key(k), v, msgTooLarge(scheduling.MaxLimit(corev1.ResourceMemory))))
		}
	}
	return errs
}

// nonNegativeQuantity parses v as a quantity of at most 64 characters that
// is not negative.
func nonNegativeQuantity(v string) (resource.Quantity, bool) {
	if len(v) > 64 {
		return resource.Quantity{}, false
	}
	q, err := scheduling.ParseQuantity(v)
	return q, err == nil && q.Sign() >= 0
}

// msgTooLarge says that a quantity is above bound, which the engine's
// arithmetic needs (scheduling.MaxLimit: reserved amounts are subtracted
// from a node's capacity, never summed). Not in the CRD's schema: the agent
// refuses such a NodeClass or Provisioner when it reads it.
func msgTooLarge(bound resource.Quantity) string {
	return "must be at most " + bound.String() + " (no machine is that large; larger amounts would overflow Tenon's arithmetic)"
}
