package v1_test

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1/v1test"
)

// TestNodeOverlayTwins runs every NodeOverlay case through the CRD and the Go validation: both
// accept or both reject at the same field, and every CEL rule has a case.
func TestNodeOverlayTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodeoverlays.yaml", runTwins[v1.NodeOverlay](t, "tenon.dev_nodeoverlays.yaml", v1test.NodeOverlayBase, v1test.NodeOverlayTwins))
}
