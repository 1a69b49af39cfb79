// Package manifest reads Kubernetes manifests: the scenario files of
// `tenon simulate` (engine/simulate), the Karpenter YAML of `tenon convert`
// (engine/convert) and the policy files of a Git repository
// (engine/gitops). It owns the rules the three share, so that each is
// written once and reports bad input the same way:
//
//   - Splitting a file into documents (Split): YAML documents separated by
//     `---` lines, or a stream of JSON values; documents holding only
//     comments are skipped; a duplicate key is an error, as it is for the API
//     server; syntax errors give their line counted from the top of the file.
//   - Unpacking lists: a List (apiVersion v1, kind List, as kubectl get -o
//     yaml writes several objects) or a top-level array stands for its
//     items.
//   - Deciding a document's kind against the Scheme of kinds a reader
//     accepts, and decoding it strictly into the kind's Go type as the API
//     server would (Scheme.Decode): field names case-sensitive, unknown and
//     duplicate fields rejected, a value of the wrong type located at its
//     field; namespaced kinds default to the "default" namespace,
//     cluster-scoped ones may not name one.
//   - Refusing an object defined twice among the files read together, and
//     naming the file an object came from in later messages (Origins).
//   - One error type, Error, that names the file, the object (kind,
//     namespace and name, or its place in the file when it has none) and the
//     field, with the fix where there is one:
//     `w.yaml: Deployment default/web: spec.replicaz: unknown field; remove
//     it or check its spelling (field names are case-sensitive)`.
//   - Reading the named files, "-" for standard input (ReadFiles).
//
// What a reader does with a decoded object is its own: validating it with
// engine/api, expanding workloads into pods, converting Karpenter fields.
//
// The package reads bytes and returns values. It imports apimachinery and
// the sigs.k8s.io JSON and YAML libraries, no client-go, so the offline
// commands and engine/gitops can share it (hack/depcheck keeps it so).
package manifest
