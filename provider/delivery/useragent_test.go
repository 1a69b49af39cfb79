package delivery

import (
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

func TestUserAgentCarriesTheVersion(t *testing.T) {
	if ua := UserAgent(); !strings.HasPrefix(ua, "terraform-provider-tenon/"+version.Version()+" (") {
		t.Errorf("UserAgent() = %q; want terraform-provider-tenon/%s (os/arch)", ua, version.Version())
	}
}
