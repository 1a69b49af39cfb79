package policysync

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
)

// Defaults of Options.
const (
	DefaultInterval   = 30 * time.Second
	DefaultName       = "tenon-policy-sync"
	DefaultRetryBase  = 5 * time.Second
	DefaultMaxBackoff = 5 * time.Minute
	// FieldManager owns the fields the Syncer applies.
	FieldManager = "tenon-gitops"
	// SyncLabel marks the objects a Syncer applied; its value is the Syncer's Name.
	SyncLabel = "gitops.tenon.dev/sync"
	// SourceAnnotation records the file in Git an object came from.
	SourceAnnotation = "gitops.tenon.dev/source"
)

// Keys of the auth Secret (the names Flux uses where it has them).
const (
	SecretUsername   = "username"
	SecretPassword   = "password"
	SecretToken      = "token"
	SecretIdentity   = "identity"   // SSH private key, PEM
	SecretPassphrase = "passphrase" // of the SSH private key
	SecretKnownHosts = "known_hosts"
)

// Options configure a Syncer.
type Options struct {
	// Git is the repository, branch and path to sync. Its Auth is ignored when AuthSecret is
	// set.
	Git gitops.Options
	// AuthSecret names a Secret holding the credentials (keys username, password, token,
	// identity, passphrase, known_hosts); it is read at every attempt, so rotating it needs no
	// restart. Nil means Git.Auth.
	AuthSecret *types.NamespacedName
	// Interval between syncs. Zero means 30 s.
	Interval time.Duration
	// Namespace of the status ConfigMap and its events. Required.
	Namespace string
	// Name of the status ConfigMap, and the value of SyncLabel on the objects applied. Zero
	// means "tenon-policy-sync". Two Syncers in one cluster need different names.
	Name string
	// RetryBase and MaxBackoff shape the retries after a failed fetch or apply: RetryBase,
	// doubling per consecutive failure, at most MaxBackoff.
	RetryBase, MaxBackoff time.Duration
	// Instance names this process in events (reportingInstance), such as the pod name.
	Instance string
	// Logger receives the Syncer's logs. Zero discards them.
	Logger logr.Logger
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() (Options, error) {
	var errs []error
	if err := gitops.CheckURL(o.Git.URL); err != nil {
		errs = append(errs, err)
	}
	if o.Git.Branch == "" {
		o.Git.Branch = gitops.DefaultBranch
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.Interval < time.Second {
		errs = append(errs, fmt.Errorf("interval %s is too short; use 1s or more (30s is usual)", o.Interval))
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if msgs := validation.IsDNS1123Label(o.Name); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("name %q: %v", o.Name, msgs))
	}
	if o.Namespace == "" {
		errs = append(errs, errors.New("namespace: set the namespace of the status ConfigMap (the agent's own)"))
	}
	if o.RetryBase <= 0 {
		o.RetryBase = DefaultRetryBase
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Instance == "" {
		o.Instance = "tenon-agent"
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, errors.Join(errs...)
}
