package gitops

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// validatable is a tenon.dev object with the Go twin of its CRD's validation.
type validatable interface {
	Validate() field.ErrorList
}

// accepted are the kinds Git may hold, by group, version and kind. NodeClaims are the agent's
// own records of nodes it launched, not policy, so Git may not hold them.
var accepted = map[schema.GroupVersionKind]func() validatable{
	v1.SchemeGroupVersion.WithKind(v1.NodePoolKind):                func() validatable { return &v1.NodePool{} },
	v1.SchemeGroupVersion.WithKind(v1.NodeClassKind):               func() validatable { return &v1.NodeClass{} },
	v1alpha5.SchemeGroupVersion.WithKind(v1alpha5.ProvisionerKind): func() validatable { return &v1alpha5.Provisioner{} },
}

// acceptedKinds lists the accepted kinds for messages: "NodeClass (tenon.dev/v1), ...".
func acceptedKinds() string {
	var names []string
	for gvk := range accepted {
		names = append(names, fmt.Sprintf("%s (%s)", gvk.Kind, gvk.GroupVersion()))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
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

// ObjectError is one problem with one document of one file. Its message reads
// `file: Kind name: field: detail`.
type ObjectError struct {
	File   string
	Object string
	Field  string
	Detail string
}

func (e *ObjectError) Error() string {
	parts := []string{e.File}
	if e.Object != "" {
		parts = append(parts, e.Object)
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	return strings.Join(append(parts, e.Detail), ": ")
}

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

// document is one YAML or JSON document of a file.
type document struct {
	file  string
	index int
	raw   []byte
	head  struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
}

func (d *document) describe() string {
	switch {
	case d.head.Kind == "":
		return fmt.Sprintf("document %d", d.index+1)
	case d.head.Metadata.Name == "":
		return d.head.Kind + fmt.Sprintf(" (document %d)", d.index+1)
	default:
		return d.head.Kind + " " + d.head.Metadata.Name
	}
}

func (d *document) errorf(fieldPath, format string, args ...any) *ObjectError {
	return &ObjectError{File: d.file, Object: d.describe(), Field: fieldPath, Detail: fmt.Sprintf(format, args...)}
}

// decodeFile splits a file into documents and decodes and validates each; it returns every
// problem it finds, not just the first.
func decodeFile(file string, data []byte) ([]Object, []error) {
	docs, err := splitDocuments(file, data)
	if err != nil {
		return nil, []error{err}
	}
	var objs []Object
	var errs []error
	for _, d := range docs {
		u, derrs := decodeDocument(d)
		if len(derrs) > 0 {
			errs = append(errs, derrs...)
			continue
		}
		objs = append(objs, Object{File: file, Object: u})
	}
	return objs, errs
}

// splitDocuments splits YAML documents (separated by ---) or one JSON document; a v1 List
// stands for its items. Empty documents are skipped.
func splitDocuments(file string, data []byte) ([]*document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []*document
	for i := 0; ; i++ {
		chunk, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &ObjectError{File: file, Detail: fmt.Sprintf("reading YAML: %v", err)}
		}
		raw, err := yaml.YAMLToJSONStrict(chunk)
		if err != nil {
			return nil, &ObjectError{File: file, Object: fmt.Sprintf("document %d", i+1), Detail: fmt.Sprintf("invalid YAML: %v", err)}
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue
		}
		d := &document{file: file, index: len(docs), raw: raw}
		if err := json.Unmarshal(raw, &d.head); err != nil {
			return nil, d.errorf("", "a document must be an object with apiVersion, kind and metadata: %v", err)
		}
		if d.head.APIVersion == "v1" && d.head.Kind == "List" {
			var list struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, d.errorf("items", "%v", err)
			}
			for _, item := range list.Items {
				it := &document{file: file, index: len(docs), raw: item}
				if err := json.Unmarshal(item, &it.head); err != nil {
					return nil, it.errorf("", "a list item must be an object with apiVersion, kind and metadata: %v", err)
				}
				docs = append(docs, it)
			}
			continue
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// decodeDocument checks that d is an accepted tenon.dev kind with known fields only and that it
// passes its validation, and returns it ready to apply.
func decodeDocument(d *document) (*unstructured.Unstructured, []error) {
	switch {
	case d.head.APIVersion == "":
		return nil, []error{d.errorf("apiVersion", "required; tenon.dev objects have apiVersion tenon.dev/v1 (or tenon.dev/v1alpha5 for Provisioner)")}
	case d.head.Kind == "":
		return nil, []error{d.errorf("kind", "required; one of %s", acceptedKinds())}
	}
	gv, err := schema.ParseGroupVersion(d.head.APIVersion)
	if err != nil {
		return nil, []error{d.errorf("apiVersion", "%v", err)}
	}
	gvk := gv.WithKind(d.head.Kind)
	if gv.Group != v1.Group {
		return nil, []error{d.errorf("apiVersion", "only tenon.dev kinds are accepted from this path (%s); %s is not one: move it out of the path Tenon reads, or apply it with another tool", acceptedKinds(), gvk.GroupKind())}
	}
	newObj, ok := accepted[gvk]
	if !ok {
		if d.head.Kind == v1.NodeClaimKind {
			return nil, []error{d.errorf("kind", "NodeClaims are the agent's records of the nodes it launched, not policy; remove this document")}
		}
		return nil, []error{d.errorf("kind", "%s %s is not accepted; use one of %s", d.head.APIVersion, d.head.Kind, acceptedKinds())}
	}
	obj := newObj()
	strict, err := kjson.UnmarshalStrict(d.raw, obj)
	if err != nil {
		return nil, []error{d.errorf("", "%v", err)}
	}
	var errs []error
	for _, e := range strict {
		path := ""
		var fe kjson.FieldError
		if errors.As(e, &fe) {
			path = fe.FieldPath()
		}
		if strings.HasPrefix(e.Error(), "unknown field") {
			errs = append(errs, d.errorf(path, "unknown field; remove it or check its spelling (field names are case-sensitive)"))
		} else {
			errs = append(errs, d.errorf(path, "%v", e))
		}
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(d.raw, &u.Object); err != nil {
		return nil, []error{d.errorf("", "%v", err)}
	}
	if ns := u.GetNamespace(); ns != "" {
		errs = append(errs, d.errorf("metadata.namespace", "%s objects are cluster-scoped; remove the namespace %q", d.head.Kind, ns))
	}
	for _, fe := range obj.Validate() {
		errs = append(errs, d.errorf(fe.Field, "%s", fe.ErrorBody()))
	}
	if len(errs) > 0 {
		return nil, errs
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
