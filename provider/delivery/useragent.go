package delivery

import (
	"runtime"

	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

// UserAgent is how the provider introduces itself to API servers, for their audit logs and
// metrics: terraform-provider-tenon/v1.2.3 (linux/amd64), with the version the binary was
// stamped with (internal/version).
func UserAgent() string {
	return "terraform-provider-tenon/" + version.Version() + " (" + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
