package convert

import (
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestConvertNodeOverlay checks how a Karpenter NodeOverlay's fields map: label keys to
// Tenon's (karpenter.sh/nodepool kept as tenon.dev/nodepool), Gte and Lte kept, price,
// priceAdjustment, capacity and weight as they are, and a Karpenter label without a Tenon
// equivalent reported, not dropped silently, and the reserved capacity type kept.
func TestConvertNodeOverlay(t *testing.T) {
	in := `apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: deal}
spec:
  requirements:
    - {key: karpenter.sh/nodepool, operator: In, values: [general]}
    - {key: karpenter.k8s.aws/instance-memory, operator: Gte, values: ["8192"]}
    - {key: karpenter.k8s.aws/instance-hypervisor-x, operator: Exists}
    - {key: karpenter.sh/capacity-type, operator: In, values: [reserved]}
  price: "0.05"
  capacity: {example.com/fpga: "1"}
  weight: 3
status: {conditions: []}
`
	res, err := Convert([]Input{{Name: "in.yaml", Data: []byte(in)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Objects[0].Value.(*v1.NodeOverlay)
	var keys []string
	for _, r := range o.Spec.Requirements {
		keys = append(keys, r.Key+" "+string(r.Operator))
	}
	if got := strings.Join(keys, ", "); got != "tenon.dev/nodepool In, tenon.dev/instance-memory Gte, tenon.dev/capacity-type In" {
		t.Errorf("requirements %s", got)
	}
	if *o.Spec.Price != "0.05" || *o.Spec.Weight != 3 || o.Spec.Capacity.Name("example.com/fpga", "").Value() != 1 {
		t.Errorf("spec %+v", o.Spec)
	}
	var unmapped []string
	for _, f := range res.Unmapped {
		unmapped = append(unmapped, f.Field)
	}
	if got := strings.Join(unmapped, ", "); got != "spec.requirements[2]" {
		t.Errorf("unmapped %s, want the Karpenter-only label alone", got)
	}

	_, err = Convert([]Input{{Name: "bad.yaml", Data: []byte(strings.Replace(in, `price: "0.05"`, `price: "0.05"
  priceAdjustment: "-10%"`, 1))}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "set price or priceAdjustment, not both") {
		t.Errorf("price with priceAdjustment: %v, want Tenon's validation naming the fix", err)
	}
}
