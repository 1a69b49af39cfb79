package convert

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// Options tune a conversion.
type Options struct {
	// ClusterName replaces ${CLUSTER_NAME} and $CLUSTER_NAME, the placeholders
	// of Karpenter's envsubst-style manifests, in every string.
	ClusterName string
	// DefaultInstanceProfile is the instance profile of AWSNodeTemplates and
	// inline providers that name none, as Karpenter v1alpha5's
	// aws.defaultInstanceProfile setting was.
	DefaultInstanceProfile string
}

// Object is one converted object with the input it came from.
type Object struct {
	// Source names the input: file, document number, Karpenter kind and name.
	Source string
	// Value is a *v1.NodePool, *v1.NodeClass or *v1alpha5.Provisioner.
	Value any
	// conv is the conversion that made it, for validation messages.
	conv *conversion
}

// Result is a conversion's output: the objects, in input order, and every
// input field they do not carry.
type Result struct {
	Objects []Object
	// Unmapped are fields Tenon has no equivalent for. They change what the
	// policy does; --strict makes them fatal.
	Unmapped []Finding
	// Ignored are fields left out on purpose: status, server metadata,
	// Helm and Karpenter record keeping, settings moved elsewhere.
	Ignored []Finding
	// Warnings are other things to check, such as placeholders left in.
	Warnings []string
}

// Supported kinds, as apiVersion/kind.
const (
	kindProvisioner       = "karpenter.sh/v1alpha5/Provisioner"
	kindNodePoolV1beta1   = "karpenter.sh/v1beta1/NodePool"
	kindNodePoolV1        = "karpenter.sh/v1/NodePool"
	kindEC2NodeClassV1    = "karpenter.k8s.aws/v1/EC2NodeClass"
	kindEC2NodeClassBeta  = "karpenter.k8s.aws/v1beta1/EC2NodeClass"
	kindAWSNodeTemplate   = "karpenter.k8s.aws/v1alpha1/AWSNodeTemplate"
	supportedKindsMessage = "tenon convert reads karpenter.sh/v1alpha5 Provisioner, karpenter.sh/v1beta1 and v1 NodePool, karpenter.k8s.aws/v1beta1 and v1 EC2NodeClass, and karpenter.k8s.aws/v1alpha1 AWSNodeTemplate"
)

// Convert converts the Karpenter objects of the inputs. It returns Errors
// when an input is malformed, holds an unknown kind, has a field of the wrong
// type, or converts into an object Tenon's validation rejects; every such
// error names the file, the document (number, kind and name) and the input
// field. The Result is returned with the errors too, for callers that list
// what did convert.
func Convert(inputs []Input, opts Options) (*Result, error) {
	res := &Result{}
	var errs Errors
	var moves []*movedKubelet
	classes := map[string]*v1.NodeClass{}
	var convs []*conversion
	seen := map[string]string{}
	for _, in := range inputs {
		docs, err := splitDocuments(in.Name, in.Data)
		if err != nil {
			errs = append(errs, asErrors(err)...)
			continue
		}
		for _, d := range expandLists(docs) {
			var left []string
			d.raw = substitute(d.raw, opts.ClusterName, "", &left).(map[string]any)
			if len(left) > 0 {
				slices.Sort(left)
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s: %s still hold ${CLUSTER_NAME}; pass --cluster-name to replace it", d.file, d.describe(), strings.Join(left, ", ")))
			}
			c := &conversion{doc: d}
			obj, move := convertDocument(c, opts)
			errs = append(errs, c.errs...)
			convs = append(convs, c)
			if obj == nil {
				continue
			}
			if nc, ok := obj.(*v1.NodeClass); ok {
				classes[nc.Name] = nc
			}
			if move != nil {
				moves = append(moves, move)
			}
			key := identity(obj)
			if prev, dup := seen[key]; dup {
				c.fail(nil, "becomes %s like %s; the cluster can hold only one, so rename one", key, prev)
				errs = append(errs, c.errs[len(c.errs)-1])
				continue
			}
			seen[key] = fmt.Sprintf("%s: %s", d.file, d.locate())
			res.Objects = append(res.Objects, Object{Source: fmt.Sprintf("%s: %s", d.file, d.describe()), Value: obj, conv: c})
		}
	}
	applyMovedKubelet(moves, classes)
	for _, obj := range res.Objects {
		errs = append(errs, validate(obj.conv, obj.Value)...)
	}
	for _, c := range convs {
		res.Unmapped = append(res.Unmapped, c.unmapped...)
		res.Ignored = append(res.Ignored, c.ignored...)
	}
	if len(errs) > 0 {
		return res, errs
	}
	return res, nil
}

// identity names what an object becomes in the cluster. NodePools and
// Provisioners share one name space: the agent runs both as node pools and
// labels their nodes tenon.dev/nodepool with the name.
func identity(obj any) string {
	switch o := obj.(type) {
	case *v1.NodePool:
		return fmt.Sprintf("node pool %q", o.Name)
	case *v1alpha5.Provisioner:
		return fmt.Sprintf("node pool %q", o.Name)
	case *v1.NodeClass:
		return fmt.Sprintf("NodeClass %q", o.Name)
	}
	return fmt.Sprintf("%T", obj)
}

// expandLists replaces each v1 List (kubectl get -o yaml of several
// objects) with its items.
func expandLists(docs []*document) []*document {
	var out []*document
	for _, d := range docs {
		if d.kind != "List" || d.apiVersion != "v1" {
			out = append(out, d)
			continue
		}
		items, _ := d.raw["items"].([]any)
		for i, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			it := &document{file: d.file, index: d.index, item: i + 1, raw: m}
			it.apiVersion, _ = m["apiVersion"].(string)
			it.kind, _ = m["kind"].(string)
			if meta, ok := m["metadata"].(map[string]any); ok {
				it.name, _ = meta["name"].(string)
			}
			if it.name == "" {
				it.name = fmt.Sprintf("(item %d)", i+1)
			}
			out = append(out, it)
		}
	}
	return out
}

// convertDocument dispatches on apiVersion and kind.
func convertDocument(c *conversion, opts Options) (any, *movedKubelet) {
	d := c.doc
	root := newNode(c, nil, d.raw)
	root.get("apiVersion")
	root.get("kind")
	switch d.apiVersion + "/" + d.kind {
	case kindProvisioner:
		return convertProvisioner(c, root, opts), nil
	case kindNodePoolV1beta1:
		np, move := convertNodePool(c, root, "v1beta1")
		return np, move
	case kindNodePoolV1:
		np, _ := convertNodePool(c, root, "v1")
		return np, nil
	case kindEC2NodeClassV1:
		return convertEC2NodeClass(c, root, "v1"), nil
	case kindEC2NodeClassBeta:
		return convertEC2NodeClass(c, root, "v1beta1"), nil
	case kindAWSNodeTemplate:
		return convertAWSNodeTemplate(c, root, opts), nil
	}
	switch {
	case d.apiVersion == "" || d.kind == "":
		c.fail(nil, "missing apiVersion or kind; %s", supportedKindsMessage)
	case strings.HasPrefix(d.apiVersion, "tenon.dev/"):
		c.fail(nil, "%s %s is already a Tenon object; %s", d.apiVersion, d.kind, supportedKindsMessage)
	default:
		c.fail(nil, "unknown apiVersion %s and kind %s; %s", d.apiVersion, d.kind, supportedKindsMessage)
	}
	return nil, nil
}

// validate runs the tenon.dev API's validation on a converted object and
// names the input field behind each error.
func validate(c *conversion, obj any) Errors {
	var list field.ErrorList
	switch o := obj.(type) {
	case *v1.NodePool:
		list = o.Validate()
	case *v1.NodeClass:
		list = o.Validate()
	case *v1alpha5.Provisioner:
		list = o.Validate()
	}
	out := make(Errors, 0, len(list))
	for _, e := range list {
		path := c.origin(e.Field)
		detail := e.ErrorBody() + hint(e)
		if path != e.Field {
			detail = fmt.Sprintf("%s (Tenon field %s)", detail, e.Field)
		}
		out = append(out, &Error{File: c.doc.file, Object: c.doc.locate(), Field: path, Detail: "invalid for Tenon: " + detail})
	}
	return out
}

// hint adds what a Karpenter user can do about validation errors that come
// from differences between Karpenter and Tenon.
func hint(e *field.Error) string {
	switch {
	case strings.HasSuffix(e.Field, "spec.aws") && e.Type == field.ErrorTypeRequired,
		strings.HasSuffix(e.Field, "provider.instanceProfile"):
		return "; Karpenter v1alpha5 took it from its aws.defaultInstanceProfile setting: set instanceProfile in the input or pass --default-instance-profile"
	}
	return ""
}

// equalJSON reports whether a and b marshal to the same JSON.
func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
