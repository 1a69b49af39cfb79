package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
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
	// NodeRepair says Karpenter ran with its NodeRepair feature gate on
	// (--feature-gates NodeRepair=true, Helm settings.featureGates.nodeRepair):
	// a cluster-wide switch, not a field of the objects converted, so it is
	// given here and every converted NodePool gets disruption.repair
	// {enabled: true}, with the cloud's tolerations and the 20% threshold
	// Karpenter applies. Provisioners (v1alpha5) have no repair.
	NodeRepair bool
}

// Object is one converted object with the input it came from.
type Object struct {
	// Source names the input: file, Karpenter kind and name (the document
	// number when it has no name).
	Source string
	// Value is a *v1.NodePool, *v1.NodeClass, *v1.NodeOverlay or *v1alpha5.Provisioner.
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

// Convert converts the Karpenter objects of the inputs. When an input is
// malformed, holds a kind tenon convert does not read, has a field of the
// wrong type, or converts into an object Tenon's validation rejects, it
// returns the *manifest.Errors joined, each naming the file, the object and
// the input field. The Result is returned with the errors too, for callers
// that list what did convert.
func Convert(inputs []Input, opts Options) (*Result, error) {
	res := &Result{}
	var errs []error
	var moves []*movedKubelet
	classes := map[string]*v1.NodeClass{}
	var convs []*conversion
	var buffers []*bufferDoc
	templates := map[string]*templateDoc{}
	seen := map[string]string{}
	for _, in := range inputs {
		docs, err := sources(in)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, d := range docs {
			var left []string
			d.raw = substitute(d.raw, opts.ClusterName, "", &left).(map[string]any)
			if len(left) > 0 {
				slices.Sort(left)
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %s: %s still hold ${CLUSTER_NAME}; pass --cluster-name to replace it", d.File, d.Describe(), strings.Join(left, ", ")))
			}
			c := &conversion{doc: d}
			obj, move := convertDocument(c, opts)
			errs = append(errs, c.errs...)
			convs = append(convs, c)
			switch o := obj.(type) {
			case *bufferDoc:
				buffers = append(buffers, o)
				continue
			case *templateDoc:
				templates[o.key] = o
				continue
			case nil:
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
				errs = append(errs, &manifest.Error{File: d.File, Object: d.Locate(), Detail: fmt.Sprintf("becomes %s like %s; the cluster can hold only one, so rename one", key, prev)})
				continue
			}
			seen[key] = fmt.Sprintf("%s: %s", d.File, d.Locate())
			res.Objects = append(res.Objects, Object{Source: fmt.Sprintf("%s: %s", d.File, d.Describe()), Value: obj, conv: c})
		}
	}
	applyMovedKubelet(moves, classes)
	errs = append(errs, attachBuffers(buffers, templates, res.Objects)...)
	for _, obj := range res.Objects {
		errs = append(errs, validate(obj.conv, obj.Value)...)
	}
	for _, c := range convs {
		res.Unmapped = append(res.Unmapped, c.unmapped...)
		res.Ignored = append(res.Ignored, c.ignored...)
	}
	return res, errors.Join(errs...)
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
	case *v1.NodeOverlay:
		return fmt.Sprintf("NodeOverlay %q", o.Name)
	}
	return fmt.Sprintf("%T", obj)
}

// convertDocument converts one document of a kind karpenterKinds holds.
func convertDocument(c *conversion, opts Options) (any, *movedKubelet) {
	k, err := karpenterKinds.Lookup(c.doc.Document)
	if err != nil {
		c.errs = append(c.errs, err)
		return nil, nil
	}
	root := newNode(c, nil, c.doc.raw)
	root.get("apiVersion")
	root.get("kind")
	version := k.APIVersion[strings.LastIndex(k.APIVersion, "/")+1:]
	switch k.Kind {
	case "Provisioner":
		return convertProvisioner(c, root, opts), nil
	case "NodePool":
		np, move := convertNodePool(c, root, version)
		if opts.NodeRepair {
			enableRepair(np)
		}
		return np, move
	case "EC2NodeClass":
		return convertEC2NodeClass(c, root, version), nil
	case "NodeOverlay":
		return convertNodeOverlay(c, root), nil
	case "CapacityBuffer":
		if b := convertCapacityBuffer(c, root); b != nil {
			return b, nil
		}
		return nil, nil
	case "PodTemplate", "Deployment", "StatefulSet", "ReplicaSet":
		if t := readTemplate(c, k.Kind); t != nil {
			return t, nil
		}
		return nil, nil
	default: // AWSNodeTemplate
		return convertAWSNodeTemplate(c, root, opts), nil
	}
}

// validate runs the tenon.dev API's validation on a converted object and
// names the input field behind each error.
func validate(c *conversion, obj any) []error {
	var list field.ErrorList
	switch o := obj.(type) {
	case *v1.NodePool:
		list = o.Validate()
	case *v1.NodeClass:
		list = o.Validate()
	case *v1.NodeOverlay:
		list = o.Validate()
	case *v1alpha5.Provisioner:
		list = o.Validate()
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		path := c.origin(e.Field)
		detail := e.ErrorBody() + hint(e)
		if path != e.Field {
			detail = fmt.Sprintf("%s (Tenon field %s)", detail, e.Field)
		}
		out = append(out, c.doc.Errorf(path, "invalid for Tenon: %s", detail))
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
