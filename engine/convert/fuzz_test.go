package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// FuzzConvert feeds arbitrary YAML to Convert (seeded with the examples
// and the injections of issue 20) and checks the semantics of what it
// accepts (checkOutputs): the HCL holds exactly one resource block per
// object converted, plus its import block, and nothing else (no data,
// provider or locals block), each with exactly the attributes its object's
// mapped fields give; the YAML holds exactly the objects; every header line
// is a comment. go test runs the seeds; `make test` fuzzes it for a bounded
// time, `make fuzz` longer.
func FuzzConvert(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	recipes, _ := filepath.Glob(filepath.Join(examplesDir, "recipes", "*.yaml"))
	for _, p := range append(paths, recipes...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p}\nspec: {template: {spec: {nodeClassRef: {name: [1]}}}}\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems: [1, {kind: NodePool}]\n"))
	for _, s := range injections {
		key, _ := json.Marshal(s)
		f.Add([]byte(fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np, annotations: {%s: v}}\nspec:\n  %s: 1\n  template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}}\n", key, key)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Convert([]Input{{Name: "fuzz.yaml", Data: data}}, Options{ClusterName: "c"})
		if err != nil {
			for _, e := range manifest.Flatten(err) {
				var me *manifest.Error
				if !errors.As(e, &me) {
					t.Fatalf("Convert returned %T, want *manifest.Errors: %v", e, e)
				}
			}
			return
		}
		checkOutputs(t, res)
	})
}
