package kube

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
)

// InstallCRDs server-side applies every CRD of engine/api/crds and waits until the API server
// serves each. Applying again is harmless, so a test may call it after another removed them.
func InstallCRDs(ctx context.Context, c client.Client) error {
	var objs []*unstructured.Unstructured
	for _, data := range crds.All() {
		us, err := readYAML("engine/api/crds", data)
		if err != nil {
			return fmt.Errorf("reading the embedded CRDs: %w", err)
		}
		objs = append(objs, us...)
	}
	return Apply(ctx, c, objs)
}
