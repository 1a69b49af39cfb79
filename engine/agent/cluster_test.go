package agent

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// sharedCache makes a fake client's lists behave as the informer cache's
// do under client.UnsafeDisableDeepCopy: every List returns items that
// share their maps, slices and pointers with one cached object per
// resource version, and a pristine copy of each is kept to compare with.
type sharedCache struct {
	cached, pristine map[string]runtime.Object
}

func (s *sharedCache) list(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
	if err := cl.List(ctx, list, opts...); err != nil {
		return err
	}
	o := &client.ListOptions{}
	o.ApplyOptions(opts)
	if o.UnsafeDisableDeepCopy == nil || !*o.UnsafeDisableDeepCopy {
		return nil
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	for _, item := range items {
		obj := item.(client.Object)
		key := fmt.Sprintf("%T/%s/%s@%s", obj, obj.GetNamespace(), obj.GetName(), obj.GetResourceVersion())
		cached, ok := s.cached[key]
		if !ok {
			// The first list of this version: its item becomes the cache's
			// object (the fake client made it a copy of its own).
			s.cached[key] = item
			s.pristine[key] = item.DeepCopyObject()
			continue
		}
		reflect.ValueOf(item).Elem().Set(reflect.ValueOf(cached).Elem())
	}
	return nil
}

// TestViewsLeaveTheCacheUnchanged runs the agent's loops on views whose
// pods, nodes, daemonsets and PDBs share memory with the cache, as
// viewBuilder.list reads them, and checks that no loop wrote to one: a
// write there would change the informer cache under every other reader.
func TestViewsLeaveTheCacheUnchanged(t *testing.T) {
	s := &sharedCache{cached: map[string]runtime.Object{}, pristine: map[string]runtime.Object{}}
	buffer, static := bufferPool(1), staticNodePool(1)
	buffer.Name, static.Name = "buffer", "static"
	objs := []client.Object{emptyNodeClass(), emptyNodePool("0s"), emptyNode(), initializedClaim(),
		namedNode("n2", "fake://p-def"), claimOf("p-def", "n2"), boundPod("a", "n2"), boundPod("b", "n2"),
		pendingPod("waiting-1", "1500m"), pendingPod("waiting-2", "500m"), buffer, static}
	a, _, _, clk := testAgentWith(t, func(c client.WithWatch) client.Client {
		return interceptor.NewClient(c, interceptor.Funcs{List: s.list})
	}, objs...)
	ctx := context.Background()
	steps := []struct {
		name string
		run  func() error
	}{
		{"provision", func() error { return a.provisioner.provision(ctx) }},
		{"fill awaiting", func() error { return a.provisioner.fillAwaiting(ctx, clk.Now()) }},
		{"remove empty", func() error { return a.disruption.removeEmpty(ctx, clk.Now()) }},
		{"consolidate", func() error { return a.disruption.consolidate(ctx, clk.Now()) }},
		{"buffers", func() error { return a.buffers.reconcile(ctx, clk.Now()) }},
		{"static", func() error { return a.static.reconcile(ctx, clk.Now()) }},
		{"provision again", func() error { return a.provisioner.provision(ctx) }},
	}
	// A replacement the fake cloud never initializes must not hold the
	// consolidation step for minutes.
	a.disruption.timings.ReplacementTimeout = time.Second
	for _, step := range steps {
		err := step.run()
		for key, obj := range s.cached {
			if !equality.Semantic.DeepEqual(obj, s.pristine[key]) {
				t.Fatalf("%s: %s was changed in the cache", step.name, key)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
	}
	var pods int
	for _, obj := range s.cached {
		if _, ok := obj.(*corev1.Pod); ok {
			pods++
		}
	}
	if pods == 0 {
		t.Fatal("no pod was listed without a copy: the test checks nothing")
	}
}
