package convert

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

// examplesDir holds the Karpenter inputs the docs use.
const examplesDir = "../../examples/convert"

// exampleInputs reads examples/convert/*.yaml, named as the docs name them.
func exampleInputs(t *testing.T) map[string]Input {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(examplesDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples in %s: %v", examplesDir, err)
	}
	out := map[string]Input{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(p), ".yaml")
		out[base] = Input{Name: "examples/convert/" + filepath.Base(p), Data: data}
	}
	return out
}

// TestGolden converts each example to HCL (with import blocks) and YAML and
// compares with testdata/golden; go test -run TestGolden -update rewrites
// them. It also checks that the HCL parses, is formatted, and is the same
// on every run.
func TestGolden(t *testing.T) {
	for base, in := range exampleInputs(t) {
		t.Run(base, func(t *testing.T) {
			res, err := Convert([]Input{in}, Options{ClusterName: "prod"})
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			var hclOut, yamlOut bytes.Buffer
			if err := WriteHCL(&hclOut, res, HCLOptions{Import: true}); err != nil {
				t.Fatal(err)
			}
			if err := WriteYAML(&yamlOut, res); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "golden", base+".tf"), hclOut.Bytes())
			checkGolden(t, filepath.Join("testdata", "golden", base+".yaml"), yamlOut.Bytes())

			if _, diags := hclparse.NewParser().ParseHCL(hclOut.Bytes(), base+".tf"); diags.HasErrors() {
				t.Errorf("HCL does not parse: %v", diags)
			}
			if formatted := hclwrite.Format(hclOut.Bytes()); !bytes.Equal(formatted, hclOut.Bytes()) {
				t.Errorf("HCL is not formatted as terraform fmt would")
			}
			again, err := Convert([]Input{in}, Options{ClusterName: "prod"})
			if err != nil {
				t.Fatal(err)
			}
			var hclAgain bytes.Buffer
			if err := WriteHCL(&hclAgain, again, HCLOptions{Import: true}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(hclOut.Bytes(), hclAgain.Bytes()) {
				t.Errorf("two conversions of the same input differ")
			}
			checkRoundTrip(t, res, yamlOut.Bytes())
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/convert -run TestGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test ./engine/convert -run TestGolden -update rewrites it after review); got:\n%s", path, got)
	}
}

// checkRoundTrip reads the YAML output back strictly into the tenon.dev
// types, validates every object, and compares it with the converted one.
func checkRoundTrip(t *testing.T, res *Result, out []byte) {
	t.Helper()
	docs := strings.Split(string(out), "\n---\n")[1:]
	if len(docs) != len(res.Objects) {
		t.Fatalf("YAML has %d documents, want %d", len(docs), len(res.Objects))
	}
	for i, doc := range docs {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var validate func() field.ErrorList
		var decoded any
		switch head.Kind {
		case "NodePool":
			np := &v1.NodePool{}
			decoded, validate = np, np.Validate
		case "NodeClass":
			nc := &v1.NodeClass{}
			decoded, validate = nc, nc.Validate
		case "Provisioner":
			p := &v1alpha5.Provisioner{}
			decoded, validate = p, p.Validate
		case "NodeOverlay":
			o := &v1.NodeOverlay{}
			decoded, validate = o, o.Validate
		default:
			t.Fatalf("document %d: unexpected kind %q", i+1, head.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), decoded); err != nil {
			t.Fatalf("document %d does not decode strictly into %s: %v", i+1, head.Kind, err)
		}
		if errs := validate(); len(errs) > 0 {
			t.Errorf("document %d (%s) is invalid: %v", i+1, head.Kind, errs)
		}
		want, _ := json.Marshal(res.Objects[i].Value)
		got, _ := json.Marshal(decoded)
		if string(want) != string(got) {
			t.Errorf("document %d reads back as\n%s\nwant\n%s", i+1, got, want)
		}
	}
}
