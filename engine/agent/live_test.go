package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
)

const testKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://admin:PASSWORDSECRET@127.0.0.1:1"}}]
users: [{name: u, user: {token: TOKENSECRET}}]
contexts:
  - {name: dev, context: {cluster: c, user: u}}
  - {name: prod, context: {cluster: c, user: u}}
current-context: %s
`

func writeKubeconfig(t *testing.T, current string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(strings.Replace(testKubeconfig, "%s", current, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadClusterErrors: each bad flag is a UsageError naming the flag and the fix; an
// unreachable server is not; no error carries the kubeconfig's token or password.
func TestReadClusterErrors(t *testing.T) {
	good := writeKubeconfig(t, "dev")
	tests := []struct {
		name  string
		opts  simulate.LiveOptions
		usage bool
		want  []string
	}{
		{"a missing kubeconfig", simulate.LiveOptions{Kubeconfig: filepath.Join(t.TempDir(), "none")}, true,
			[]string{"--kubeconfig", "no such file or directory", "pass the kubeconfig file kubectl uses"}},
		{"a kubeconfig that is not one", simulate.LiveOptions{Kubeconfig: writeFile(t, "{{{ not yaml")}, true,
			[]string{"--kubeconfig", "not a readable kubeconfig"}},
		{"an unknown context", simulate.LiveOptions{Kubeconfig: good, Context: "staging"}, true,
			[]string{`--context "staging": no such context`, "pass one of dev, prod"}},
		{"a current context that does not exist", simulate.LiveOptions{Kubeconfig: writeKubeconfig(t, "gone")}, true,
			[]string{`current context "gone" does not exist`, "pass --context, one of dev, prod"}},
		{"no current context", simulate.LiveOptions{Kubeconfig: writeKubeconfig(t, `""`)}, true,
			[]string{"has no current context: pass --context, one of dev, prod"}},
		{"a bad region", simulate.LiveOptions{Kubeconfig: good, Region: "mars-1"}, true, []string{`--region "mars-1"`}},
		{"an unreachable server", simulate.LiveOptions{Kubeconfig: good, Context: "prod"}, false,
			[]string{"reading the cluster at https://127.0.0.1:1", `context "prod"`, "check that the API server is up"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadCluster(context.Background(), tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			var usage *simulate.UsageError
			if errors.As(err, &usage) != tt.usage {
				t.Errorf("usage error: %v, want %v: %v", !tt.usage, tt.usage, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q: %v", w, err)
				}
			}
			for _, secret := range []string{"TOKENSECRET", "PASSWORDSECRET"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks the kubeconfig's credentials: %v", err)
				}
			}
		})
	}
}

func writeFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// listRecorder records the kinds a view lists, and serves none.
type listRecorder struct {
	client.Reader
	listed []string
}

func (r *listRecorder) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	scheme, err := NewScheme()
	if err != nil {
		return err
	}
	gvk, err := apiutil.GVKForObject(list, scheme)
	if err != nil {
		return err
	}
	kind := strings.TrimSuffix(gvk.Kind, "List")
	plural, _ := meta.UnsafeGuessKindToResource(gvk.GroupVersion().WithKind(kind))
	if strings.HasSuffix(kind, "ay") { // NodeOverlay: nodeoverlays, not the guess's nodeoverlaies
		plural.Resource = strings.ToLower(kind) + "s"
	}
	r.listed = append(r.listed, gvk.Group+"/"+plural.Resource)
	return nil
}

func (r *listRecorder) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("a view gets nothing")
}

// TestViewReadsExactlyTheReadOnlyRole: the kinds the agent's view lists are the read-only
// ClusterRole's, so `tenon simulate --kubeconfig` under that role reads everything it needs
// and the role grants nothing more.
func TestViewReadsExactlyTheReadOnlyRole(t *testing.T) {
	types, err := newCatalogTypes("", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &listRecorder{}
	if _, err := (&viewBuilder{client: rec, cloud: types}).view(context.Background()); err != nil {
		t.Fatal(err)
	}
	var granted []string
	for _, p := range manifests.ReadOnlyPermissions {
		granted = append(granted, p.Group+"/"+p.Resource)
		if !slices.Equal(p.Verbs, []string{"get", "list"}) {
			t.Errorf("%s/%s: verbs %v, want get and list only", p.Group, p.Resource, p.Verbs)
		}
	}
	slices.Sort(granted)
	slices.Sort(rec.listed)
	if !slices.Equal(granted, rec.listed) {
		t.Errorf("the view lists %v; the read-only role grants %v", rec.listed, granted)
	}
}

func TestCatalogTypesReadyFollowsTheAgentsCondition(t *testing.T) {
	types, err := newCatalogTypes("us-east-1", []string{"us-east-1a"})
	if err != nil {
		t.Fatal(err)
	}
	if types.region != "us-east-1" || !slices.Equal(types.zones, []string{"us-east-1a"}) || len(types.types) == 0 {
		t.Fatalf("catalog %s %v with %d types", types.region, types.zones, len(types.types))
	}
	ready := &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{}}}
	if err := types.Ready(ready); err != nil {
		t.Errorf("a class without a Ready condition: %v, want ready", err)
	}
	notReady := ready.DeepCopy()
	meta.SetStatusCondition(&notReady.Status.Conditions, metav1.Condition{Type: v1.ConditionReady, Status: metav1.ConditionFalse, Reason: "SubnetsNotFound", Message: "no subnet matches"})
	err = types.Ready(notReady)
	if !cloud.IsNodeClassNotReady(err) || !strings.Contains(err.Error(), "no subnet matches") {
		t.Errorf("a class the agent reports not ready: %v", err)
	}
	if err := types.Ready(nil); !cloud.IsNodeClassNotReady(err) {
		t.Errorf("no class: %v", err)
	}
}

func TestServerURLDropsUserInfo(t *testing.T) {
	for host, want := range map[string]string{
		"https://admin:secret@example.com:6443": "https://example.com:6443",
		"https://10.0.0.1":                      "https://10.0.0.1",
		"::not a url":                           "the kubeconfig's server",
	} {
		if got := serverURL(host); got != want {
			t.Errorf("serverURL(%q) = %q, want %q", host, got, want)
		}
	}
}
