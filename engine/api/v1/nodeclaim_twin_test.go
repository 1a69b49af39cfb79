package v1_test

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
)

func TestNodeClaimTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodeclaims.yaml", runTwins[v1.NodeClaim](t, "tenon.dev_nodeclaims.yaml", v1test.NodeClaimBase, v1test.NodeClaimTwins))
}
