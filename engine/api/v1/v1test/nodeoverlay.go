package v1test

import "fmt"

// NodeOverlayBase is the valid NodeOverlay every case of NodeOverlayTwins patches.
const NodeOverlayBase = `
apiVersion: tenon.dev/v1
kind: NodeOverlay
metadata: {name: discount}
spec:
  requirements:
  - {key: tenon.dev/instance-family, operator: In, values: [m5]}
  priceAdjustment: "-20%"
`

const overlayReq = "spec.requirements[0]"

// NodeOverlayTwins are the NodeOverlay validation cases: each is valid, or rejected by the Go
// validation and the CRD at Path (by a CEL rule of ours when CEL is set, with Fix in its message).
var NodeOverlayTwins = []Twin{
	{Name: "minimal"},
	{Name: "every field", Patch: `
spec:
  requirements:
  - {key: tenon.dev/nodepool, operator: In, values: [general]}
  - {key: tenon.dev/capacity-type, operator: In, values: [spot]}
  - {key: tenon.dev/instance-cpu, operator: Gte, values: ["4"]}
  - {key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [t3]}
  priceAdjustment: null
  price: "0.042"
  capacity: {hugepages-2Mi: 1Gi, example.com/fpga: "1"}
  weight: 10000
status:
  nodePools: [{name: general, instanceTypes: 12}]
  conditions:
  - {type: Ready, status: "True", reason: Applied, message: "", lastTransitionTime: "2026-01-02T03:00:00Z"}
`},
	{Name: "no requirements selects every type", Patch: `{spec: {requirements: null}}`},
	{Name: "capacity alone", Patch: `{spec: {priceAdjustment: null, capacity: {hugepages-1Gi: 2Gi}}}`},
	{Name: "absolute adjustments", Patch: `{spec: {priceAdjustment: "+0.005"}}`},
	{Name: "minus 100 percent", Patch: `{spec: {priceAdjustment: "-100%"}}`},
	{Name: "plus 250 percent", Patch: `{spec: {priceAdjustment: "+250%"}}`},
	{Name: "fractional percent", Patch: `{spec: {priceAdjustment: "-12.5%"}}`},

	// What the overlay changes.
	{Name: "price and priceAdjustment", Patch: `{spec: {price: "0.1"}}`,
		Path: "spec", Fix: "set price or priceAdjustment, not both", CEL: true},
	{Name: "nothing to change", Patch: `{spec: {priceAdjustment: null}}`,
		Path: "spec", Fix: "an overlay changes nothing without price, priceAdjustment or capacity; set one of them", CEL: true},
	{Name: "negative price", Patch: `{spec: {priceAdjustment: null, price: "-1"}}`,
		Path: "spec.price", Fix: "price must be a non-negative decimal number of USD per hour", CEL: true},
	{Name: "price with a unit", Patch: `{spec: {priceAdjustment: null, price: "$0.10"}}`,
		Path: "spec.price", Fix: "price must be a non-negative decimal number", CEL: true},
	{Name: "unsigned adjustment", Patch: `{spec: {priceAdjustment: "10%"}}`,
		Path: "spec.priceAdjustment", Fix: "priceAdjustment must be a signed amount such as -0.01", CEL: true},
	{Name: "discount beyond 100 percent", Patch: `{spec: {priceAdjustment: "-101%"}}`,
		Path: "spec.priceAdjustment", Fix: "at most -100%", CEL: true},
	{Name: "adjustment too long", Patch: `{spec: {priceAdjustment: "-0.000000000000000000000000000000001"}}`,
		Path: "spec.priceAdjustment", Fix: "may not be more than 32 bytes"},
	{Name: "capacity cpu", Patch: `{spec: {capacity: {cpu: "2"}}}`,
		Path: "spec.capacity", Fix: "capacity adds extended resources only", CEL: true},
	{Name: "capacity in the kubernetes.io domain", Patch: `{spec: {capacity: {example.kubernetes.io/thing: "1"}}}`,
		Path: "spec.capacity", Fix: "capacity keys must be hugepages-<size> or an extended resource in your own domain", CEL: true},
	{Name: "capacity zero", Patch: `{spec: {capacity: {example.com/fpga: "0"}}}`,
		Path: "spec.capacity[example.com/fpga]", Fix: "capacity must be a positive quantity", CEL: true},
	{Name: "capacity negative", Patch: `{spec: {capacity: {hugepages-2Mi: "-1Gi"}}}`,
		Path: "spec.capacity[hugepages-2Mi]", Fix: "capacity must be a positive quantity", CEL: true},
	{Name: "33 capacity resources", Patch: manyCapacity(33),
		Path: "spec.capacity", Fix: "must have at most 32 items"},
	{Name: "weight 0", Patch: `{spec: {weight: 0}}`,
		Path: "spec.weight", Fix: "weight must be between 1 and 10000"},
	{Name: "weight 10001", Patch: `{spec: {weight: 10001}}`,
		Path: "spec.weight", Fix: "weight must be between 1 and 10000"},

	// Requirements: the shared rules, and minValues.
	{Name: "minValues", Patch: `{spec: {requirements: [{key: team, operator: In, values: [a], minValues: 1}]}}`,
		Path: overlayReq + ".minValues", Fix: "minValues has no meaning in an overlay's requirements; remove it", CEL: true},
	{Name: "minValues above the number of values", Patch: `{spec: {requirements: [{key: team, operator: In, values: [a], minValues: 3}]}}`,
		Path: overlayReq + ".minValues", Fix: "minValues is more than the number of values", CEL: true},
	{Name: "reserved offerings", Patch: `{spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [reserved]}]}}`},
	{Name: "unknown capacity type", Patch: `{spec: {requirements: [{key: tenon.dev/capacity-type, operator: In, values: [Spot]}]}}`,
		Path: overlayReq + ".values", Fix: "capacity types are on-demand, spot and reserved", CEL: true},
	{Name: "In without values", Patch: `{spec: {requirements: [{key: team, operator: In}]}}`,
		Path: overlayReq + ".values", Fix: "operator In requires at least one value; add values or use Exists", CEL: true},
	{Name: "NotIn without values", Patch: `{spec: {requirements: [{key: team, operator: NotIn}]}}`,
		Path: overlayReq + ".values", Fix: "operator NotIn requires at least one value; add values or use DoesNotExist", CEL: true},
	{Name: "Exists with values", Patch: `{spec: {requirements: [{key: team, operator: Exists, values: [a]}]}}`,
		Path: overlayReq + ".values", Fix: "operators Exists and DoesNotExist take no values", CEL: true},
	{Name: "Gt with a word", Patch: `{spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: [four]}]}}`,
		Path: overlayReq + ".values", Fix: "set values to a single number", CEL: true},
	{Name: "key not a label key", Patch: `{spec: {requirements: [{key: "team name", operator: Exists}]}}`,
		Path: overlayReq + ".key", Fix: "key must be a label key such as example.com/team", CEL: true},
	{Name: "kubernetes.io/hostname", Patch: `{spec: {requirements: [{key: kubernetes.io/hostname, operator: Exists}]}}`,
		Path: overlayReq + ".key", Fix: "label kubernetes.io/hostname is restricted", CEL: true},
	{Name: "karpenter.sh/nodepool", Patch: `{spec: {requirements: [{key: karpenter.sh/nodepool, operator: In, values: [general]}]}}`,
		Path: overlayReq + ".key", Fix: "label domain karpenter.sh is restricted in requirements", CEL: true},
	{Name: "tenon.dev beyond the well-known labels", Patch: `{spec: {requirements: [{key: tenon.dev/team, operator: Exists}]}}`,
		Path: overlayReq + ".key", Fix: "label domain tenon.dev is restricted", CEL: true},
	{Name: "101 requirements", Patch: manyOverlayRequirements(101),
		Path: "spec.requirements", Fix: "must have at most 100 items"},
}

func manyCapacity(n int) string {
	s := "spec:\n  capacity:\n"
	for i := range n {
		s += "    example.com/r" + itoa(i) + ": \"1\"\n"
	}
	return s
}

func manyOverlayRequirements(n int) string {
	s := "spec:\n  requirements:\n"
	for i := range n {
		s += "  - {key: example.com/k" + itoa(i) + ", operator: Exists}\n"
	}
	return s
}

func itoa(i int) string { return fmt.Sprint(i) }
