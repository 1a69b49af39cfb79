package policysync

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
)

// kinds are the kinds a Syncer applies and prunes.
var kinds = []schema.GroupVersionKind{
	v1.SchemeGroupVersion.WithKind(v1.NodeClassKind),
	v1.SchemeGroupVersion.WithKind(v1.NodePoolKind),
	v1alpha5.SchemeGroupVersion.WithKind(v1alpha5.ProvisionerKind),
	v1.SchemeGroupVersion.WithKind(v1.NodeOverlayKind),
}

// Syncer keeps the cluster's tenon.dev objects equal to a Git path. Use New, then Run (or
// Start, as a controller-runtime Runnable) or SyncOnce.
type Syncer struct {
	opts   Options
	client client.Client

	mu     sync.Mutex
	repo   *gitops.Repository
	auth   gitops.Auth
	status Status
	loaded bool
	// synced are the commits applied since start, newest last (at most maxHistory), to tell a
	// branch moved back to one of them.
	synced []string
	// events counts the events recorded, to name them uniquely.
	events int
	// retries paces the syncs after failures: client-go's per-item
	// exponential rate limiter, RetryBase doubling per consecutive failure
	// up to MaxBackoff, forgotten after a success.
	retries workqueue.TypedRateLimiter[string]
}

// retryItem is the one item retries counts the failures of: the sync.
const retryItem = "sync"

const maxHistory = 50

// New returns a Syncer applying through c. c should read from the API server, not a cache
// (client.New, or a manager's APIReader-backed client): the Syncer reads its auth Secret and
// lists the objects it labelled, and needs neither watched. It touches nothing until the first
// sync.
func New(c client.Client, opts Options) (*Syncer, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("policy sync options: %w", err)
	}
	if opts.AuthSecret == nil {
		if _, err := gitops.Open(opts.Git); err != nil {
			return nil, err
		}
	}
	return &Syncer{opts: opts, client: c, retries: workqueue.NewTypedItemExponentialFailureRateLimiter[string](opts.RetryBase, opts.MaxBackoff)}, nil
}

// NeedLeaderElection makes a manager run the Syncer on the leader only.
func (s *Syncer) NeedLeaderElection() bool { return true }

// Start runs the Syncer until ctx ends; it is Run under the name controller-runtime's
// manager.Runnable wants.
func (s *Syncer) Start(ctx context.Context) error { return s.Run(ctx) }

// Run syncs every interval until ctx ends. After a failure it retries sooner, with
// exponential backoff (RetryBase doubling up to MaxBackoff); a rejected commit waits for the
// next interval, as only a new commit can fix it.
func (s *Syncer) Run(ctx context.Context) error {
	log := s.opts.Logger
	log.Info("policy sync started", "url", s.opts.Git.URL, "branch", s.opts.Git.Branch, "path", s.opts.Git.Path, "interval", s.opts.Interval)
	for {
		st, err := s.SyncOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		delay := s.nextDelay(err)
		if err != nil {
			log.Error(err, "policy sync failed", "failures", st.Failures, "retryIn", delay)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
	}
}

// nextDelay is the wait before the next sync after one that ended with
// err: the interval after a success (which forgets the failures) or a
// rejected commit (which only a new commit can fix, though it still counts
// as a failure), else the next retry delay.
func (s *Syncer) nextDelay(err error) time.Duration {
	if err == nil {
		s.retries.Forget(retryItem)
		return s.opts.Interval
	}
	delay := s.retries.When(retryItem)
	var ce *gitops.CommitError
	if errors.As(err, &ce) {
		return s.opts.Interval
	}
	return delay
}

// SyncOnce fetches, validates and applies the branch head once, prunes what left Git, and
// records the outcome in the status ConfigMap and events. On any error nothing of the new
// commit is applied (except after an apply the API server accepted in dry-run failed for real,
// which the next sync repairs) and the error is returned and recorded.
func (s *Syncer) SyncOnce(ctx context.Context) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.loaded {
		if err := s.loadStatus(ctx); err != nil {
			return s.status, err
		}
		s.loaded = true
	}
	prev := s.status
	now := s.opts.Now()
	s.status.LastAttempt = now
	applied, pruned, snap, err := s.sync(ctx)
	if snap != nil {
		s.status.AttemptedCommit = snap.Commit
	} else {
		var ce *gitops.CommitError
		if errors.As(err, &ce) {
			s.status.AttemptedCommit = ce.Commit
		}
	}
	if err != nil {
		s.status.Error = err.Error()
		s.status.Failures++
		s.record(ctx, prev, "")
		return s.status, err
	}
	rewound := prev.Commit != "" && snap.Commit != prev.Commit &&
		(snap.CommitTime.Before(prev.CommitTime) || slices.Contains(s.synced, snap.Commit))
	if len(s.synced) == 0 || s.synced[len(s.synced)-1] != snap.Commit {
		s.synced = append(s.synced, snap.Commit)
		if len(s.synced) > maxHistory {
			s.synced = s.synced[1:]
		}
	}
	s.status.Commit, s.status.CommitTime, s.status.SyncedAt = snap.Commit, snap.CommitTime, s.opts.Now()
	s.status.Error, s.status.Failures = "", 0
	s.status.Objects = names(snap.Objects)
	s.status.Applied, s.status.Pruned = applied, pruned
	rewoundMsg := ""
	if rewound {
		rewoundMsg = fmt.Sprintf("branch %s moved back from commit %s (%s) to the older commit %s (%s), probably by a force-push; applied it as the new truth",
			s.opts.Git.Branch, short(prev.Commit), prev.CommitTime.UTC().Format(time.RFC3339), short(snap.Commit), snap.CommitTime.UTC().Format(time.RFC3339))
		s.opts.Logger.Error(errors.New("policy branch rewound"), "POLICY BRANCH REWOUND: "+rewoundMsg,
			"previousCommit", prev.Commit, "commit", snap.Commit)
	}
	s.record(ctx, prev, rewoundMsg)
	return s.status, nil
}

// sync does the work of SyncOnce: it returns the objects applied and pruned.
func (s *Syncer) sync(ctx context.Context) ([]string, []string, *gitops.Snapshot, error) {
	repo, err := s.repository(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	snap, err := gitops.NewReader(repo).Read(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	desired := make([]*unstructured.Unstructured, 0, len(snap.Objects))
	for _, o := range snap.Objects {
		u := o.Object.DeepCopy()
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[SyncLabel] = s.opts.Name
		u.SetLabels(labels)
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		// The file, not the commit: an object is rewritten only when its file changes.
		ann[SourceAnnotation] = o.File
		u.SetAnnotations(ann)
		desired = append(desired, u)
	}
	if err := s.apply(ctx, snap, desired, true); err != nil {
		return nil, nil, snap, err
	}
	if err := s.apply(ctx, snap, desired, false); err != nil {
		return nil, nil, snap, err
	}
	pruned, err := s.prune(ctx, desired)
	if err != nil {
		return names(snap.Objects), pruned, snap, err
	}
	return names(snap.Objects), pruned, snap, nil
}

// apply server-side applies every object, as a dry run first, so that an object the API
// server refuses rejects the whole commit before anything changes.
func (s *Syncer) apply(ctx context.Context, snap *gitops.Snapshot, objs []*unstructured.Unstructured, dryRun bool) error {
	var errs []error
	for i, u := range objs {
		opts := []client.ApplyOption{client.FieldOwner(FieldManager), client.ForceOwnership}
		if dryRun {
			opts = append(opts, client.DryRunAll)
		}
		if err := s.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), opts...); err != nil {
			e := fmt.Errorf("%s: %s %s: %w", snap.Objects[i].File, u.GetKind(), u.GetName(), err)
			if !dryRun {
				return fmt.Errorf("applying commit %s: %w", short(snap.Commit), e)
			}
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return &gitops.CommitError{Commit: snap.Commit, Errs: errs}
	}
	return nil
}

// prune deletes the objects labelled as this Syncer's that Git no longer holds.
func (s *Syncer) prune(ctx context.Context, desired []*unstructured.Unstructured) ([]string, error) {
	keep := map[string]bool{}
	for _, u := range desired {
		keep[u.GetKind()+"/"+u.GetName()] = true
	}
	var pruned []string
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := s.client.List(ctx, list, client.MatchingLabels{SyncLabel: s.opts.Name}); err != nil {
			return pruned, fmt.Errorf("listing %s to prune: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			item := &list.Items[i]
			key := gvk.Kind + "/" + item.GetName()
			if keep[key] || item.GetDeletionTimestamp() != nil {
				continue
			}
			if err := s.client.Delete(ctx, item); err != nil && !apierrors.IsNotFound(err) {
				return pruned, fmt.Errorf("pruning %s %s: %w", gvk.Kind, item.GetName(), err)
			}
			s.opts.Logger.Info("pruned object gone from git", "kind", gvk.Kind, "name", item.GetName())
			pruned = append(pruned, key)
		}
	}
	return pruned, nil
}

// repository returns the Git repository with the current credentials, reopening it when the
// auth Secret changed.
func (s *Syncer) repository(ctx context.Context) (*gitops.Repository, error) {
	auth := s.opts.Git.Auth
	if s.opts.AuthSecret != nil {
		var err error
		if auth, err = s.secretAuth(ctx); err != nil {
			return nil, err
		}
	}
	if s.repo != nil && reflect.DeepEqual(auth, s.auth) {
		return s.repo, nil
	}
	opts := s.opts.Git
	opts.Auth = auth
	repo, err := gitops.Open(opts)
	if err != nil {
		return nil, err
	}
	s.repo, s.auth = repo, auth
	return repo, nil
}

func (s *Syncer) secretAuth(ctx context.Context) (gitops.Auth, error) {
	var sec corev1.Secret
	if err := s.client.Get(ctx, *s.opts.AuthSecret, &sec); err != nil {
		return gitops.Auth{}, fmt.Errorf("reading the git auth Secret %s: %w", s.opts.AuthSecret, err)
	}
	d := sec.Data
	return gitops.Auth{
		Username:         string(d[SecretUsername]),
		Password:         string(d[SecretPassword]),
		Token:            string(d[SecretToken]),
		SSHPrivateKey:    d[SecretIdentity],
		SSHKeyPassphrase: string(d[SecretPassphrase]),
		SSHKnownHosts:    d[SecretKnownHosts],
	}, nil
}

func names(objs []gitops.Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Object.GetKind()+"/"+o.Object.GetName())
	}
	sort.Strings(out)
	return out
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-len(" [truncated]")] + " [truncated]"
}
