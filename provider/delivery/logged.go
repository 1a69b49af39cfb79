package delivery

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Logged wraps a target so that every call is logged through tflog: a debug line before it
// and, after it, one line with the outcome (info when the target changed something, debug
// when it only read, error when it failed), each naming the operation, the object's kind and
// name, the target (Describe, which never holds a credential) and the time taken. With
// TF_LOG=DEBUG (or TF_LOG_PROVIDER=DEBUG) Terraform then shows what Tenon did and where.
// A target that is also a Lister stays one.
func Logged(t Target) Target {
	l := logged{next: t}
	if lister, ok := t.(Lister); ok {
		return loggedLister{logged: l, lister: lister}
	}
	return l
}

type logged struct{ next Target }

// Apply logs and forwards to the wrapped target.
func (l logged) Apply(ctx context.Context, obj Object) error {
	return l.call(ctx, "apply", obj, true, func() error { return l.next.Apply(ctx, obj) })
}

// Get logs and forwards to the wrapped target; a missing object is an outcome, not an error.
func (l logged) Get(ctx context.Context, obj Object) error {
	return l.call(ctx, "read", obj, false, func() error { return l.next.Get(ctx, obj) })
}

// Delete logs and forwards to the wrapped target.
func (l logged) Delete(ctx context.Context, obj Object) error {
	return l.call(ctx, "delete", obj, true, func() error { return l.next.Delete(ctx, obj) })
}

// Describe names the wrapped target.
func (l logged) Describe() string { return l.next.Describe() }

func (l logged) call(ctx context.Context, op string, obj Object, writes bool, do func() error) error {
	fields := map[string]any{
		"operation": op,
		"kind":      obj.GetObjectKind().GroupVersionKind().Kind,
		"name":      obj.GetName(),
		"target":    l.next.Describe(),
	}
	tflog.Debug(ctx, "tenon: "+op+" starting", fields)
	start := time.Now()
	err := do()
	fields["seconds"] = time.Since(start).Seconds()
	switch {
	case err != nil && IsNotFound(err):
		fields["outcome"] = "not found"
		tflog.Debug(ctx, "tenon: "+op+" found no object", fields)
	case err != nil:
		fields["outcome"] = "failed"
		fields["error"] = err.Error()
		tflog.Error(ctx, "tenon: "+op+" failed", fields)
	default:
		fields["outcome"] = "done"
		if v := obj.GetResourceVersion(); v != "" {
			fields["resource_version"] = v
		}
		if writes {
			tflog.Info(ctx, "tenon: "+op+" done", fields)
		} else {
			tflog.Debug(ctx, "tenon: "+op+" done", fields)
		}
	}
	return err
}

type loggedLister struct {
	logged
	lister Lister
}

// ListNames logs and forwards to the wrapped lister.
func (l loggedLister) ListNames(ctx context.Context, gvk schema.GroupVersionKind, labelSelector string) ([]string, error) {
	fields := map[string]any{"operation": "list", "kind": gvk.Kind, "selector": labelSelector, "target": l.next.Describe()}
	names, err := l.lister.ListNames(ctx, gvk, labelSelector)
	if err != nil {
		fields["error"] = err.Error()
		tflog.Error(ctx, "tenon: list failed", fields)
		return nil, err
	}
	fields["count"] = len(names)
	tflog.Debug(ctx, "tenon: list done", fields)
	return names, nil
}
