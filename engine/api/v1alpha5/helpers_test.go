package v1alpha5_test

import (
	"encoding/json"
	"os"
	"sync"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crdtest"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// crdValidator compiles the generated Provisioner CRD once for all tests.
var crdValidator = sync.OnceValues(func() (*crdtest.Validator, error) {
	data, err := os.ReadFile("../crds/tenon.dev_provisioners.yaml")
	if err != nil {
		return nil, err
	}
	return crdtest.NewValidator(data, v1alpha5.Version)
})

func provisionerCRD(t *testing.T) *crdtest.Validator {
	t.Helper()
	v, err := crdValidator()
	if err != nil {
		t.Fatalf("loading the Provisioner CRD: %v", err)
	}
	return v
}

func readYAML(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// decodeProvisioner decodes YAML strictly, so a test with a misspelt field fails loudly.
func decodeProvisioner(t *testing.T, data []byte) *v1alpha5.Provisioner {
	t.Helper()
	var p v1alpha5.Provisioner
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		t.Fatalf("decoding the Provisioner: %v\n%s", err, data)
	}
	return &p
}

// toMap is the object as a client built on the Go types sends it to the API server, decoded
// as the API server decodes it (integers as int64).
func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// mergePatch applies a JSON merge patch (RFC 7386): maps merge, null deletes, anything else
// replaces.
func mergePatch(base, patch map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, pv := range patch {
		if pv == nil {
			delete(out, k)
			continue
		}
		pm, pIsMap := pv.(map[string]any)
		bm, bIsMap := out[k].(map[string]any)
		if pIsMap && bIsMap {
			out[k] = mergePatch(bm, pm)
		} else {
			out[k] = pv
		}
	}
	return out
}

func yamlToMap(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatalf("decoding YAML: %v\n%s", err, data)
	}
	return out
}

func mapToYAML(t *testing.T, m map[string]any) []byte {
	t.Helper()
	data, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
