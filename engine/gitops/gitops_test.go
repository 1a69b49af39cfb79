package gitops

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops/gitopstest"
)

// TestRoundTrip writes objects over git://, reads them back through another copy cached on
// disk, and checks the layout, commit author and message, idempotence, update and delete.
func TestRoundTrip(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	wopts := Options{URL: srv.GitURL("policy"), Path: "clusters/dev/tenon", AuthorName: "Platform Bot", AuthorEmail: "bot@example.com"}
	w := NewWriter(open(t, wopts))
	ropts := wopts
	ropts.CacheDir = t.TempDir()
	r := NewReader(open(t, ropts))

	pool, class, prov := nodePool("general", "spot", "on-demand"), nodeClass("default"), provisioner("legacy")
	res := apply(t, w, Change{Apply: objects(pool, class, prov)})
	if !res.Committed || res.Attempts != 1 {
		t.Fatalf("first Apply = %+v, want one committed push", res)
	}
	if got := srv.Head("policy", "main"); got != res.Commit {
		t.Fatalf("server head %s, Apply reported %s", got, res.Commit)
	}
	wantMsg := "tenon: apply NodeClass default, NodePool general, Provisioner legacy"
	if log := srv.Git("policy", "log", "-1", "--format=%an <%ae>|%s"); strings.TrimSpace(log) != "Platform Bot <bot@example.com>|"+wantMsg {
		t.Errorf("commit = %q, want author Platform Bot <bot@example.com> and subject %q", log, wantMsg)
	}
	files := strings.Fields(srv.Git("policy", "ls-tree", "-r", "--name-only", "main"))
	wantFiles := []string{"clusters/dev/tenon/kustomization.yaml", "clusters/dev/tenon/nodeclass/default.yaml",
		"clusters/dev/tenon/nodepool/general.yaml", "clusters/dev/tenon/provisioner/legacy.yaml"}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files = %v, want %v", files, wantFiles)
	}
	poolFile := srv.Git("policy", "show", "main:clusters/dev/tenon/nodepool/general.yaml")
	if !strings.HasPrefix(poolFile, Header) || !strings.Contains(poolFile, "\napiVersion: tenon.dev/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n") {
		t.Errorf("nodepool/general.yaml lacks the header or sorted keys:\n%s", poolFile)
	}
	if strings.Contains(poolFile, "status") || strings.Contains(poolFile, "creationTimestamp") {
		t.Errorf("nodepool/general.yaml holds server-set fields:\n%s", poolFile)
	}

	snap := read(t, r)
	if snap.Commit != res.Commit {
		t.Errorf("Read commit %s, want %s", snap.Commit, res.Commit)
	}
	got, ok := snap.Get(Ref{Kind: "NodePool", Name: "general"})
	if !ok {
		t.Fatalf("Read lacks NodePool general: %v", refs(snap))
	}
	var back v1.NodePool
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(got.Object.Object, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Spec, pool.Spec) || back.Name != pool.Name {
		t.Errorf("NodePool read back differs:\n got %+v\nwant %+v", back.Spec, pool.Spec)
	}
	if got.File != "clusters/dev/tenon/nodepool/general.yaml" {
		t.Errorf("File = %q", got.File)
	}

	// The same change again commits nothing.
	if again := apply(t, w, Change{Apply: objects(pool, class, prov)}); again.Committed || again.Commit != res.Commit {
		t.Errorf("repeated Apply = %+v, want no commit on %s", again, res.Commit)
	}
	// Update one object and delete another: one commit naming both.
	pool2 := nodePool("general", "spot")
	upd := apply(t, w, Change{Apply: objects(pool2, class), Delete: []Ref{{Kind: "Provisioner", Name: "legacy"}}})
	if want := "tenon: apply NodePool general; delete Provisioner legacy\n"; upd.Message != want {
		t.Errorf("message = %q, want %q", upd.Message, want)
	}
	snap = read(t, r)
	if want := []Ref{{"NodeClass", "default"}, {"NodePool", "general"}}; !reflect.DeepEqual(refs(snap), want) {
		t.Errorf("after delete: %v, want %v", refs(snap), want)
	}
	kust := srv.Git("policy", "show", "main:clusters/dev/tenon/kustomization.yaml")
	if !strings.Contains(kust, "resources:\n- nodeclass/default.yaml\n- nodepool/general.yaml\n") || strings.Contains(kust, "provisioner") {
		t.Errorf("kustomization.yaml not in step:\n%s", kust)
	}
	// The cache on disk is a bare, shallow repository.
	if m, _ := filepath.Glob(filepath.Join(ropts.CacheDir, "*", "shallow")); len(m) != 1 {
		t.Errorf("cache folder %s holds no shallow repository: %v", ropts.CacheDir, m)
	}
}

// TestKustomizationKeptInStep: the Writer keeps entries it does not own, and the Reader reads
// only what kustomization.yaml lists, folders with their own kustomization included.
func TestKustomizationKeptInStep(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	srv.Commit("policy", "main", "hand-written layout", map[string]string{
		"tenon/kustomization.yaml":       "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- extra\n- ./hand.yaml\n",
		"tenon/hand.yaml":                "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata:\n  name: hand\nspec:\n  kwok: {}\n",
		"tenon/extra/kustomization.yaml": "resources: [pools.yaml]\n",
		"tenon/extra/pools.yaml":         "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: extra-a}\nspec: {kwok: {}}\n---\n# a comment only\n---\napiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: extra-b}\nspec: {kwok: {}}\n",
		"tenon/ignored.yaml":             "this file is not listed: not even valid YAML: [",
	})
	opts := Options{URL: srv.GitURL("policy"), Path: "tenon"}
	r := NewReader(open(t, opts))
	want := []Ref{{"NodeClass", "extra-a"}, {"NodeClass", "extra-b"}, {"NodeClass", "hand"}}
	if got := refs(read(t, r)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Read = %v, want %v", got, want)
	}
	w := NewWriter(open(t, opts))
	apply(t, w, Change{Apply: objects(nodePool("b-pool", "spot"), nodePool("a-pool", "spot"))})
	kust := srv.Git("policy", "show", "main:tenon/kustomization.yaml")
	if !strings.Contains(kust, "resources:\n- extra\n- ./hand.yaml\n- nodepool/a-pool.yaml\n- nodepool/b-pool.yaml\n") {
		t.Errorf("kustomization.yaml lost or reordered entries:\n%s", kust)
	}
	want = append(want, Ref{"NodePool", "a-pool"}, Ref{"NodePool", "b-pool"})
	if got := refs(read(t, r)); !reflect.DeepEqual(got, want) {
		t.Fatalf("Read after write = %v, want %v", got, want)
	}
	apply(t, w, Change{Delete: []Ref{{"NodePool", "a-pool"}}})
	kust = srv.Git("policy", "show", "main:tenon/kustomization.yaml")
	if strings.Contains(kust, "a-pool") || !strings.Contains(kust, "- nodepool/b-pool.yaml") || !strings.Contains(kust, "- extra") {
		t.Errorf("kustomization.yaml after delete:\n%s", kust)
	}
}

// TestConcurrentWriters: when another writer pushes between a Writer's fetch and its push, the
// Writer re-applies its change on the new head; neither change is lost and nothing is forced.
func TestConcurrentWriters(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	opts := Options{URL: srv.GitURL("policy"), Path: "tenon"}
	a, b := NewWriter(open(t, opts)), NewWriter(open(t, opts))
	apply(t, a, Change{Apply: objects(nodeClass("default"))})

	t.Run("deterministic race", func(t *testing.T) {
		once := sync.Once{}
		a.repo.beforePush = func() {
			once.Do(func() { apply(t, b, Change{Apply: objects(nodePool("from-b", "spot"))}) })
		}
		t.Cleanup(func() { a.repo.beforePush = nil })
		res := apply(t, a, Change{Apply: objects(nodePool("from-a", "on-demand"))})
		if res.Attempts != 2 || !res.Committed {
			t.Errorf("Apply = %+v, want a second, successful attempt after the race", res)
		}
		snap := read(t, NewReader(open(t, opts)))
		for _, ref := range []Ref{{"NodePool", "from-a"}, {"NodePool", "from-b"}, {"NodeClass", "default"}} {
			if _, ok := snap.Get(ref); !ok {
				t.Errorf("%s lost; head has %v", ref, refs(snap))
			}
		}
		if parents := strings.Fields(srv.Git("policy", "log", "-1", "--format=%P")); len(parents) != 1 {
			t.Errorf("head has parents %v, want a linear history", parents)
		}
	})

	t.Run("goroutines", func(t *testing.T) {
		const each = 4
		var wg sync.WaitGroup
		errs := make(chan error, 2*each)
		for i, w := range []*Writer{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range each {
					if _, err := w.Apply(testContext(t), Change{Apply: objects(nodePool(fmt.Sprintf("w%d-%d", i, j), "spot"))}); err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("Apply: %v", err)
		}
		snap := read(t, NewReader(open(t, opts)))
		for i := range 2 {
			for j := range each {
				if _, ok := snap.Get(Ref{"NodePool", fmt.Sprintf("w%d-%d", i, j)}); !ok {
					t.Errorf("NodePool w%d-%d lost", i, j)
				}
			}
		}
	})
}

// TestHTTPAuth: basic auth and tokens over http-backend; wrong or missing credentials give an
// *AuthError naming the URL and what to check.
func TestHTTPAuth(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	url := srv.HTTPURL("policy")
	// The test server speaks plain http://, which credentials need allowed.
	good := Options{URL: url, Auth: Auth{Username: gitopstest.User, Password: gitopstest.Password}, AllowInsecureHTTP: true}
	apply(t, NewWriter(open(t, good)), Change{Apply: objects(nodeClass("default"))})
	token := Options{URL: url, Auth: Auth{Username: gitopstest.User, Token: gitopstest.Password}, AllowInsecureHTTP: true}
	if got := refs(read(t, NewReader(open(t, token)))); len(got) != 1 {
		t.Errorf("Read with a token = %v", got)
	}
	for name, auth := range map[string]Auth{
		"wrong password": {Username: gitopstest.User, Password: "wrong"},
		"no credentials": {},
	} {
		t.Run(name, func(t *testing.T) {
			opts := Options{URL: url, Auth: auth, AllowInsecureHTTP: true}
			_, err := NewReader(open(t, opts)).Read(testContext(t))
			if !IsAuthError(err) {
				t.Fatalf("Read error = %v, want an *AuthError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, url) || !strings.Contains(msg, "check auth") || strings.Contains(msg, "wrong") {
				t.Errorf("message %q should name the URL, say what to check, and not print the password", msg)
			}
			_, err = NewWriter(open(t, opts)).Apply(testContext(t), Change{Apply: objects(nodeClass("other"))})
			if !IsAuthError(err) {
				t.Errorf("Apply error = %v, want an *AuthError", err)
			}
		})
	}
}

// TestForcePushedOlderCommit: when the branch is moved back to an older commit, the Reader
// reads that commit as the truth.
func TestForcePushedOlderCommit(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	opts := Options{URL: srv.GitURL("policy"), CacheDir: t.TempDir()}
	w, r := NewWriter(open(t, opts)), NewReader(open(t, opts))
	old := apply(t, w, Change{Apply: objects(nodePool("general", "spot"))})
	apply(t, w, Change{Apply: objects(nodePool("general", "on-demand"), nodePool("newer", "spot"))})
	if got := refs(read(t, r)); len(got) != 2 {
		t.Fatalf("Read = %v before the force-push", got)
	}
	srv.ForceBranch("policy", "main", old.Commit)
	snap := read(t, r)
	if snap.Commit != old.Commit {
		t.Fatalf("Read commit %s, want the force-pushed %s", snap.Commit, old.Commit)
	}
	if want := []Ref{{"NodePool", "general"}}; !reflect.DeepEqual(refs(snap), want) {
		t.Fatalf("Read = %v, want %v", refs(snap), want)
	}
	o, _ := snap.Get(Ref{"NodePool", "general"})
	if s := fmt.Sprint(o.Object.Object["spec"]); !strings.Contains(s, "spot") || strings.Contains(s, "on-demand") {
		t.Errorf("spec is not the old commit's: %s", s)
	}
	// A Writer on the moved branch builds on the older commit, without forcing.
	res := apply(t, w, Change{Apply: objects(nodeClass("default"))})
	if parent := strings.TrimSpace(srv.Git("policy", "log", "-1", "--format=%P")); parent != old.Commit {
		t.Errorf("new commit %s has parent %s, want %s", res.Commit, parent, old.Commit)
	}
}

// TestBadCommitRejectedWhole: one commit with several problems returns a *CommitError naming
// every file, object and field, and no objects.
func TestBadCommitRejectedWhole(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	commit := srv.Commit("policy", "main", "bad policy", map[string]string{
		"good.yaml":      "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: good}\nspec: {kwok: {}}\n",
		"badop.yaml":     "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: badop}\nspec:\n  template:\n    spec:\n      nodeClassRef: {name: good}\n      requirements:\n      - {key: tenon.dev/capacity-type, operator: Near, values: [spot]}\n",
		"configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
		"typo.yaml":      "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: typo}\nspec: {kwok: {}, awz: {}}\n",
		"broken.yaml":    "apiVersion: tenon.dev/v1\nkind: [\n",
	})
	_, err := NewReader(open(t, Options{URL: srv.GitURL("policy")})).Read(testContext(t))
	var ce *CommitError
	if !errors.As(err, &ce) {
		t.Fatalf("Read error = %v, want a *CommitError", err)
	}
	if ce.Commit != commit {
		t.Errorf("CommitError.Commit = %s, want %s", ce.Commit, commit)
	}
	msg := err.Error()
	for _, want := range []string{
		"badop.yaml: NodePool badop: spec.template.spec.requirements[0].operator: Unsupported value: \"Near\"",
		"configmap.yaml: ConfigMap cm: apiVersion: only tenon.dev kinds are accepted",
		"typo.yaml: NodeClass typo: spec.awz: unknown field",
		"broken.yaml: document 1: malformed YAML: line 2: did not find expected node content",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "good.yaml") {
		t.Errorf("message blames the valid file:\n%s", msg)
	}
}

// TestSSHServerAuth: an SSH key with known_hosts writes and reads over a real SSH server; a key the
// server does not accept and a host key that is not in known_hosts give an *AuthError.
func TestSSHServerAuth(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	sshSrv := srv.StartSSH()
	url := sshSrv.URL("policy")
	good := Auth{SSHPrivateKey: sshSrv.ClientKey, SSHKnownHosts: sshSrv.KnownHosts}
	res := apply(t, NewWriter(open(t, Options{URL: url, Auth: good})), Change{Apply: objects(nodeClass("default"))})
	if srv.Head("policy", "main") != res.Commit {
		t.Fatalf("push over SSH did not reach the server")
	}
	if got := refs(read(t, NewReader(open(t, Options{URL: url, Auth: good})))); len(got) != 1 {
		t.Errorf("Read over SSH = %v", got)
	}
	host := strings.TrimPrefix(sshSrv.Base, "ssh://git@")
	otherKey, otherHost := gitopstest.NewSSHKey(t, host)
	for name, auth := range map[string]Auth{
		"key not accepted":   {SSHPrivateKey: otherKey, SSHKnownHosts: sshSrv.KnownHosts},
		"host key not known": {SSHPrivateKey: sshSrv.ClientKey, SSHKnownHosts: otherHost},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewReader(open(t, Options{URL: url, Auth: auth})).Read(testContext(t))
			if !IsAuthError(err) {
				t.Fatalf("Read error = %v, want an *AuthError", err)
			}
			if !strings.Contains(err.Error(), url) {
				t.Errorf("message %q does not name the URL", err)
			}
			t.Logf("error: %v", err)
		})
	}
}
