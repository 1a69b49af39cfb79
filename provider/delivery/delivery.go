// Package delivery is where the Terraform resources send the tenon.dev objects they manage: a
// Target. Resources build a typed API object (v1.NodePool, v1alpha5.Provisioner, ...), hand it
// to the provider's Target and never learn whether it went to an API server or into a Git
// repository.
//
// Two targets are planned: Kubernetes (this package, server-side apply with field manager
// tenon-terraform) and Git (the GitOps issue: one YAML file per object plus a
// kustomization.yaml, committed with go-git through engine/gitops).
//
// # For the engineer adding the git target
//
// Implement Target in a new file of this package (or a sibling package) and let the provider's
// Configure choose it when the `git {}` block is set; no resource changes. The contract, which
// the kubernetes target and the resources' tests rely on:
//
//   - Apply(ctx, obj) writes obj as the whole desired state of the object named by obj's kind
//     and name: fields obj leaves empty are removed if the target set them before. On return
//     obj holds what the target now stores, status included when the target observes one. A
//     git target has no API server to default fields, so it should run the object's
//     SetDefaults before writing (the CRDs would default the same fields when ArgoCD applies
//     them), and leave status empty.
//   - Get(ctx, obj) fills obj (whose apiVersion, kind and name are set) with what the target
//     stores, or returns an error wrapping ErrNotFound. Resources turn ErrNotFound into "gone
//     from state" (Read) and into nothing at all (Delete).
//   - Delete(ctx, obj) removes the object and returns once it is gone; an object that is
//     already gone is not an error.
//   - Describe names the target in diagnostics ("Kubernetes API server https://...",
//     "git repository ...").
//
// Targets are used concurrently by Terraform's parallel resource operations, so they must be
// safe for concurrent use. Errors name the object (`kind "name"`) and wrap the cause.
package delivery

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FieldManager is the server-side-apply field manager of every object the provider writes.
const FieldManager = "tenon-terraform"

// ErrNotFound is returned (wrapped) by Get when the target holds no such object.
var ErrNotFound = errors.New("object not found")

// Object is a typed API object with its kind set in TypeMeta, such as a *v1.NodePool.
type Object interface {
	runtime.Object
	metav1.Object
}

// Target stores and reads back the objects Terraform manages. See the package documentation
// for the contract.
type Target interface {
	// Apply makes obj the desired state of its object and fills obj with the stored result.
	Apply(ctx context.Context, obj Object) error
	// Get fills obj with the stored object of obj's kind and name, or returns ErrNotFound.
	Get(ctx context.Context, obj Object) error
	// Delete removes the object of obj's kind and name and waits until it is gone.
	Delete(ctx context.Context, obj Object) error
	// Describe names the target for diagnostics.
	Describe() string
}

// Lister is implemented by targets that can list live objects (the Kubernetes target; a Git
// repository has no nodes). tenon_agent uses it to refuse removing the CRDs while nodes the
// agent launched still exist.
type Lister interface {
	// ListNames returns the sorted names of the objects of a kind matching a label selector.
	ListNames(ctx context.Context, gvk schema.GroupVersionKind, labelSelector string) ([]string, error)
}

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
