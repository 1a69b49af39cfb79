// Package policysync is the agent's pull mode: where no ArgoCD or Flux runs, it keeps the
// cluster's tenon.dev policy (NodePools, NodeClasses, Provisioners) equal to a folder of a Git
// repository.
//
// Every interval a Syncer fetches the branch (engine/gitops), reads and validates every object
// under the path, and then, only if the whole commit is valid:
//
//  1. dry-runs a server-side apply of every object, so that an object the API server refuses
//     (a CEL rule, a webhook) rejects the commit before anything is changed;
//  2. server-side applies every object with field manager "tenon-gitops", labelled
//     gitops.tenon.dev/sync=<name> so the Syncer knows what it owns;
//  3. deletes the objects carrying its label that are gone from Git (pruning).
//
// A bad commit (invalid YAML, an object the validation rejects, a kind other than tenon.dev's)
// applies nothing: the cluster keeps the last good commit's objects, and the status ConfigMap
// and a Warning event say which file, object and field is wrong. Fetch and authentication errors
// are retried with exponential backoff. A branch moved back to an older commit (a force-push) is
// applied as the new truth and reported loudly: an error-level log line and a Warning event.
//
// The status ConfigMap (<namespace>/<name>, data keys below) holds the last good commit, when it
// was synced, the objects it holds, and the last attempt's error; events are recorded on it.
package policysync
