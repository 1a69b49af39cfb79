package v1

import (
	"regexp"
	"slices"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/internal/apivalidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

var (
	budgetNodesRE    = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	budgetDurationRE = regexp.MustCompile(`^([0-9]+h([0-9]+m)?|[0-9]+m)$`)
	// cronScheduleRE is standard five-field cron (names and ranges checked per field) or a
	// descriptor. It is long because CEL cannot parse cron; the Go side also parses the
	// schedule with the parser the agent uses, which catches the one thing a regular expression
	// cannot (a range that runs backwards, such as 5-1).
	cronScheduleRE = regexp.MustCompile(`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly)|([*?]|([0-5]?[0-9])(-([0-5]?[0-9]))?)(/[1-9][0-9]*)?(,([*?]|([0-5]?[0-9])(-([0-5]?[0-9]))?)(/[1-9][0-9]*)?)* +([*?]|([01]?[0-9]|2[0-3])(-([01]?[0-9]|2[0-3]))?)(/[1-9][0-9]*)?(,([*?]|([01]?[0-9]|2[0-3])(-([01]?[0-9]|2[0-3]))?)(/[1-9][0-9]*)?)* +([*?]|(0?[1-9]|[12][0-9]|3[01])(-(0?[1-9]|[12][0-9]|3[01]))?)(/[1-9][0-9]*)?(,([*?]|(0?[1-9]|[12][0-9]|3[01])(-(0?[1-9]|[12][0-9]|3[01]))?)(/[1-9][0-9]*)?)* +([*?]|(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?(,([*?]|(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))(-(0?[1-9]|1[0-2]|(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))?)(/[1-9][0-9]*)?)* +([*?]|(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?(,([*?]|(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat))(-(0?[0-6]|(?i:sun|mon|tue|wed|thu|fri|sat)))?)(/[1-9][0-9]*)?)*)$`)
)

const (
	msgWeight              = "weight must be between 1 and 100; pools with higher weights are tried first"
	msgConsolidateAfter    = "consolidateAfter must be a duration such as 30s or 5m (units s, m, h), or Never"
	msgConsolidateAfterReq = "set consolidateAfter to a duration such as 30s, 0s to consolidate at once, or Never to turn consolidation off"
	msgBudgetNodes         = "nodes must be a count such as 5 or a percentage from 0% to 100% such as 10%"
	msgBudgetSchedule      = "schedule must be cron syntax with 5 fields (minute hour day-of-month month day-of-week) such as '0 9 * * mon-fri', or @hourly, @daily, @weekly, @monthly, @yearly, @annually or @midnight"
	msgBudgetDuration      = "duration must be hours and minutes such as 8h, 90m or 1h30m"
	msgScheduleNeedsDur    = "schedule needs a duration; add duration (how long each window lasts, such as 8h) or remove schedule"
	msgDurationNeedsSched  = "duration needs a schedule; add a cron schedule such as '0 9 * * mon-fri' or remove duration"
)

var (
	consolidationPolicies = []string{string(ConsolidationPolicyWhenEmpty), string(ConsolidationPolicyWhenEmptyOrUnderutilized), string(ConsolidationPolicyBalanced)}
	disruptionReasons     = []string{string(DisruptionReasonEmpty), string(DisruptionReasonUnderutilized), string(DisruptionReasonDrifted), string(DisruptionReasonUnhealthy)}
)

// Validate checks the NodePool as the API server's schema and CEL rules do, returning errors
// with the paths of the offending fields. Fields left empty that have defaults are accepted, so
// it can run before or after SetDefaults.
func (in *NodePool) Validate() field.ErrorList {
	errs := apivalidation.ObjectName(in.Name, in.GenerateName)
	return append(errs, in.Spec.validate(field.NewPath("spec"))...)
}

// ValidateUpdate checks an update from old: everything Validate checks, plus the fields that
// cannot change (nodeClassRef group and kind).
func (in *NodePool) ValidateUpdate(old *NodePool) field.ErrorList {
	errs := in.Validate()
	errs = append(errs, validateStaticUpdate(field.NewPath("spec"), &in.Spec, &old.Spec)...)
	path := field.NewPath("spec", "template", "spec", "nodeClassRef")
	return append(errs, validateNodeClassRefUpdate(path, in.Spec.Template.Spec.NodeClassRef, old.Spec.Template.Spec.NodeClassRef)...)
}

func (in *NodePoolSpec) validate(path *field.Path) field.ErrorList {
	errs := in.Template.validate(path.Child("template"))
	if in.Disruption != nil {
		errs = append(errs, in.Disruption.validate(path.Child("disruption"))...)
	}
	if in.Weight != nil && (*in.Weight < 1 || *in.Weight > 100) {
		errs = append(errs, field.Invalid(path.Child("weight"), *in.Weight, msgWeight))
	}
	errs = append(errs, in.validateStatic(path)...)
	errs = append(errs, in.validateBuffer(path)...)
	// Not in the CRD's schema: the agent refuses such a pool when it reads it.
	return append(errs, scheduling.ValidateLimits(path.Child("limits"), in.Limits)...)
}

func (in *NodeClaimTemplate) validate(path *field.Path) field.ErrorList {
	meta := path.Child("metadata")
	errs := ValidateLabels(meta.Child("labels"), in.Labels)
	errs = append(errs, apivalidation.Annotations(meta.Child("annotations"), in.Annotations)...)
	return append(errs, in.Spec.validate(path.Child("spec"))...)
}

func (in *NodeClaimTemplateSpec) validate(path *field.Path) field.ErrorList {
	reqPath := path.Child("requirements")
	errs := ValidateRequirements(reqPath, in.Requirements)
	errs = append(errs, apivalidation.ForbidRequirementKey(reqPath, in.Requirements, LabelNodePool, msgNodePoolReq)...)
	errs = append(errs, apivalidation.NodeTaints(path, in.Taints, in.StartupTaints)...)
	errs = append(errs, validateNodeClassRef(path.Child("nodeClassRef"), in.NodeClassRef)...)
	errs = append(errs, validateNillableDuration(path.Child("expireAfter"), in.ExpireAfter, msgExpireAfter)...)
	return append(errs, validateDuration(path.Child("terminationGracePeriod"), in.TerminationGracePeriod, apivalidation.DurationRE, msgTerminationGracePeriod)...)
}

func (in *Disruption) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p := in.ConsolidationPolicy; p != "" && !slices.Contains(consolidationPolicies, string(p)) {
		errs = append(errs, field.NotSupported(path.Child("consolidationPolicy"), p, consolidationPolicies))
	}
	if in.ConsolidateAfter == "" {
		errs = append(errs, field.Required(path.Child("consolidateAfter"), msgConsolidateAfterReq))
	}
	errs = append(errs, validateNillableDuration(path.Child("consolidateAfter"), in.ConsolidateAfter, msgConsolidateAfter)...)
	budgets := path.Child("budgets")
	if len(in.Budgets) > 50 {
		errs = append(errs, field.TooMany(budgets, len(in.Budgets), 50))
	}
	for i := range in.Budgets {
		errs = append(errs, in.Budgets[i].validate(budgets.Index(i))...)
	}
	errs = append(errs, in.validateKarpenterAnnotations(path)...)
	errs = append(errs, in.Repair.validate(path.Child("repair"))...)
	return append(errs, in.validateSavings(path)...)
}

func (in *Budget) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case in.Nodes == "":
		// defaulted to 10%
	case len(in.Nodes) > 16:
		errs = append(errs, field.TooLong(path.Child("nodes"), in.Nodes, 16))
	case !budgetNodesRE.MatchString(in.Nodes):
		errs = append(errs, field.Invalid(path.Child("nodes"), in.Nodes, msgBudgetNodes))
	}
	if in.Schedule != nil {
		errs = append(errs, validateSchedule(path.Child("schedule"), *in.Schedule)...)
	}
	errs = append(errs, validateDuration(path.Child("duration"), in.Duration, budgetDurationRE, msgBudgetDuration)...)
	if in.Schedule != nil && in.Duration == nil {
		errs = append(errs, field.Required(path.Child("duration"), msgScheduleNeedsDur))
	}
	if in.Duration != nil && in.Schedule == nil {
		errs = append(errs, field.Required(path.Child("schedule"), msgDurationNeedsSched))
	}
	if len(in.Reasons) > len(disruptionReasons) {
		errs = append(errs, field.TooMany(path.Child("reasons"), len(in.Reasons), len(disruptionReasons)))
	}
	for j, r := range in.Reasons {
		if !slices.Contains(disruptionReasons, string(r)) {
			errs = append(errs, field.NotSupported(path.Child("reasons").Index(j), r, disruptionReasons))
		}
	}
	return errs
}

func validateSchedule(path *field.Path, schedule string) field.ErrorList {
	if len(schedule) > 256 {
		return field.ErrorList{field.TooLong(path, schedule, 256)}
	}
	if !cronScheduleRE.MatchString(schedule) {
		return field.ErrorList{field.Invalid(path, schedule, msgBudgetSchedule)}
	}
	if _, err := cron.ParseStandard(schedule); err != nil {
		return field.ErrorList{field.Invalid(path, schedule, msgBudgetSchedule+" ("+err.Error()+")")}
	}
	return nil
}
