package aws

import (
	"maps"
	"reflect"
	"slices"
)

// impliedActions are IAM actions AWS authorizes for the provider's calls
// besides the calls' own actions, with the reason.
var impliedActions = map[string]string{
	"ec2:RunInstances":       "CreateFleet launches its instances through RunInstances, authorized against the caller",
	"iam:PassRole":           "launching with an instance profile passes the node role to EC2, and adding the role to a profile passes it too",
	"iam:TagInstanceProfile": "CreateInstanceProfile with Tags is authorized against TagInstanceProfile as well",
}

// RequiredActions returns every IAM action the provider needs, sorted: one
// per method of the narrow interfaces (the operations it calls), plus the
// actions AWS checks on its behalf (RunInstances for CreateFleet, PassRole
// for the instance profile). docs/guides/aws-iam.md lists exactly these.
func RequiredActions() []string {
	set := map[string]bool{}
	add := func(service string, iface reflect.Type) {
		for i := range iface.NumMethod() {
			set[service+":"+iface.Method(i).Name] = true
		}
	}
	add("ec2", reflect.TypeFor[EC2API]())
	add("ssm", reflect.TypeFor[SSMAPI]())
	add("pricing", reflect.TypeFor[PricingAPI]())
	add("sqs", reflect.TypeFor[SQSAPI]())
	add("iam", reflect.TypeFor[IAMAPI]())
	for action := range impliedActions {
		set[action] = true
	}
	return slices.Sorted(maps.Keys(set))
}
