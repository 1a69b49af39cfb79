package simulate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TestReservedCapacityExample: `tenon simulate --example reserved-capacity`
// launches the pending web pods into the m5.2xlarge reservation at a
// near-zero price and leaves the GPU capacity block alone; with
// --consolidate the on-demand api node moves into the reservation.
func TestReservedCapacityExample(t *testing.T) {
	out, stderr, code := runCLI(t, "--example", "reserved-capacity", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var rep struct {
		Nodes []struct {
			InstanceType string            `json:"instanceType"`
			CapacityType string            `json:"capacityType"`
			Price        float64           `json:"pricePerHour"`
			Existing     bool              `json:"existing"`
			Labels       map[string]string `json:"labels"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	reserved := 0
	for _, n := range rep.Nodes {
		if n.Existing {
			continue
		}
		if n.CapacityType != "reserved" || n.InstanceType != "m5.2xlarge" || n.Price > 1e-4 || n.Labels["tenon.dev/capacity-reservation-id"] != "cr-0a1b2c3d4e5f60718" {
			t.Errorf("new node %+v, want an m5.2xlarge in the reservation", n)
			continue
		}
		reserved++
	}
	if reserved != 2 {
		t.Errorf("%d nodes in the reservation, want 2 (four pods, two per node)", reserved)
	}

	out, stderr, code = runCLI(t, "--example", "reserved-capacity", "--consolidate")
	if code != ExitOK {
		t.Fatalf("--consolidate: exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"remove default-api ($0.3840/h)", "m5.2xlarge in us-east-1a, reserved", "saves $0.3840/h"} {
		if !strings.Contains(out, want) {
			t.Errorf("--consolidate output lacks %q:\n%s", want, out)
		}
	}
}

// A scenario's reservations are checked against the catalog and the
// zones, each error naming the field and the fix.
func TestScenarioReservationErrors(t *testing.T) {
	header := `apiVersion: tenon.dev/v1alpha1
kind: Scenario
metadata: {name: r}
spec:
  zones: [us-east-1a, us-east-1b]
  capacityReservations:
`
	tail := `---
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
`
	cases := []struct{ name, reservation, want string }{
		{"id", `    - {id: odcr-1, instanceType: m5.large, zone: us-east-1a, available: 1}`, "spec.capacityReservations[0].id: Invalid value: \"odcr-1\": id must be a capacity reservation ID such as cr-0123456789abcdef0"},
		{"type", `    - {id: cr-1, instanceType: m5.huge, zone: us-east-1a, available: 1}`, "spec.capacityReservations[0].instanceType: Invalid value: \"m5.huge\": no such instance type with a price in us-east-1"},
		{"zone", `    - {id: cr-1, instanceType: m5.large, zone: us-east-1c, available: 1}`, "spec.capacityReservations[0].zone: Unsupported value: \"us-east-1c\""},
		{"count", `    - {id: cr-1, instanceType: m5.large, zone: us-east-1a, available: -1}`, "spec.capacityReservations[0].available: Invalid value: -1: available must be 0 or more"},
		{"kind", `    - {id: cr-1, instanceType: m5.large, zone: us-east-1a, available: 1, type: block}`, "spec.capacityReservations[0].type: Unsupported value: \"block\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(File{Name: "r.yaml", Data: []byte(header + tc.reservation + "\n" + tail)})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "r.yaml") {
				t.Errorf("err = %v, want the file and %q", err, tc.want)
			}
		})
	}
}

// Selector terms pick reservations as EC2's filters would.
func TestSelects(t *testing.T) {
	r := ScenarioReservation{ID: "cr-1", Tags: map[string]string{"team": "ml"}, OwnerID: "111111111111"}
	for _, tc := range []struct {
		term string
		want bool
	}{
		{`{"id": "cr-1"}`, true}, {`{"id": "cr-2"}`, false},
		{`{"tags": {"team": "ml"}}`, true}, {`{"tags": {"team": "*"}}`, true}, {`{"tags": {"team": "web"}}`, false}, {`{"tags": {"env": "*"}}`, false},
		{`{"tags": {"team": "ml"}, "ownerID": "222222222222"}`, false}, {`{"instanceMatchCriteria": "open"}`, true}, {`{"instanceMatchCriteria": "targeted"}`, false},
	} {
		var term struct {
			ID                    string            `json:"id"`
			Tags                  map[string]string `json:"tags"`
			OwnerID               string            `json:"ownerID"`
			InstanceMatchCriteria string            `json:"instanceMatchCriteria"`
		}
		if err := json.Unmarshal([]byte(tc.term), &term); err != nil {
			t.Fatal(err)
		}
		if got := selects(selectorTerm(term.ID, term.Tags, term.OwnerID, term.InstanceMatchCriteria), r); got != tc.want {
			t.Errorf("%s selects %v, want %v", tc.term, got, tc.want)
		}
	}
}

func selectorTerm(id string, tags map[string]string, owner, criteria string) v1.CapacityReservationSelectorTerm {
	return v1.CapacityReservationSelectorTerm{ID: id, Tags: tags, OwnerID: owner, InstanceMatchCriteria: criteria}
}

// TestReservedCapacityExampleFiles runs examples/reserved-capacity (with
// --check): the GPU pods go into the capacity block, the web pods fill the
// web reservation and the room left, the other team's reservation is not
// used, and with more web pods than the reservations hold the rest are
// bought.
func TestReservedCapacityExampleFiles(t *testing.T) {
	requirePacking(t)
	dir := filepath.Join("..", "..", "examples", "reserved-capacity")
	run := func(t *testing.T, files ...string) Report {
		t.Helper()
		args := []string{"-o", "json", "--check"}
		for _, f := range files {
			args = append(args, "-f", f)
		}
		out, stderr, code := runCLI(t, args...)
		if code != ExitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr)
		}
		var rep Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	count := func(rep Report) (byReservation map[string]int, paid int) {
		byReservation = map[string]int{}
		for _, n := range rep.Nodes {
			if id := n.Labels["tenon.dev/capacity-reservation-id"]; id != "" {
				byReservation[id]++
			} else {
				paid++
			}
		}
		return byReservation, paid
	}
	rep := run(t, filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "workload.yaml"))
	got, paid := count(rep)
	if got["cr-0a1b2c3d4e5f60718"] != 2 || got["cr-0fedcba9876543210"] != 2 || got["cr-0123456789abcdef0"] != 0 || paid != 0 || len(rep.Unschedulable) != 0 {
		t.Errorf("reservations used %v, %d paid nodes, %d unschedulable; want both selected reservations full and nothing bought", got, paid, len(rep.Unschedulable))
	}
	for _, n := range rep.Nodes {
		if n.InstanceType == "g5.2xlarge" && !slices.ContainsFunc(n.Pods, func(p string) bool { return strings.HasPrefix(p, "default/train-") }) {
			t.Errorf("capacity block node %s holds no training pod: %v", n.Name, n.Pods)
		}
	}
	workload, err := os.ReadFile(filepath.Join(dir, "workload.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	more := filepath.Join(t.TempDir(), "more.yaml")
	if err := os.WriteFile(more, []byte(strings.Replace(string(workload), "replicas: 8", "replicas: 20", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	got, paid = count(run(t, filepath.Join(dir, "policy.yaml"), more))
	if got["cr-0a1b2c3d4e5f60718"] != 2 || got["cr-0fedcba9876543210"] != 2 || paid == 0 {
		t.Errorf("with 20 web pods: reservations %v, %d paid nodes; want the reservations full and the rest bought", got, paid)
	}
}
