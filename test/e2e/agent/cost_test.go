package agent_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestCostOnTheObjects: once the pods run, every NodeClaim records its offering's price, the
// NodePool the sum of its claims' prices, `kubectl get` prints both, and the agent serves the
// pool's cost by capacity type — all equal to the catalog's prices of the nodes launched.
func TestCostOnTheObjects(t *testing.T) {
	e := require(t)
	pool := "priced"
	ns := namespace(t, e, pool)
	apply(t, e, ns, kwokClass(pool)+"\n---\n"+poolYAML(pool, pool, ""))
	agentProc := startAgent(t, e, pool)
	cleanupPool(t, e, ns, pool)
	apply(t, e, ns, deploymentYAML(pool, pool, 4, "1500m"))
	waitFor(t, 60*time.Second, "4 pods Running", func() (bool, string) {
		running, total, states := runningOn(t, e, ns, "app="+pool, pool)
		return running == 4 && total == 4, states
	})
	want := poolCost(t, e, pool)
	waitFor(t, 30*time.Second, fmt.Sprintf("claims and pool priced at $%.4f/h", want), func() (bool, string) {
		sum := 0.0
		var prices []string
		for _, c := range poolClaims(t, e, pool) {
			p, err := strconv.ParseFloat(c.Status.PricePerHour, 64)
			if err != nil {
				return false, fmt.Sprintf("claim %s has price %q", c.Name, c.Status.PricePerHour)
			}
			sum += p
			prices = append(prices, c.Status.PricePerHour)
		}
		np := &v1.NodePool{}
		if err := e.client.Get(context.Background(), client.ObjectKey{Name: pool}, np); err != nil {
			return false, err.Error()
		}
		got, _ := strconv.ParseFloat(np.Status.CostPerHour, 64)
		return math.Abs(sum-want) < 1e-3 && math.Abs(got-want) < 1e-3,
			fmt.Sprintf("claims %v (sum %.4f), pool status %q", prices, sum, np.Status.CostPerHour)
	})
	metric := gauges(t, agentProc.metricsAddr, "tenon_nodepool_cost_per_hour")
	if got := metric[`capacity_type="on-demand",nodepool="`+pool+`"`]; math.Abs(got-want) > 1e-3 {
		t.Errorf("tenon_nodepool_cost_per_hour = %v, want %.4f for the pool's on-demand nodes", metric, want)
	}
	for _, kind := range []string{"nodeclaims", "nodepools"} {
		out, err := exec.Command(e.cp.Kubectl(), "--kubeconfig", e.cp.Kubeconfig, "get", kind).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl get %s: %v\n%s", kind, err, out)
		}
		header := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
		if !strings.Contains(strings.Join(header, " "), map[string]string{"nodeclaims": "PRICE", "nodepools": "COST"}[kind]) {
			t.Errorf("kubectl get %s prints no price column: %v", kind, header)
		}
	}
	t.Logf("pool %s: $%.4f/h on %v, as recorded on its claims, its status and its metric", pool, want, instanceTypes(poolNodes(t, e, pool)))
}

// gauges reads a metric's series as label set → value.
func gauges(t *testing.T, addr, name string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 10<<20))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name+"{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("metric %s{%s}: %v", name, labels, err)
		}
		out[labels] = v
	}
	return out
}
