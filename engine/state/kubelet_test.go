package state

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
)

func TestWithKubelet(t *testing.T) {
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	m5, _ := cat.Get("m5.large") // 2 vCPUs, 29 pods
	i32 := func(v int32) *int32 { return &v }
	mib := func(n int64) int64 { return n << 20 }
	baseMem := m5.Allocatable.Memory().Value()
	baseCPU := m5.Allocatable.Cpu().MilliValue()
	tests := []struct {
		name           string
		kubelet        *v1.KubeletConfiguration
		pods           int64
		memory, cpuMil int64
	}{
		{"no settings change nothing", nil, 29, baseMem, baseCPU},
		{"maxPods lowers the pod limit and frees kube-reserved memory", &v1.KubeletConfiguration{MaxPods: i32(10)}, 10, baseMem + mib(19*11), baseCPU},
		{"maxPods above the ENI limit raises it and reserves more", &v1.KubeletConfiguration{MaxPods: i32(110)}, 110, baseMem - mib(81*11), baseCPU},
		{"podsPerCore caps pods per vCPU", &v1.KubeletConfiguration{PodsPerCore: i32(4)}, 8, baseMem + mib(21*11), baseCPU},
		{"systemReserved comes off", &v1.KubeletConfiguration{SystemReserved: map[string]string{"cpu": "100m", "memory": "100Mi", "pid": "100"}}, 29, baseMem - mib(100), baseCPU - 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := WithKubelet([]*catalog.InstanceType{m5}, tt.kubelet)
			if err != nil {
				t.Fatal(err)
			}
			a := got[0].Allocatable
			if a.Pods().Value() != tt.pods || got[0].Capacity.Pods().Value() != tt.pods || a.Memory().Value() != tt.memory || a.Cpu().MilliValue() != tt.cpuMil {
				t.Errorf("allocatable pods %v memory %v cpu %v, want %d, %d, %dm", a.Pods(), a.Memory().Value(), a.Cpu(), tt.pods, tt.memory, tt.cpuMil)
			}
			if tt.kubelet == nil && got[0] != m5 {
				t.Error("copied a type without settings")
			}
			if m5.Allocatable.Pods().Value() != 29 {
				t.Fatal("changed the catalog's type")
			}
		})
	}
}
