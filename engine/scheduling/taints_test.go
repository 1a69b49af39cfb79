package scheduling_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestToleratesPod(t *testing.T) {
	gpu := corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}
	drain := corev1.Taint{Key: "example.com/drain", Effect: corev1.TaintEffectNoExecute}
	soft := corev1.Taint{Key: "example.com/soft", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}
	level := corev1.Taint{Key: "example.com/level", Value: "5", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name        string
		taints      scheduling.Taints
		tolerations []corev1.Toleration
		wantErr     string
	}{
		{"no taints", nil, nil, ""},
		{"soft taint is not an error", scheduling.Taints{soft}, nil, ""},
		{"untolerated NoSchedule", scheduling.Taints{soft, gpu}, nil,
			`taint nvidia.com/gpu=true:NoSchedule is not tolerated; add the toleration {key: "nvidia.com/gpu", operator: Equal, value: "true", effect: NoSchedule} to the pod, or remove the taint`},
		{"untolerated NoExecute without value", scheduling.Taints{drain}, nil,
			`taint example.com/drain:NoExecute is not tolerated; add the toleration {key: "example.com/drain", operator: Exists, effect: NoExecute} to the pod, or remove the taint`},
		{"names the first untolerated", scheduling.Taints{gpu, drain}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}},
			`taint example.com/drain:NoExecute is not tolerated; add the toleration {key: "example.com/drain", operator: Exists, effect: NoExecute} to the pod, or remove the taint`},
		{"Equal with value", scheduling.Taints{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}, ""},
		{"empty operator means Equal", scheduling.Taints{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Value: "true"}}, ""},
		{"wrong value", scheduling.Taints{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Value: "false"}},
			`taint nvidia.com/gpu=true:NoSchedule is not tolerated; add the toleration {key: "nvidia.com/gpu", operator: Equal, value: "true", effect: NoSchedule} to the pod, or remove the taint`},
		{"wrong effect", scheduling.Taints{gpu}, []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			`taint nvidia.com/gpu=true:NoSchedule is not tolerated; add the toleration {key: "nvidia.com/gpu", operator: Equal, value: "true", effect: NoSchedule} to the pod, or remove the taint`},
		{"tolerate everything", scheduling.Taints{gpu, drain}, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, ""},
		{"Gt tolerates a larger taint value", scheduling.Taints{level}, []corev1.Toleration{{Key: "example.com/level", Operator: corev1.TolerationOpGt, Value: "4"}}, ""},
		{"Lt does not tolerate a larger taint value", scheduling.Taints{level}, []corev1.Toleration{{Key: "example.com/level", Operator: corev1.TolerationOpLt, Value: "4"}},
			`taint example.com/level=5:NoSchedule is not tolerated; add the toleration {key: "example.com/level", operator: Equal, value: "5", effect: NoSchedule} to the pod, or remove the taint`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.taints.ToleratesPod(tt.tolerations)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
			}
		})
	}
}

func TestTaintHelpers(t *testing.T) {
	a := corev1.Taint{Key: "a", Value: "1", Effect: corev1.TaintEffectNoSchedule}
	a2 := corev1.Taint{Key: "a", Value: "2", Effect: corev1.TaintEffectNoSchedule}
	aExec := corev1.Taint{Key: "a", Value: "1", Effect: corev1.TaintEffectNoExecute}
	b := corev1.Taint{Key: "b", Effect: corev1.TaintEffectNoSchedule}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name string
		got  scheduling.Taints
		want scheduling.Taints
	}{
		{"merge keeps the first on a clash", scheduling.Taints{a}.Merge(scheduling.Taints{a2, aExec, b}), scheduling.Taints{a, aExec, b}},
		{"merge into nothing", scheduling.Taints(nil).Merge(scheduling.Taints{b}), scheduling.Taints{b}},
		{"startup taints dropped by key and effect", scheduling.Taints{a, aExec, b}.WithoutStartupTaints([]corev1.Taint{a2}), scheduling.Taints{aExec, b}},
		{"ephemeral taints dropped", scheduling.Taints{notReady, b}.WithoutEphemeralTaints(), scheduling.Taints{b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.got) != len(tt.want) {
				t.Fatalf("got %v, want %v", tt.got, tt.want)
			}
			for i := range tt.got {
				if tt.got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", tt.got, tt.want)
				}
			}
		})
	}
	if err := (scheduling.Taints{notReady, b}).WithoutEphemeralTaints().ToleratesPod([]corev1.Toleration{{Key: "b", Operator: corev1.TolerationOpExists}}); err != nil {
		t.Errorf("pod tolerating b should fit once ephemeral taints are dropped: %v", err)
	}
}
