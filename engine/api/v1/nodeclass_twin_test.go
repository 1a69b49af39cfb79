package v1_test

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
)

func TestNodeClassTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodeclasses.yaml", runTwins[v1.NodeClass](t, "tenon.dev_nodeclasses.yaml", v1test.NodeClassBase, v1test.NodeClassTwins))
}
