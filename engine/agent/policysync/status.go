package policysync

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Data keys of the status ConfigMap.
const (
	KeyURL             = "url"
	KeyBranch          = "branch"
	KeyPath            = "path"
	KeyCommit          = "commit"          // last good commit, applied
	KeyCommitTime      = "commitTime"      // its commit time, RFC 3339
	KeySyncedAt        = "syncedAt"        // when it was last applied, RFC 3339
	KeyLastAttempt     = "lastAttempt"     // when the last sync ran, RFC 3339
	KeyAttemptedCommit = "attemptedCommit" // the commit the last sync read, good or bad
	KeyError           = "error"           // the last sync's error, "" when it succeeded
	KeyFailures        = "failures"        // consecutive failed syncs
	KeyObjects         = "objects"         // Kind/name of every object of the last good commit, one a line
	KeyPruned          = "pruned"          // Kind/name of the objects the last sync deleted
)

// Event reasons.
const (
	ReasonSynced     = "PolicySynced"
	ReasonSyncFailed = "PolicySyncFailed"
	ReasonRewound    = "PolicyBranchRewound"
)

// Status is what the status ConfigMap records.
type Status struct {
	Commit          string
	CommitTime      time.Time
	SyncedAt        time.Time
	LastAttempt     time.Time
	AttemptedCommit string
	Error           string
	Failures        int
	Objects         []string
	Applied, Pruned []string
}

// Status returns the last recorded status.
func (s *Syncer) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// loadStatus reads the status ConfigMap left by an earlier run, so that a restart knows the
// last good commit (to report a rewound branch) and keeps counting failures.
func (s *Syncer) loadStatus(ctx context.Context) error {
	var cm corev1.ConfigMap
	err := s.client.Get(ctx, types.NamespacedName{Namespace: s.opts.Namespace, Name: s.opts.Name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the status ConfigMap %s/%s: %w", s.opts.Namespace, s.opts.Name, err)
	}
	d := cm.Data
	if d[KeyURL] != s.opts.Git.URL || d[KeyBranch] != s.opts.Git.Branch || d[KeyPath] != s.opts.Git.Path {
		return nil // another source: start afresh
	}
	st := Status{Commit: d[KeyCommit], AttemptedCommit: d[KeyAttemptedCommit], Error: d[KeyError]}
	st.CommitTime, _ = time.Parse(time.RFC3339, d[KeyCommitTime])
	st.SyncedAt, _ = time.Parse(time.RFC3339, d[KeySyncedAt])
	st.LastAttempt, _ = time.Parse(time.RFC3339, d[KeyLastAttempt])
	st.Failures, _ = strconv.Atoi(d[KeyFailures])
	st.Objects = lines(d[KeyObjects])
	st.Pruned = lines(d[KeyPruned])
	s.status = st
	return nil
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// record writes the status ConfigMap and, when something changed since prev (a new commit,
// a new error, a rewound branch), an event on it. Failures to record are logged, not returned:
// the sync's own outcome is what matters to the caller.
func (s *Syncer) record(ctx context.Context, prev Status, rewound string) {
	st := s.status
	g := s.opts.Git
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      s.opts.Name,
			"namespace": s.opts.Namespace,
			"labels":    map[string]any{"app.kubernetes.io/managed-by": "tenon", "app.kubernetes.io/component": "policy-sync"},
		},
		"data": map[string]any{
			KeyURL: g.URL, KeyBranch: g.Branch, KeyPath: g.Path,
			KeyCommit: st.Commit, KeyCommitTime: formatTime(st.CommitTime), KeySyncedAt: formatTime(st.SyncedAt),
			KeyLastAttempt: formatTime(st.LastAttempt), KeyAttemptedCommit: st.AttemptedCommit,
			KeyError: st.Error, KeyFailures: strconv.Itoa(st.Failures),
			KeyObjects: strings.Join(st.Objects, "\n"), KeyPruned: strings.Join(st.Pruned, "\n"),
		},
	}}
	log := s.opts.Logger
	if err := s.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(cm), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		log.Error(err, "writing the policy sync status ConfigMap", "namespace", s.opts.Namespace, "name", s.opts.Name)
		return
	}
	var events []*eventsv1.Event
	switch {
	case st.Error != "" && (st.Error != prev.Error || st.AttemptedCommit != prev.AttemptedCommit):
		events = append(events, s.event(corev1.EventTypeWarning, ReasonSyncFailed,
			fmt.Sprintf("sync of %s failed; the cluster keeps commit %s: %s", describe(g.URL, g.Branch, g.Path), orNone(short(st.Commit)), st.Error)))
	case st.Error == "" && (st.Commit != prev.Commit || prev.Error != "" || len(st.Pruned) > 0):
		note := fmt.Sprintf("applied commit %s of %s: %d objects", short(st.Commit), describe(g.URL, g.Branch, g.Path), len(st.Objects))
		if len(st.Pruned) > 0 {
			note += "; pruned " + strings.Join(st.Pruned, ", ")
		}
		events = append(events, s.event(corev1.EventTypeNormal, ReasonSynced, note))
	}
	if rewound != "" {
		events = append(events, s.event(corev1.EventTypeWarning, ReasonRewound, rewound))
	}
	for _, ev := range events {
		if err := s.client.Create(ctx, ev); err != nil {
			log.Error(err, "recording event", "reason", ev.Reason)
		}
	}
}

func describe(url, branch, path string) string {
	if path == "" {
		path = "/"
	}
	return fmt.Sprintf("%s (branch %s, path %s)", url, branch, path)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// event builds an events.k8s.io/v1 Event on the status ConfigMap.
func (s *Syncer) event(eventType, reason, note string) *eventsv1.Event {
	now := s.opts.Now()
	s.events++
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.opts.Namespace,
			// Unique per Syncer: the time, then a counter for events of the same instant.
			Name: fmt.Sprintf("%s.%x.%d", s.opts.Name, now.UnixNano(), s.events),
		},
		EventTime:           metav1.NewMicroTime(now),
		ReportingController: "tenon.dev/policy-sync",
		ReportingInstance:   s.opts.Instance,
		Action:              "Sync",
		Reason:              reason,
		Type:                eventType,
		Note:                truncate(note, 1024),
		Regarding: corev1.ObjectReference{
			APIVersion: "v1", Kind: "ConfigMap", Namespace: s.opts.Namespace, Name: s.opts.Name,
		},
	}
}
