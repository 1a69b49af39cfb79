package provider

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// memoryTarget is a delivery.Target in memory that counts calls, so unit tests can prove
// that invalid configurations never reach a target.
type memoryTarget struct {
	mu      sync.Mutex
	objects map[string]map[string]any
	calls   int
}

func newMemoryTarget() *memoryTarget { return &memoryTarget{objects: map[string]map[string]any{}} }

func memoryKey(obj delivery.Object) string {
	return obj.GetObjectKind().GroupVersionKind().Kind + "/" + obj.GetName()
}

func (m *memoryTarget) Apply(_ context.Context, obj delivery.Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	u, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	m.objects[memoryKey(obj)] = u
	return nil
}

func (m *memoryTarget) Get(_ context.Context, obj delivery.Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	u, ok := m.objects[memoryKey(obj)]
	if !ok {
		return fmt.Errorf("%s: %w", memoryKey(obj), delivery.ErrNotFound)
	}
	return k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
}

func (m *memoryTarget) Delete(_ context.Context, obj delivery.Object) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	delete(m.objects, memoryKey(obj))
	return nil
}

func (m *memoryTarget) Describe() string { return "memory" }

func (m *memoryTarget) callCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

func (m *memoryTarget) has(kind, name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objects[kind+"/"+name]
	return ok
}

// factories serves the provider with target in place of the one Configure would build.
func factories(target delivery.Target) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"tenon": providerserver.NewProtocol6WithError(&tenonProvider{version: "test", target: target}),
	}
}
