package simulate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestNodeRepairExample: `tenon simulate --example node-repair` reports
// node repair's plan: the node unhealthy past its toleration is replaced
// (a replacement launched first), the node within its toleration and the
// node annotated tenon.dev/do-not-repair are kept with why; later, and
// until stable, the KernelReady node's turn comes too (one per plan: the
// pool's Unhealthy budget is 1).
func TestNodeRepairExample(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		repaired []string // nodes removed by Unhealthy commands, in order
		kept     map[string]string
	}{
		{
			name:     "at the scenario's now",
			args:     nil,
			repaired: []string{"default-2"},
			kept: map[string]string{
				"default-3": "unhealthy: KernelReady False (KernelBug) for 5m; repaired after its toleration of 10m (in 5m)",
				"default-4": "unhealthy: Ready False (KubeletNotReady) for 45m, past its toleration of 10m, but node annotated tenon.dev/do-not-repair",
			},
		},
		{
			name:     "later, one node per plan",
			args:     []string{"--now", "2026-01-05T10:06:00Z"},
			repaired: []string{"default-2"},
			kept: map[string]string{
				"default-3": "unhealthy: KernelReady False (KernelBug) for 11m, past its toleration of 10m, but budget of nodepool default allows 1 now (nodes \"1\", reasons Unhealthy), all taken: 1 in this plan",
			},
		},
		{
			name:     "later, until stable",
			args:     []string{"--now", "2026-01-05T10:06:00Z", "--until-stable"},
			repaired: []string{"default-2", "default-3"},
			kept: map[string]string{
				"default-4": "unhealthy: Ready False (KubeletNotReady) for 53m, past its toleration of 10m, but node annotated tenon.dev/do-not-repair",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, append([]string{"--example", "node-repair", "-o", "json"}, tc.args...)...)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			var rep struct {
				Commands []struct {
					Reason       string   `json:"reason"`
					Nodes        []string `json:"nodes"`
					Detail       string   `json:"detail"`
					Replacements []struct {
						Name string   `json:"name"`
						Pods []string `json:"pods"`
					} `json:"replacements"`
				} `json:"commands"`
				Kept []struct{ Node, Reason string } `json:"kept"`
			}
			if err := json.NewDecoder(strings.NewReader(out)).Decode(&rep); err != nil {
				t.Fatal(err)
			}
			var repaired []string
			for _, c := range rep.Commands {
				if c.Reason != "Unhealthy" {
					t.Errorf("command %+v is not node repair's", c)
					continue
				}
				repaired = append(repaired, c.Nodes...)
				if len(c.Replacements) != 1 || len(c.Replacements[0].Pods) != 1 {
					t.Errorf("repair of %v launches %+v; want one replacement for its pod", c.Nodes, c.Replacements)
				}
				if !strings.HasPrefix(c.Detail, "unhealthy: ") {
					t.Errorf("detail %q does not say why", c.Detail)
				}
			}
			if !slices.Equal(repaired, tc.repaired) {
				t.Errorf("repaired %v, want %v", repaired, tc.repaired)
			}
			kept := map[string]string{}
			for _, k := range rep.Kept {
				kept[k.Node] = k.Reason
			}
			for node, want := range tc.kept {
				if kept[node] != want {
					t.Errorf("%s kept because %q, want %q", node, kept[node], want)
				}
			}
		})
	}
}
