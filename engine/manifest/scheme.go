package manifest

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kind is one kind a Scheme accepts, with the Go type its documents decode
// into.
type Kind struct {
	// APIVersion and Kind are what the documents say, such as apps/v1
	// Deployment.
	APIVersion string
	Kind       string
	// Namespaced kinds live in a namespace, "default" when a document
	// names none; the others may not name one.
	Namespaced bool
	// newObject returns an empty object to decode into; nil for kinds a
	// caller reads as plain JSON (Scheme.Lookup only).
	newObject func() any
}

// KindOf is the kind at apiVersion whose documents decode into a new T.
func KindOf[T any](apiVersion, kind string, namespaced bool) Kind {
	return Kind{APIVersion: apiVersion, Kind: kind, Namespaced: namespaced, newObject: func() any { return new(T) }}
}

// Refusal says why documents the Scheme does not accept are refused, where
// there is more to say than the kinds it accepts.
type Refusal struct {
	// Group is the API group refused; "" is the core group.
	Group string
	// Kind is the kind refused in Group; "" refuses every kind of it.
	Kind string
	// Why says why, and what to do instead.
	Why string
}

// Scheme is the kinds one reader accepts: `tenon simulate` workloads and
// policy, the tenon.dev policy of a Git path, `tenon convert`'s Karpenter
// objects. It decides a document's kind with the same rules, and the same
// messages, for all of them.
type Scheme struct {
	// Kinds are the kinds accepted, in the order messages list them.
	Kinds []Kind
	// Source says where documents are read, for messages: "from this
	// path", "in a scenario".
	Source string
	// Elsewhere says what to do with a document of a group no kind of the
	// scheme belongs to.
	Elsewhere string
	// Refused are kinds or groups refused with a reason of their own.
	Refused []Refusal
}

// Decode decides d's kind and decodes d strictly (see decodeStrict) into a
// new object of the kind's Go type. A namespaced object that names no
// namespace gets "default", in d.Head too so that messages name it; a
// cluster-scoped one that names a namespace is an error.
//
// It returns nil and the errors when the kind is not accepted or a value
// has the wrong type; the object with errors when it decoded but has unknown
// or duplicate fields or a namespace it may not have, for callers that
// report validation errors along with those.
func (s *Scheme) Decode(d *Document) (any, []error) {
	k, err := s.Lookup(d)
	if err != nil {
		return nil, []error{err}
	}
	if k.newObject == nil {
		return nil, []error{d.Errorf("kind", "%s has no Go type to decode into (make its Kind with KindOf); this is a bug", k.Kind)}
	}
	ns := &d.Head.Metadata.Namespace
	if k.Namespaced && *ns == "" {
		*ns = metav1.NamespaceDefault
	}
	obj := k.newObject()
	ok, errs := decodeStrict(d, obj)
	if !ok {
		return nil, errs
	}
	if m, isMeta := obj.(metav1.Object); isMeta && k.Namespaced {
		m.SetNamespace(*ns)
	}
	if !k.Namespaced && *ns != "" {
		errs = append(errs, d.Errorf("metadata.namespace", "Forbidden: %s objects are cluster-scoped; remove the namespace %q", k.Kind, *ns))
	}
	return obj, errs
}

// Lookup returns the accepted kind d is, or an *Error at apiVersion or kind
// that says what the scheme accepts.
func (s *Scheme) Lookup(d *Document) (Kind, error) {
	h := d.Head
	if h.Kind == "" {
		return Kind{}, d.Errorf("kind", "Required value: every document needs a kind; %s", s.supported())
	}
	for _, k := range s.Kinds {
		if k.Kind == h.Kind && k.APIVersion == h.APIVersion {
			return k, nil
		}
	}
	gv, err := schema.ParseGroupVersion(h.APIVersion)
	if err != nil {
		return Kind{}, d.Errorf("apiVersion", "Invalid value: %q: %v", h.APIVersion, err)
	}
	if r, ok := s.refusal(gv.Group, h.Kind); ok {
		path, value := "apiVersion", h.APIVersion
		if r.Kind != "" {
			path, value = "kind", h.Kind
		}
		return Kind{}, d.Errorf(path, "Unsupported value: %q: %s", value, r.Why)
	}
	if versions := s.versionsOf(h.Kind); len(versions) > 0 {
		if h.APIVersion == "" {
			return Kind{}, d.Errorf("apiVersion", "Required value: %s is %s", h.Kind, strings.Join(versions, " or "))
		}
		return Kind{}, d.Errorf("apiVersion", "Unsupported value: %q: %s is %s", h.APIVersion, h.Kind, strings.Join(versions, " or "))
	}
	if groups := s.groups(); !slices.Contains(groups, gv.Group) {
		return Kind{}, d.Errorf("apiVersion", "only %s kinds are accepted %s (%s); %s is not one: %s",
			groupList(groups), s.Source, s.kindList(), gv.WithKind(h.Kind).GroupKind(), s.Elsewhere)
	}
	return Kind{}, d.Errorf("kind", "Unsupported value: %q: %s", h.Kind, s.supported())
}

func (s *Scheme) refusal(group, kind string) (Refusal, bool) {
	for _, r := range s.Refused {
		if r.Group == group && (r.Kind == "" || r.Kind == kind) {
			return r, true
		}
	}
	return Refusal{}, false
}

// versionsOf lists the apiVersions the scheme accepts kind at.
func (s *Scheme) versionsOf(kind string) []string {
	var out []string
	for _, k := range s.Kinds {
		if k.Kind == kind {
			out = append(out, k.APIVersion)
		}
	}
	return out
}

// groups lists the API groups of the scheme's kinds, in order.
func (s *Scheme) groups() []string {
	var out []string
	for _, k := range s.Kinds {
		g := schema.FromAPIVersionAndKind(k.APIVersion, k.Kind).Group
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// groupList names groups for messages: "core, apps and tenon.dev".
func groupList(groups []string) string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g
		if g == "" {
			names[i] = "core"
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// supported lists the kinds accepted, for messages.
func (s *Scheme) supported() string { return "supported kinds: " + s.kindList() }

// kindList lists the kinds: "NodePool (tenon.dev/v1), NodeClass (tenon.dev/v1)".
func (s *Scheme) kindList() string {
	names := make([]string, len(s.Kinds))
	for i, k := range s.Kinds {
		names[i] = fmt.Sprintf("%s (%s)", k.Kind, k.APIVersion)
	}
	return strings.Join(names, ", ")
}
