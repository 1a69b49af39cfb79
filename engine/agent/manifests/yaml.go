package manifests

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Unstructured converts objs to unstructured objects without the fields a built object has
// but must not send: metadata.creationTimestamp (null) and status (the API server and the
// controllers own it; a PDB's would claim zero healthy pods). Server-side apply and the YAML
// rendering use this form.
func Unstructured(objs []client.Object) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, obj := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("converting %T %s: %w", obj, obj.GetName(), err)
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("%T %s has no apiVersion or kind; set its TypeMeta", obj, obj.GetName())
		}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		delete(u.Object, "status")
		out = append(out, u)
	}
	return out, nil
}

// YAML renders objs as multi-document YAML, in the order given, with each object's keys
// sorted: the same objects always give the same bytes.
func YAML(objs []client.Object) ([]byte, error) {
	us, err := Unstructured(objs)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for i, u := range us {
		data, err := yaml.Marshal(u.Object)
		if err != nil {
			return nil, fmt.Errorf("rendering %s %s: %w", u.GetKind(), u.GetName(), err)
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
	}
	return b.Bytes(), nil
}
