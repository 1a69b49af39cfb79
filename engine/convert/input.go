package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// Input is one file to convert: its name as messages give it (its path, or
// "<stdin>") and its content, multi-document YAML or JSON.
type Input = manifest.File

// karpenterKinds are the kinds tenon convert reads, in the order messages
// list them; convertDocument converts each.
var karpenterKinds = &manifest.Scheme{
	Kinds: []manifest.Kind{
		{APIVersion: "karpenter.sh/v1alpha5", Kind: "Provisioner"},
		{APIVersion: "karpenter.sh/v1beta1", Kind: "NodePool"},
		{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		{APIVersion: "karpenter.k8s.aws/v1beta1", Kind: "EC2NodeClass"},
		{APIVersion: "karpenter.k8s.aws/v1", Kind: "EC2NodeClass"},
		{APIVersion: "karpenter.k8s.aws/v1alpha1", Kind: "AWSNodeTemplate"},
		{APIVersion: "karpenter.sh/v1alpha1", Kind: "NodeOverlay"},
		{APIVersion: "autoscaling.x-k8s.io/v1alpha1", Kind: "CapacityBuffer"},
		{APIVersion: "autoscaling.x-k8s.io/v1beta1", Kind: "CapacityBuffer"},
		// Read only for the CapacityBuffers that refer to them (their pods' shape).
		{APIVersion: "v1", Kind: "PodTemplate"},
		{APIVersion: "apps/v1", Kind: "Deployment"},
		{APIVersion: "apps/v1", Kind: "StatefulSet"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet"},
	},
	Source:    "by tenon convert",
	Elsewhere: "leave it out of the input; tenon convert reads Karpenter's policy objects",
	Refused:   []manifest.Refusal{{Group: v1.Group, Why: "already a Tenon object; apply it as it is"}},
}

// source is one input document: where it is, and its content as plain JSON
// values (numbers kept as json.Number) for the walker.
type source struct {
	*manifest.Document
	raw map[string]any
}

// sources splits an input into its documents (Lists unpacked) and decodes
// each into plain JSON values.
func sources(in Input) ([]*source, error) {
	docs, err := manifest.Split(in)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, manifest.NoObjects(in, "tenon convert reads Karpenter Provisioners, NodePools, EC2NodeClasses, AWSNodeTemplates and NodeOverlays, and CapacityBuffers")
	}
	out := make([]*source, 0, len(docs))
	for _, d := range docs {
		dec := json.NewDecoder(bytes.NewReader(d.Raw))
		dec.UseNumber()
		var raw map[string]any
		if err := dec.Decode(&raw); err != nil {
			return nil, d.Errorf("", "malformed document: %v", err)
		}
		out = append(out, &source{Document: d, raw: raw})
	}
	return out, nil
}

// clusterNamePlaceholders are the spellings Karpenter's documentation uses
// for the cluster name in manifests meant for envsubst.
var clusterNamePlaceholders = []string{"${CLUSTER_NAME}", "$CLUSTER_NAME"}

// substitute replaces the cluster-name placeholders in every string (keys
// included) of v with name, and returns the paths where a placeholder stays
// because name is empty.
func substitute(v any, name string, path string, left *[]string) any {
	switch t := v.(type) {
	case string:
		return substituteString(t, name, path, left)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			key := substituteString(k, name, path+"."+k, left)
			out[key] = substitute(e, name, path+"."+k, left)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = substitute(e, name, fmt.Sprintf("%s[%d]", path, i), left)
		}
		return out
	}
	return v
}

func substituteString(s, name, path string, left *[]string) string {
	for _, p := range clusterNamePlaceholders {
		if !strings.Contains(s, p) {
			continue
		}
		if name == "" {
			*left = append(*left, strings.TrimPrefix(path, "."))
			return s
		}
		s = strings.ReplaceAll(s, p, name)
	}
	return s
}
