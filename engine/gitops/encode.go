package gitops

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// Header heads every file the Writer writes.
const Header = "# Managed by Tenon. Edit the Terraform configuration (or the tool that writes here), not this\n" +
	"# file: a hand edit shows up as drift in `terraform plan` and the next apply overwrites it.\n"

// scheme knows the Go types of the accepted kinds, to fill in apiVersion and kind of typed
// objects whose TypeMeta is empty.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := v1.AddToScheme(s); err != nil {
		panic(err) // static registration; cannot fail
	}
	if err := v1alpha5.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// ObjectFile is the path, relative to Options.Path, of the file holding an object:
// <lower-case kind>/<name>.yaml.
func ObjectFile(ref Ref) string {
	return path.Join(strings.ToLower(ref.Kind), ref.Name+".yaml")
}

// toUnstructured converts a typed tenon.dev object (or an *unstructured.Unstructured) to its
// unstructured form with apiVersion and kind set.
func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy(), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	if u.GetKind() == "" {
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil {
			return nil, fmt.Errorf("%T is not a tenon.dev kind: %w", obj, err)
		}
		u.SetGroupVersionKind(gvks[0])
	}
	return u, nil
}

// encodeObject checks an object exactly as the Reader will and renders its file: the header,
// then YAML with keys sorted, without status or server-set metadata.
func encodeObject(obj runtime.Object) (Ref, []byte, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return Ref{}, nil, err
	}
	u = clean(u)
	if meta, ok := u.Object["metadata"].(map[string]any); ok {
		for _, f := range []string{"labels", "annotations"} {
			if m, ok := meta[f].(map[string]any); ok && len(m) == 0 {
				delete(meta, f)
			}
		}
	}
	ref := Ref{Kind: u.GetKind(), Name: u.GetName()}
	if msgs := validation.NameIsDNSSubdomain(ref.Name, false); len(msgs) > 0 {
		return ref, nil, fmt.Errorf("%s: metadata.name: %s", ref, strings.Join(msgs, "; "))
	}
	raw, err := json.Marshal(u.Object)
	if err != nil {
		return ref, nil, fmt.Errorf("%s: %w", ref, err)
	}
	if _, errs := decodeFile(ObjectFile(ref), raw); len(errs) > 0 {
		return ref, nil, &CommitError{Errs: errs}
	}
	body, err := yaml.JSONToYAML(raw)
	if err != nil {
		return ref, nil, fmt.Errorf("%s: rendering YAML: %w", ref, err)
	}
	return ref, append([]byte(Header), body...), nil
}

// kustomization is a parsed kustomization.yaml, kept as a map so that fields Tenon does not
// manage survive a rewrite.
type kustomization struct {
	fields    map[string]any
	resources []string
}

func newKustomization() *kustomization {
	return &kustomization{fields: map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1",
		"kind":       "Kustomization",
	}}
}

func parseKustomization(file string, data []byte) (*kustomization, error) {
	k := &kustomization{}
	if err := yaml.Unmarshal(data, &k.fields); err != nil {
		return nil, fmt.Errorf("%s: %w; fix or remove it", file, err)
	}
	if k.fields == nil {
		k.fields = map[string]any{}
	}
	if res, ok := k.fields["resources"]; ok && res != nil {
		list, ok := res.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: resources: must be a list of paths", file)
		}
		for _, r := range list {
			s, ok := r.(string)
			if !ok {
				return nil, fmt.Errorf("%s: resources: %v is not a path", file, r)
			}
			k.resources = append(k.resources, s)
		}
	}
	return k, nil
}

// update adds the files written and removes the files deleted, keeping the order of the
// entries already there; new entries go at the end, sorted.
func (k *kustomization) update(written, deleted []string) {
	gone := map[string]bool{}
	for _, d := range deleted {
		gone[path.Clean(d)] = true
	}
	have := map[string]bool{}
	var out []string
	for _, r := range k.resources {
		c := path.Clean(strings.TrimPrefix(r, "./"))
		if gone[c] {
			continue
		}
		have[c] = true
		out = append(out, r)
	}
	add := slices.Clone(written)
	sort.Strings(add)
	for _, w := range add {
		if !have[w] {
			have[w] = true
			out = append(out, w)
		}
	}
	k.resources = out
}

func (k *kustomization) encode() ([]byte, error) {
	fields := make(map[string]any, len(k.fields)+1)
	for key, v := range k.fields {
		fields[key] = v
	}
	fields["resources"] = k.resources
	if k.resources == nil {
		fields["resources"] = []string{}
	}
	body, err := yaml.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("rendering kustomization.yaml: %w", err)
	}
	return append([]byte(Header), body...), nil
}
