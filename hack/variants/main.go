// Command variants writes scenario files of the shared workloads' kinds
// (../shared/workloads: w1's mix of requests, w4's with DaemonSets, w5's
// memory-heavy apps) with other seeds and sizes, so `make bench` judges
// the engine on workloads it was not tuned on as well. For each seed and
// kind it writes three files with the same pods: <kind>-s<seed>.yaml (a
// NodePool allowing every amd64 on-demand type), -cmr.yaml (limited as
// Karpenter's getting-started NodePool is: categories c, m and r,
// generation above 2) and -spot.yaml (spot allowed too), which benchtable
// pairs to check that a wider pool costs no more than a narrower one.
// Files are deterministic for a seed.
//
//	go run ./hack/variants -out bin/variants -seeds 101,102,103
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

func main() {
	out := flag.String("out", "bin/variants", "the `directory` to write the scenario files to")
	seeds := flag.String("seeds", "101,102,103", "comma-separated `seeds`, one file of each kind and pool per seed")
	flag.Parse()
	list, err := parseSeeds(*seeds)
	if err == nil {
		err = write(*out, list)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "variants: %v\n", err)
		os.Exit(1)
	}
}

// parseSeeds reads a comma-separated list of non-negative integers.
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds: %q is not a non-negative integer (write e.g. -seeds 101,102)", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// pools are the NodePool variants, by file suffix.
var pools = []string{"", "-cmr", "-spot"}

// kinds are the workload kinds, in the order files are written.
var kinds = []string{"w1", "w4", "w5"}

// write writes every kind and pool variant of each seed into dir.
func write(dir string, seeds []uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, seed := range seeds {
		for k, kind := range kinds {
			w := generate(kind, rand.New(rand.NewPCG(seed, uint64(k))))
			for _, pool := range pools {
				name := fmt.Sprintf("%s-s%d%s", kind, seed, pool)
				if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(w.render(name, pool)), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// deployment is one app: replicas pods of the same requests.
type deployment struct {
	name, cpu, memory string
	replicas          int
}

// daemonSet is one DaemonSet, on every node or, with a zone, on that
// zone's nodes only.
type daemonSet struct {
	name, cpu, memory, zone string
}

// workload is one kind's pods.
type workload struct {
	about   string
	pods    int
	apps    []deployment
	daemons []daemonSet
}

var (
	cpus     = []string{"100m", "250m", "500m", "1000m", "2000m", "4000m"}
	memories = []string{"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"}
	zones    = []string{"us-east-1a", "us-east-1b", "us-east-1c"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// generate draws a workload of kind:
//   - w1: 500-3,000 pods, cpu and memory drawn per pod from w1's sets, one
//     Deployment per distinct pair;
//   - w4: 1,000-3,000 pods of w1's mix and 3-6 DaemonSets of 10-150m and
//     32-256Mi, one of them (half the time) on one zone's nodes only;
//   - w5: 800-2,500 pods in apps of 5-60 replicas, cpu in {500m, 1, 2, 4}
//     and 6-12 GiB of memory per requested core.
func generate(kind string, r *rand.Rand) workload {
	var w workload
	switch kind {
	case "w1", "w4":
		w.pods = 500 + r.IntN(2501)
		if kind == "w4" {
			w.pods = 1000 + r.IntN(2001)
		}
		count := map[[2]int]int{}
		for range w.pods {
			count[[2]int{r.IntN(len(cpus)), r.IntN(len(memories))}]++
		}
		keys := make([][2]int, 0, len(count))
		for k := range count {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [2]int) int { return (a[0]*len(memories) + a[1]) - (b[0]*len(memories) + b[1]) })
		for _, k := range keys {
			w.apps = append(w.apps, deployment{
				name: strings.ToLower(fmt.Sprintf("cpu%s-mem%s", cpus[k[0]], memories[k[1]])), cpu: cpus[k[0]], memory: memories[k[1]], replicas: count[k],
			})
		}
		w.about = fmt.Sprintf("%d pods, cpu uniform over {100m,250m,500m,1,2,4} x memory uniform over {128Mi,512Mi,1Gi,2Gi,4Gi,8Gi}", w.pods)
		if kind == "w4" {
			for i := range 3 + r.IntN(4) {
				d := daemonSet{name: fmt.Sprintf("daemon-%d", i), cpu: pick(r, []string{"10m", "25m", "50m", "100m", "150m"}), memory: pick(r, []string{"32Mi", "64Mi", "128Mi", "200Mi", "256Mi"})}
				if i == 0 && r.IntN(2) == 0 {
					d.zone = pick(r, zones)
				}
				w.daemons = append(w.daemons, d)
			}
			w.about += fmt.Sprintf(", %d DaemonSets", len(w.daemons))
		}
	case "w5":
		target := 800 + r.IntN(1701)
		for i := 0; w.pods < target; i++ {
			milli := pick(r, []int{500, 1000, 2000, 4000})
			perCore := 6 + 6*r.Float64()
			n := min(5+r.IntN(56), target-w.pods)
			w.apps = append(w.apps, deployment{
				name: fmt.Sprintf("cache-%02d", i), cpu: fmt.Sprintf("%dm", milli), memory: fmt.Sprintf("%dMi", int(float64(milli)*perCore*1024/1000)), replicas: n,
			})
			w.pods += n
		}
		w.about = fmt.Sprintf("%d memory-heavy pods in %d apps of 5-60 replicas, cpu in {500m,1,2,4}, 6-12 GiB of memory per requested core", w.pods, len(w.apps))
	}
	return w
}

// render is the scenario file of w named name, with the NodePool of pool
// ("", "-cmr" or "-spot").
func (w workload) render(name, pool string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Tenon scenario %q, generated by hack/variants. Do not edit.\n# %s.\n", name, w.about)
	fmt.Fprintf(&b, `apiVersion: tenon.dev/v1alpha1
kind: Scenario
metadata:
  name: %s
spec:
  region: us-east-1
  zones: [%s]
  catalog: embedded
---
apiVersion: tenon.dev/v1
kind: NodeClass
metadata:
  name: default
spec:
  kwok: {}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef:
        group: tenon.dev
        kind: NodeClass
        name: default
      requirements:
        - key: tenon.dev/capacity-type
          operator: In
          values: [%s]
        - key: kubernetes.io/arch
          operator: In
          values: [amd64]
        - key: topology.kubernetes.io/zone
          operator: In
          values: [%s]
`, name, strings.Join(zones, ", "), map[bool]string{false: "on-demand", true: "spot, on-demand"}[pool == "-spot"], strings.Join(zones, ", "))
	if pool == "-cmr" {
		b.WriteString(`        - key: tenon.dev/instance-category
          operator: In
          values: [c, m, r]
        - key: tenon.dev/instance-generation
          operator: Gt
          values: ["2"]
`)
	}
	for _, d := range w.daemons {
		d.write(&b)
	}
	for _, a := range w.apps {
		a.write(&b)
	}
	return b.String()
}

// write adds d as a YAML document.
func (d daemonSet) write(b *strings.Builder) {
	selector := ""
	if d.zone != "" {
		selector = fmt.Sprintf("      nodeSelector:\n        topology.kubernetes.io/zone: %s\n", d.zone)
	}
	fmt.Fprintf(b, `---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: %[1]s
  namespace: kube-system
spec:
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
%[4]s      containers:
        - name: %[1]s
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: %[2]s
              memory: %[3]s
`, d.name, d.cpu, d.memory, selector)
}

// write adds a as a YAML document.
func (a deployment) write(b *strings.Builder) {
	fmt.Fprintf(b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: default
spec:
  replicas: %[4]d
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources:
            requests:
              cpu: %[2]s
              memory: %[3]s
`, a.name, a.cpu, a.memory, a.replicas)
}
