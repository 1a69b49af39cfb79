package convert

import (
	"encoding/json"
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// activeCapacity is the CapacityBuffer strategy Tenon's buffers are: room kept up continuously.
const activeCapacity = "buffer.x-k8s.io/active-capacity"

// bufferDoc is a CapacityBuffer (autoscaling.x-k8s.io, as Karpenter v1.15 and Cluster
// Autoscaler read it) waiting for attachBuffers: Tenon keeps a buffer on a NodePool, so it
// becomes the spec.buffer of the pool its pods would run in.
type bufferDoc struct {
	c         *conversion
	namespace string
	name      string
	// ref is "PodTemplate/<name>" or "<Kind>/<name>" of the scalableRef, with its field.
	ref      string
	refField *field.Path
	replicas *int32
	percent  *int32
	limits   map[string]resource.Quantity
	spec     *field.Path
}

// templateDoc is a PodTemplate, Deployment, StatefulSet or ReplicaSet read only because a
// CapacityBuffer may refer to it: its pod template and, for a workload, its replicas.
type templateDoc struct {
	c        *conversion
	used     bool
	key      string // "<Kind>/<namespace>/<name>"
	template corev1.PodTemplateSpec
	replicas *int32
}

// convertCapacityBuffer reads a CapacityBuffer; attachBuffers makes it a pool's buffer.
func convertCapacityBuffer(c *conversion, root *node) *bufferDoc {
	b := &bufferDoc{c: c, spec: root.at("spec")}
	if meta := root.child("metadata"); meta != nil {
		b.name, b.namespace = meta.str("name"), meta.str("namespace")
		for _, f := range serverMetadata {
			meta.skip(f, "set by the API server")
		}
		meta.drop("labels", "the buffer becomes a field of a NodePool, which keeps its own labels")
		meta.drop("annotations", "the buffer becomes a field of a NodePool, which keeps its own annotations")
		meta.finish()
	}
	if b.namespace == "" {
		b.namespace = "default"
	}
	root.skip("status", "written by the autoscaler; the agent plans the buffer itself")
	spec := root.child("spec")
	root.finish()
	if spec == nil {
		c.fail(b.spec, "missing: a CapacityBuffer needs a spec")
		return b
	}
	if s := spec.strPtr("provisioningStrategy"); s != nil && *s != activeCapacity {
		c.fail(spec.at("provisioningStrategy"), "unsupported: Tenon keeps buffers as %s does; %q has no Tenon equivalent", activeCapacity, *s)
	}
	if ref := spec.child("podTemplateRef"); ref != nil {
		b.ref, b.refField = "PodTemplate/"+ref.str("name"), spec.at("podTemplateRef")
		ref.finish()
	}
	if ref := spec.child("scalableRef"); ref != nil {
		ref.drop("apiGroup", "read from kind: Deployment, StatefulSet and ReplicaSet are apps/v1")
		b.ref, b.refField = ref.str("kind")+"/"+ref.str("name"), spec.at("scalableRef")
		ref.finish()
	}
	b.replicas, b.percent = spec.int32p("replicas"), spec.int32p("percentage")
	b.limits = spec.quantities("limits")
	spec.finish()
	if b.ref == "" {
		c.fail(b.spec, "missing: a CapacityBuffer needs podTemplateRef or scalableRef, the shape of its pods")
	}
	return b
}

// readTemplate keeps a PodTemplate or workload a CapacityBuffer may refer to. It is not
// converted: Tenon has no object for it.
func readTemplate(c *conversion, kind string) *templateDoc {
	raw, err := json.Marshal(c.doc.raw)
	if err != nil {
		c.fail(nil, "re-encoding: %v", err)
		return nil
	}
	var obj struct {
		Metadata struct{ Name, Namespace string }
		Template corev1.PodTemplateSpec
		Spec     struct {
			Replicas *int32
			Template corev1.PodTemplateSpec
		}
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		c.fail(nil, "malformed %s: %v", kind, err)
		return nil
	}
	ns := obj.Metadata.Namespace
	if ns == "" {
		ns = "default"
	}
	t := &templateDoc{c: c, key: kind + "/" + ns + "/" + obj.Metadata.Name, template: obj.Spec.Template, replicas: obj.Spec.Replicas}
	if kind == "PodTemplate" {
		t.template, t.replicas = obj.Template, nil
	}
	at := field.NewPath("spec", "template")
	if kind == "PodTemplate" {
		at = field.NewPath("template")
	}
	c.ignore(at, "read only as the shape of the CapacityBuffers' pods that refer to it; apply it as it is")
	return t
}

// attachBuffers makes each CapacityBuffer the buffer of a converted NodePool: the pool its
// template's node selector names (karpenter.sh/nodepool or tenon.dev/nodepool), else the only
// NodePool converted. Its pods are the template's requests; its size is replicas, the
// percentage of the workload's replicas now, or as many as limits hold (the smallest of those
// given, as the upstream API says).
func attachBuffers(buffers []*bufferDoc, templates map[string]*templateDoc, objs []Object) []error {
	pools := map[string]*v1.NodePool{}
	var only *v1.NodePool
	for _, o := range objs {
		if np, ok := o.Value.(*v1.NodePool); ok {
			pools[np.Name] = np
			only = np
		}
	}
	if len(pools) != 1 {
		only = nil
	}
	var errs []error
	for _, b := range buffers {
		before := len(b.c.errs)
		b.attach(templates, pools, only)
		errs = append(errs, b.c.errs[before:]...)
	}
	for _, key := range sortedKeys(templates) {
		if t := templates[key]; !t.used {
			errs = append(errs, t.c.doc.Errorf("", "no CapacityBuffer in the input refers to it: tenon convert reads %s only as the shape of a buffer's pods; leave it out of the input", t.key[:len(t.key)-len(t.key[indexOf(t.key, '/'):])]))
		}
	}
	return errs
}

func indexOf(s string, b byte) int {
	for i := range s {
		if s[i] == b {
			return i
		}
	}
	return len(s)
}

// attach makes b the buffer of its pool, or records why it cannot.
func (b *bufferDoc) attach(templates map[string]*templateDoc, pools map[string]*v1.NodePool, only *v1.NodePool) {
	{
		if b.ref == "" {
			return
		}
		t := templates[b.refKind()+"/"+b.namespace+"/"+b.refName()]
		if t == nil {
			b.c.fail(b.refField, "%s %q in namespace %s is not in the input: pass its manifest with -f too, so the buffer's pods get its requests", b.refKind(), b.refName(), b.namespace)
			return
		}
		t.used = true
		pool := poolOf(t.template.Spec.NodeSelector, pools, only)
		if pool == nil {
			b.c.fail(b.refField, "no NodePool for the buffer: give the pod template a nodeSelector karpenter.sh/nodepool naming a NodePool in the input, or convert it with a single NodePool")
			return
		}
		if pool.Spec.Buffer != nil {
			b.c.fail(b.spec, "NodePool %q already has a buffer from another CapacityBuffer; a Tenon pool keeps one buffer, so merge them", pool.Name)
			return
		}
		buf, err := b.toBuffer(t)
		if err != nil {
			b.c.fail(b.spec, "%v", err)
			return
		}
		pool.Spec.Buffer = buf
	}
}

func (b *bufferDoc) refKind() string { kind, _ := splitRef(b.ref); return kind }
func (b *bufferDoc) refName() string { _, name := splitRef(b.ref); return name }

func splitRef(ref string) (string, string) {
	for i := range ref {
		if ref[i] == '/' {
			return ref[:i], ref[i+1:]
		}
	}
	return ref, ""
}

// poolOf is the NodePool a pod template's node selector names, else only.
func poolOf(selector map[string]string, pools map[string]*v1.NodePool, only *v1.NodePool) *v1.NodePool {
	for _, key := range []string{"karpenter.sh/nodepool", v1.LabelNodePool} {
		if name, ok := selector[key]; ok {
			return pools[name]
		}
	}
	return only
}

// toBuffer is the Tenon buffer of a CapacityBuffer whose pods are t's.
func (b *bufferDoc) toBuffer(t *templateDoc) (*v1.CapacityBuffer, error) {
	requests := state.PodRequests(&t.template.Spec)
	delete(requests, corev1.ResourcePods)
	if len(requests) == 0 {
		return nil, fmt.Errorf("%s %q requests no resources: a buffer of pods that request nothing keeps no room; set requests in its template", b.refKind(), b.refName())
	}
	var sizes []int64
	if b.replicas != nil {
		sizes = append(sizes, int64(*b.replicas))
	}
	if b.percent != nil {
		if t.replicas == nil {
			return nil, fmt.Errorf("percentage needs a scalableRef with replicas; %s %q has none", b.refKind(), b.refName())
		}
		// Rounded up, and at least one for a workload that runs, as the upstream API says. It is the
		// workload's replicas now: Tenon's buffer.percent is of the pool's requests instead.
		n := int64(math.Ceil(float64(*t.replicas) * float64(*b.percent) / 100))
		if n < 1 && *b.percent > 0 && *t.replicas > 0 {
			n = 1
		}
		b.c.unmap(b.spec.Child("percentage"), fmt.Sprintf("percentage %d of %s %q's replicas (%d now) became pods: %d; Tenon's buffer.percent is a share of what the pool's pods request, so the count no longer follows the workload", *b.percent, b.refKind(), b.refName(), *t.replicas, n))
		sizes = append(sizes, n)
	}
	if len(b.limits) > 0 {
		sizes = append(sizes, limitPods(b.limits, requests))
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("the buffer has no size: set replicas, percentage or limits")
	}
	pods := sizes[0]
	for _, s := range sizes[1:] {
		pods = min(pods, s)
	}
	pods = min(max(pods, 0), v1.MaxBufferPods)
	p := int32(pods)
	return &v1.CapacityBuffer{Pods: &p, Resources: requests}, nil
}

// limitPods is how many pods of requests fit within limits, by the resources both name.
func limitPods(limits map[string]resource.Quantity, requests corev1.ResourceList) int64 {
	n := int64(math.MaxInt64)
	for name, limit := range limits {
		r, ok := requests[corev1.ResourceName(name)]
		if !ok || r.IsZero() {
			continue
		}
		n = min(n, limit.MilliValue()/r.MilliValue())
	}
	if n == math.MaxInt64 {
		return 0
	}
	return n
}
