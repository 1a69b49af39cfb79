package gitops

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// validatable is a tenon.dev object with the Go twin of its CRD's validation.
type validatable interface {
	Validate() field.ErrorList
}

// policyKinds are the kinds Git may hold. NodeClaims are the agent's own records of nodes it
// launched, not policy, so Git may not hold them.
var policyKinds = &manifest.Scheme{
	Kinds: []manifest.Kind{
		manifest.KindOf[v1.NodePool](v1.SchemeGroupVersion.String(), v1.NodePoolKind, false),
		manifest.KindOf[v1.NodeClass](v1.SchemeGroupVersion.String(), v1.NodeClassKind, false),
		manifest.KindOf[v1alpha5.Provisioner](v1alpha5.SchemeGroupVersion.String(), v1alpha5.ProvisionerKind, false),
		manifest.KindOf[v1.NodeOverlay](v1.SchemeGroupVersion.String(), v1.NodeOverlayKind, false),
	},
	Source:    "from this path",
	Elsewhere: "move it out of the path Tenon reads, or apply it with another tool",
	Refused: []manifest.Refusal{{
		Group: v1.Group, Kind: v1.NodeClaimKind,
		Why: "NodeClaims are the agent's records of the nodes it launched, not policy; remove this document",
	}},
}

// Object is one tenon.dev object read from Git, ready to apply: status and server-set metadata
// (resourceVersion, uid, managedFields, ...) are removed.
type Object struct {
	// File is the path of the file in the repository.
	File string
	// Object is the object as Git holds it.
	Object *unstructured.Unstructured
}

// Ref names a cluster-scoped tenon.dev object.
type Ref struct {
	Kind string
	Name string
}

func (r Ref) String() string { return r.Kind + " " + r.Name }

// Ref names the object.
func (o Object) Ref() Ref { return Ref{Kind: o.Object.GetKind(), Name: o.Object.GetName()} }

// CommitError rejects a whole commit: nothing from it may be used.
type CommitError struct {
	Commit string
	Errs   []error
}

func (e *CommitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "commit %s rejected as a whole (nothing from it is used): ", short(e.Commit))
	if len(e.Errs) == 1 {
		b.WriteString(e.Errs[0].Error())
		return b.String()
	}
	fmt.Fprintf(&b, "%d problems:", len(e.Errs))
	for _, err := range e.Errs {
		b.WriteString("\n  ")
		b.WriteString(err.Error())
	}
	return b.String()
}

func (e *CommitError) Unwrap() []error { return e.Errs }

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// decoded is one document of a file and the object it holds.
type decoded struct {
	doc *manifest.Document
	obj Object
}

// decodeFile splits a file into documents and decodes and validates each; it returns every
// problem it finds, not just the first.
func decodeFile(file string, data []byte) ([]decoded, []error) {
	docs, err := manifest.Split(manifest.File{Name: file, Data: data})
	if err != nil {
		return nil, []error{err}
	}
	var out []decoded
	var errs []error
	for _, d := range docs {
		u, derrs := decodeDocument(d)
		if len(derrs) > 0 {
			errs = append(errs, derrs...)
			continue
		}
		out = append(out, decoded{doc: d, obj: Object{File: file, Object: u}})
	}
	return out, errs
}

// decodeDocument checks that d is an accepted tenon.dev kind with known fields only and that it
// passes its validation, and returns it ready to apply.
func decodeDocument(d *manifest.Document) (*unstructured.Unstructured, []error) {
	obj, errs := policyKinds.Decode(d)
	if obj == nil {
		return nil, errs
	}
	errs = append(errs, d.FieldErrors(obj.(validatable).Validate())...)
	if len(errs) > 0 {
		return nil, errs
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(d.Raw, &u.Object); err != nil {
		return nil, []error{d.Errorf("", "%v", err)}
	}
	return clean(u), nil
}

// clean drops what the API server owns, so an object exported with kubectl get -o yaml applies.
func clean(u *unstructured.Unstructured) *unstructured.Unstructured {
	delete(u.Object, "status")
	meta, ok := u.Object["metadata"].(map[string]any)
	if !ok {
		return u
	}
	for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		delete(meta, f)
	}
	return u
}
