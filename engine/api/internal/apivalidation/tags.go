package apivalidation

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	maxTags         = 40
	maxTagKey       = 128
	maxTagValue     = 256
	maxSelectorTags = 20
)

// agentTags are the tags the agent puts on every instance; users cannot set them.
var agentTags = []string{"tenon.dev/cluster", "tenon.dev/nodepool", "tenon.dev/nodeclaim"}

// Tags checks the AWS tags put on instances, volumes and launch templates: lengths, and none of
// the tags the agent sets.
func Tags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > maxTags {
		errs = append(errs, field.TooMany(path, len(tags), maxTags))
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		p := path.Key(k)
		if k == "" || len(k) > maxTagKey {
			errs = append(errs, field.Invalid(p, k, msgTagKeyLength))
		}
		if len(tags[k]) > maxTagValue {
			errs = append(errs, field.Invalid(p, tags[k], msgTagValueLength))
		}
		if strings.HasPrefix(k, "kubernetes.io/cluster/") {
			errs = append(errs, field.Invalid(p, k, msgTagClusterPrefix))
		}
		if slices.Contains(agentTags, k) {
			errs = append(errs, field.Invalid(p, k, msgTagReserved))
		}
	}
	return errs
}

// SelectorTags checks the tags a selector matches: at most 20, no key or value empty.
func SelectorTags(path *field.Path, tags map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > maxSelectorTags {
		errs = append(errs, field.TooMany(path, len(tags), maxSelectorTags))
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || tags[k] == "" {
			errs = append(errs, field.Invalid(path.Key(k), tags[k], msgSelectorTags))
		}
	}
	return errs
}
