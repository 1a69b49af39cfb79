// Package gitops reads and writes Tenon policy in a Git repository, for the provider's git
// delivery target and the agent's pull mode. It is the only package that imports go-git.
//
// A Repository is a cached, shallow, bare copy of one branch of a remote: on disk under a cache
// folder, or in memory for tests. It keeps no worktree: a Reader reads files from the fetched
// commit's tree, and a Writer builds the next commit's tree object by object.
//
// Layout under Options.Path, as ArgoCD and Flux apply it:
//
//	kustomization.yaml        resources: [nodepool/general.yaml, nodeclass/default.yaml, ...]
//	nodepool/general.yaml     one object per file, keys sorted, a header saying Tenon manages it
//	nodeclass/default.yaml
//
// The Reader honours kustomization.yaml's resources list (files and folders with their own
// kustomization.yaml); without one it reads every .yaml, .yml and .json file under the path.
// Files may hold several YAML documents, read by engine/manifest as `tenon simulate` and
// `tenon convert` read theirs. Only tenon.dev kinds are accepted (policyKinds), each decoded
// strictly and checked with the same Go validation the CRDs' CEL rules mirror (engine/api); a
// commit with any bad document is rejected as a whole with a *CommitError listing every
// *manifest.Error, each naming file, object and field.
//
// The Writer applies a Change (objects to write, objects to delete) on the branch head, commits
// with the configured author and a message naming the objects changed, and pushes. When another
// writer pushed first it fetches, re-applies the Change on the new head and pushes again, a
// bounded number of times. It never force-pushes.
package gitops
