package apivalidation

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ObjectName checks metadata.name (or generateName) as the API server does for cluster-scoped
// objects.
func ObjectName(name, generateName string) field.ErrorList {
	path := field.NewPath("metadata", "name")
	if name == "" {
		if generateName == "" {
			return field.ErrorList{field.Required(path, "set metadata.name to a lower-case DNS name such as default")}
		}
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// NodeClassName checks the name of a NodeClass a pool refers to; required is the message for
// an empty one.
func NodeClassName(path *field.Path, name, required string) field.ErrorList {
	switch {
	case name == "":
		return field.ErrorList{field.Required(path, required)}
	case len(name) > maxNodeClassNm:
		return field.ErrorList{field.TooLong(path, name, maxNodeClassNm)}
	case !dnsSubdomainRE.MatchString(name):
		return field.ErrorList{field.Invalid(path, name, msgNodeClassName)}
	}
	return nil
}
