package policysync

import (
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
)

// TestURLWithCredentialsRefused: the Syncer writes its URL into the status
// ConfigMap, its events and logs; a URL holding credentials is refused.
func TestURLWithCredentialsRefused(t *testing.T) {
	_, err := Options{Git: gitops.Options{URL: "https://user:s3cret@git.example.com/policy.git"}, Namespace: "ns"}.withDefaults()
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("withDefaults = %v, want the URL refused without its secret", err)
	}
}
