package apivalidation

import "regexp"

// The expressions below are the ones in the CEL rules and patterns of the markers, character
// for character, so Go and the API server accept the same strings. None uses a backslash, so
// the markers need no escaping.
var (
	qualifiedNameRE       = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
	qualifiedNameLengthRE = regexp.MustCompile(`^([^/]{1,253}/)?[^/]{1,63}$`)
	labelValueRE          = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)
	dnsSubdomainRE        = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	integerValueRE        = regexp.MustCompile(`^[0-9]{1,18}$`)

	// DurationRE is a duration with the units s, m and h, such as 30s or 1h30m.
	DurationRE = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)

	karpenterDomainRE = regexp.MustCompile(`^([^/]+[.])?karpenter[.]sh/`)
	tenonDomainRE     = regexp.MustCompile(`^([^/]+[.])?tenon[.]dev/`)
)

// Messages of the CEL rules both versions have, which Go gives too. Each says what is wrong and
// how to fix it.
const (
	msgKeySyntax       = "key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	msgValueSyntax     = "value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	msgHostname        = "label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it"
	msgKarpenterAWS    = "Karpenter's instance labels are restricted; use the tenon.dev equivalent, such as tenon.dev/instance-family for karpenter.k8s.aws/instance-family"
	msgDomainKarpenter = "label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
	// msgDomainKarpenterReq is a requirement's: karpenter.sh/capacity-type is allowed there.
	msgDomainKarpenterReq = "label domain karpenter.sh is restricted in requirements but for karpenter.sh/capacity-type, an alias of tenon.dev/capacity-type; the pool's name needs no requirement, and other keys need a tenon.dev well-known label or your own domain"
	msgDomainTenon        = "label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"

	msgInValues     = "operator In requires at least one value; add values or use Exists"
	msgNotInValues  = "operator NotIn requires at least one value; add values or use DoesNotExist"
	msgExistsValues = "operators Exists and DoesNotExist take no values; remove values or use In or NotIn"
	msgCapacityType = "capacity types are on-demand, spot and reserved (EC2 capacity reservations the NodeClass selects); fix the value"

	msgStartupTaintRepeat = "a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both"

	msgNodeClassName = "name must be a NodeClass name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"

	msgSelectorTags     = "tag keys and values must not be empty; use '*' to match any value"
	msgTagKeyLength     = "tag keys must be 1 to 128 characters"
	msgTagValueLength   = "tag values must be at most 256 characters"
	msgTagClusterPrefix = "tag keys starting with kubernetes.io/cluster/ are set by the agent; remove the tag"
	msgTagReserved      = "tags tenon.dev/cluster, tenon.dev/nodepool and tenon.dev/nodeclaim are set by the agent; remove the tag"
)
