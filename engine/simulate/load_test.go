package simulate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// workloadsDir is ../shared/workloads from the repository root.
const workloadsDir = "../../../shared/workloads"

func workloadFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(workloadsDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("SKIPPING: no scenario files in ../shared/workloads (relative to the repository root); the loader is untested against the reference workloads")
	}
	return files
}

// TestLoadEveryWorkload reads every reference scenario as it is and checks
// the pod counts and names its README promises.
func TestLoadEveryWorkload(t *testing.T) {
	wantPods := map[string]int{
		"w1": 1000, "w1-spot": 1000, "w2": 5000, "w2-spot": 5000, "w3": 1000, "w3-spot": 1000,
		"diverse-1k": 1000, "diverse-5k": 5000, "diverse-20k": 20000, "example-features": 16,
	}
	podName := regexp.MustCompile(`^default/[a-z0-9-]+-[0-9]+$`)
	for _, file := range workloadFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			s, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: loaded in %v", name, time.Since(start))
			if s.Name != name || s.Region != "us-east-1" || len(s.Zones) != 3 {
				t.Errorf("header: name %q region %q zones %v", s.Name, s.Region, s.Zones)
			}
			pending := snap.PendingPods()
			if want, ok := wantPods[name]; ok && len(pending) != want {
				t.Errorf("pending pods = %d, want %d", len(pending), want)
			}
			for _, p := range pending {
				if !podName.MatchString(p.Key()) {
					t.Fatalf("pod %s is not named <workload>-<n>", p.Key())
				}
				if p.Requests.Cpu().IsZero() || p.Requests.Memory().IsZero() || p.Requests.Pods().Value() != 1 {
					t.Fatalf("pod %s requests %v", p.Key(), p.Requests)
				}
			}
			if len(snap.Pools) != 1 || snap.Pools[0].Name != "default" || len(snap.Pools[0].InstanceTypes) == 0 {
				t.Errorf("pools = %v", snap.Pools)
			}
		})
	}
}

// Loading speed is measured by BenchmarkLoad (make bench), never asserted
// here: a wall-clock limit in a unit test fails on a busy machine for
// reasons that have nothing to do with the code.

func BenchmarkLoad(b *testing.B) {
	file := filepath.Join(workloadsDir, "diverse-20k.yaml")
	if _, err := os.Stat(file); err != nil {
		b.Skipf("SKIPPING: %s is absent", file)
	}
	for b.Loop() {
		if _, err := Load(file); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	file := filepath.Join(workloadsDir, "diverse-20k.yaml")
	if _, err := os.Stat(file); err != nil {
		b.Skipf("SKIPPING: %s is absent", file)
	}
	s, err := Load(file)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPodsAreCreatedInFileOrder: pods without a creationTimestamp get one
// in the order of the file (a workload's pods in index order), and a pod
// that carries one keeps it, so kube-scheduler's queue order is known.
func TestPodsAreCreatedInFileOrder(t *testing.T) {
	data := `apiVersion: v1
kind: Pod
metadata: {name: z}
spec:
  containers: [{name: c}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  replicas: 2
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: stamped, creationTimestamp: "2024-01-02T03:04:05Z"}
spec:
  containers: [{name: c}]
`
	s, err := Parse(File{Name: "order.yaml", Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	created := map[string]time.Time{}
	for _, p := range s.Objects.Pods {
		created[p.Name] = p.CreationTimestamp.Time
	}
	order := []string{"z", "d-0", "d-1", "a", "stamped"}
	for i := 1; i < len(order); i++ {
		if !created[order[i-1]].Before(created[order[i]]) {
			t.Errorf("%s created at %v, not before %s at %v", order[i-1], created[order[i-1]], order[i], created[order[i]])
		}
	}
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !created["stamped"].Equal(want) {
		t.Errorf("stamped pod created at %v, want its own %v", created["stamped"], want)
	}
}
