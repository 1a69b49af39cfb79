package main

import (
	"fmt"
	"sort"
	"strings"
)

const module = "github.com/tenonhq/terraform-provider-tenon"

// Package is the part of `go list -json` output the rules look at.
type Package struct {
	ImportPath string
	Imports    []string // direct imports
	Deps       []string // every transitive dependency
}

// Rule forbids packages matching Forbidden. When Transitive is set the rule
// holds for the whole dependency closure of the packages it Applies to,
// otherwise only for their direct imports. Allowed packages are exempt.
type Rule struct {
	Name       string
	AppliesTo  []string // package path prefixes (module-relative, "" = whole module)
	Allowed    []string // module-relative prefixes exempt from the rule
	Forbidden  []string // import path prefixes
	Transitive bool
	Why        string
}

// Violation is one broken rule: Package imports (or depends on) Import.
type Violation struct {
	Rule    string
	Package string
	Import  string
	Why     string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s must not import %s (%s)", v.Rule, v.Package, v.Import, v.Why)
}

// pureEngine are the decision packages of DESIGN §3: pure functions of values.
var pureEngine = []string{
	"engine/packing", "engine/consolidation", "engine/scheduling", "engine/catalog", "engine/state", "engine/static", "engine/overlay", "engine/buffer", "engine/deletioncost",
}

var (
	kubeClients  = []string{"k8s.io/client-go", "sigs.k8s.io/controller-runtime"}
	awsSDK       = []string{"github.com/aws/aws-sdk-go-v2", "github.com/aws/smithy-go"}
	goGit        = []string{"github.com/go-git/"}
	terraformSDK = []string{"github.com/hashicorp/terraform-", "github.com/opentofu/"}
)

// Rules are DESIGN §3's dependency rules.
func Rules() []Rule {
	return []Rule{
		{
			Name: "pure-engine", AppliesTo: pureEngine, Transitive: true,
			Forbidden: concat(kubeClients, awsSDK, goGit, terraformSDK),
			Why:       "the engine's decision packages are pure functions of values (DESIGN §3)",
		},
		{
			Name: "offline-manifest", AppliesTo: []string{"engine/manifest"}, Transitive: true,
			Forbidden: concat(kubeClients, awsSDK, goGit, terraformSDK),
			Why:       "engine/manifest reads bytes for the offline commands and engine/gitops; it talks to no cluster, cloud or repository",
		},
		{
			Name: "engine-no-provider", AppliesTo: []string{"engine"}, Transitive: true,
			Forbidden: concat([]string{module + "/provider"}, terraformSDK),
			Why:       "provider/ imports the engine, never the reverse",
		},
		{
			Name: "api-server-access", AppliesTo: []string{""}, Forbidden: kubeClients,
			Allowed: []string{"engine/agent", "engine/cloud/kwok", "provider", "hack", "tools"},
			Why:     "only engine/agent, the KWOK cloud provider and the provider's kubernetes delivery talk to the API server",
		},
		{
			Name: "aws-sdk", AppliesTo: []string{""}, Forbidden: awsSDK,
			Allowed: []string{"engine/cloud/aws"},
			Why:     "only engine/cloud/aws imports the AWS SDK",
		},
		{
			Name: "go-git", AppliesTo: []string{""}, Forbidden: goGit,
			Allowed: []string{"engine/gitops"},
			Why:     "only engine/gitops imports go-git",
		},
	}
}

// Check returns every violation of rules among pkgs, sorted.
func Check(pkgs []Package, rules []Rule) []Violation {
	var out []Violation
	for _, r := range rules {
		for _, p := range pkgs {
			rel, ok := relative(p.ImportPath)
			if !ok || !underAny(rel, r.AppliesTo) || underAny(rel, r.Allowed) {
				continue
			}
			imports := p.Imports
			if r.Transitive {
				imports = p.Deps
			}
			for _, imp := range imports {
				if hasAnyPrefix(imp, r.Forbidden) {
					out = append(out, Violation{Rule: r.Name, Package: p.ImportPath, Import: imp, Why: r.Why})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// relative strips the module path; packages outside the module are not ours.
func relative(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(importPath, module+"/")
	return rel, ok
}

// underAny reports whether rel is one of dirs or below one; "" matches all.
func underAny(rel string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" || rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
