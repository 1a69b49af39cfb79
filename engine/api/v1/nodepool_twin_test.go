package v1_test

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
)

func TestNodePoolTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodepools.yaml", runTwins[v1.NodePool](t, "tenon.dev_nodepools.yaml", v1test.NodePoolBase, v1test.NodePoolTwins))
}
