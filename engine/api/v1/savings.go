package v1

import (
	"fmt"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The consolidation savings thresholds a pool gets when its disruption block leaves them out
// (Disruption.MinSavingsPerHour, MinSavingsPercent, MinSavingsPerPod).
const (
	DefaultMinSavingsPerHour = 0.01
	DefaultMinSavingsPercent = 10
	DefaultMinSavingsPerPod  = 0.003
)

// usdRE is an amount of USD per hour as the CRD accepts it: up to six digits, optionally a
// point and up to six decimals. No sign, so never negative.
var usdRE = regexp.MustCompile(`^[0-9]{1,6}([.][0-9]{1,6})?$`)

const (
	msgMinSavingsPerHour = "minSavingsPerHour must be a decimal amount in USD per hour, 0 or more, such as 0.01 or 0.5 (up to 6 decimals)"
	msgMinSavingsPerPod  = "minSavingsPerPod must be a decimal amount in USD per hour, 0 or more, such as 0.003 (up to 6 decimals)"
	msgMinSavingsPercent = "minSavingsPercent must be a percentage from 0 to 100, such as 10"
)

// ParseUSDPerHour parses an amount in USD per hour as written in minSavingsPerHour or
// minSavingsPerPod, such as "0.01".
func ParseUSDPerHour(s string) (float64, error) {
	if !usdRE.MatchString(s) {
		return 0, fmt.Errorf("%q is not a decimal amount in USD per hour, 0 or more, such as 0.01 (up to 6 decimals)", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("parsing %q: %w", s, err)
	}
	return v, nil
}

// validateSavings checks the consolidation savings thresholds of a disruption block.
func (in *Disruption) validateSavings(path *field.Path) field.ErrorList {
	return ValidateMinSavings(path, in.MinSavingsPerHour, in.MinSavingsPercent, in.MinSavingsPerPod)
}

// ValidateMinSavings checks consolidation savings thresholds (minSavingsPerHour,
// minSavingsPercent, minSavingsPerPod, children of path) as the CRDs do; nil is absent.
func ValidateMinSavings(path *field.Path, perHour *string, percent *int32, perPod *string) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		name, msg string
		v         *string
	}{{"minSavingsPerHour", msgMinSavingsPerHour, perHour}, {"minSavingsPerPod", msgMinSavingsPerPod, perPod}} {
		switch {
		case f.v == nil:
		case len(*f.v) > 16:
			errs = append(errs, field.TooLong(path.Child(f.name), *f.v, 16))
		default:
			if _, err := ParseUSDPerHour(*f.v); err != nil {
				errs = append(errs, field.Invalid(path.Child(f.name), *f.v, f.msg))
			}
		}
	}
	if percent != nil && (*percent < 0 || *percent > 100) {
		errs = append(errs, field.Invalid(path.Child("minSavingsPercent"), *percent, msgMinSavingsPercent))
	}
	return errs
}
