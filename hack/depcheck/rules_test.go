package main

import (
	"testing"
)

func TestCheck(t *testing.T) {
	const m = module + "/"
	tests := []struct {
		name string
		pkg  Package
		want []string // rule names violated
	}{
		{
			name: "pure package importing client-go transitively",
			pkg:  Package{ImportPath: m + "engine/packing", Deps: []string{"k8s.io/apimachinery/pkg/api/resource", "k8s.io/client-go/kubernetes"}},
			want: []string{"pure-engine"},
		},
		{
			name: "pure package importing terraform",
			pkg:  Package{ImportPath: m + "engine/scheduling/sub", Deps: []string{"github.com/hashicorp/terraform-plugin-framework/path"}},
			want: []string{"engine-no-provider", "pure-engine"},
		},
		{
			name: "engine importing the provider",
			pkg:  Package{ImportPath: m + "engine/simulate", Deps: []string{m + "provider"}},
			want: []string{"engine-no-provider"},
		},
		{
			name: "agent may use client-go",
			pkg:  Package{ImportPath: m + "engine/agent", Imports: []string{"k8s.io/client-go/kubernetes"}, Deps: []string{"k8s.io/client-go/kubernetes"}},
		},
		{
			name: "simulate must not use client-go directly",
			pkg:  Package{ImportPath: m + "engine/simulate", Imports: []string{"sigs.k8s.io/controller-runtime/pkg/client"}},
			want: []string{"api-server-access"},
		},
		{
			name: "aws sdk outside engine/cloud/aws",
			pkg:  Package{ImportPath: m + "engine/cloud/kwok", Imports: []string{"github.com/aws/aws-sdk-go-v2/service/ec2"}},
			want: []string{"aws-sdk"},
		},
		{
			name: "aws sdk inside engine/cloud/aws",
			pkg:  Package{ImportPath: m + "engine/cloud/aws", Imports: []string{"github.com/aws/aws-sdk-go-v2/service/ec2"}},
		},
		{
			name: "go-git outside engine/gitops",
			pkg:  Package{ImportPath: m + "provider", Imports: []string{"github.com/go-git/go-git/v5"}},
			want: []string{"go-git"},
		},
		{
			name: "manifest reading pulling client-go in",
			pkg:  Package{ImportPath: m + "engine/manifest", Imports: []string{"k8s.io/apimachinery/pkg/runtime/schema"}, Deps: []string{"k8s.io/client-go/rest"}},
			want: []string{"offline-manifest"},
		},
		{
			name: "main wires everything transitively",
			pkg:  Package{ImportPath: module, Imports: []string{m + "provider"}, Deps: []string{"github.com/go-git/go-git/v5", "k8s.io/client-go/kubernetes"}},
		},
		{
			name: "packages outside the module are not checked",
			pkg:  Package{ImportPath: "example.com/engine/packing", Deps: []string{"k8s.io/client-go/kubernetes"}},
		},
		{
			name: "a prefix that only looks like a pure package",
			pkg:  Package{ImportPath: m + "engine/packingtools", Deps: []string{"k8s.io/client-go/kubernetes"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]bool{}
			for _, v := range Check([]Package{tt.pkg}, Rules()) {
				got[v.Rule] = true
			}
			if len(got) != len(tt.want) {
				t.Fatalf("violated %v, want %v", keys(got), tt.want)
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Fatalf("violated %v, want %v", keys(got), tt.want)
				}
			}
		})
	}
}

// TestModuleFollowsRules runs the real `go list` over this module.
func TestModuleFollowsRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	pkgs, err := listPackages(module + "/...")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 2 {
		t.Fatalf("go list found %d packages; expected the whole module", len(pkgs))
	}
	for _, v := range Check(pkgs, Rules()) {
		t.Error(v)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
