package awse2e_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// The scheduler marks the pod unschedulable, which is what the agent acts on.
var suite = controlplane.NewSuite(controlplane.Options{Scheduler: true})

func TestMain(m *testing.M) { os.Exit(suite.Main(m)) }

const cluster = "e2e"

// TestAgentProvisionsANodeOnAWS: a pending pod → a NodeClaim → CreateFleet
// over the wire → the test registers a Node with the instance's provider ID
// → the claim is Registered; then a spot interruption on the SQS queue makes
// the agent disrupt the claim and delete the message.
func TestAgentProvisionsANodeOnAWS(t *testing.T) {
	cp := suite.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c := kubeClient(t, cp)
	if err := kube.InstallCRDs(ctx, c); err != nil {
		t.Fatalf("installing the CRDs: %v", err)
	}
	binary := buildAgent(ctx, t)

	fake := world(t, cp)
	srv := awsfake.NewServer(fake)
	t.Cleanup(srv.Close)

	create(ctx, t, c, &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{
		AMIFamily: v1.AMIFamilyAL2023, Role: "node-role",
	}}})
	// Labels in the kubernetes.io and k8s.io domains are allowed (as in
	// Karpenter v1), but a kubelet refuses to start with them in
	// --node-labels: the agent sets them when the node registers.
	create(ctx, t, c, &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general"}, Spec: v1.NodePoolSpec{
		Template: v1.NodeClaimTemplate{
			TemplateObjectMeta: v1.TemplateObjectMeta{Labels: map[string]string{"storage.k8s.io/tier": "fast", "team": "web"}},
			Spec: v1.NodeClaimTemplateSpec{
				NodeClassRef: &v1.NodeClassReference{Name: "default"},
				Requirements: []v1.NodeSelectorRequirementWithMinValues{
					{Key: "tenon.dev/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
					{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
					{Key: "kubernetes.io/team", Operator: corev1.NodeSelectorOpIn, Values: []string{"payments"}},
				},
			},
		},
	}})

	log := startAgent(t, binary, cp.Kubeconfig, srv.URL())

	// No controller-manager runs, so the namespace's ServiceAccount is made here.
	create(ctx, t, c, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "default"}})
	create(ctx, t, c, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
	})

	// claim → CreateFleet
	var claim v1.NodeClaim
	waitFor(t, log, 90*time.Second, "a launched NodeClaim", func() (bool, string) {
		var claims v1.NodeClaimList
		if err := c.List(ctx, &claims); err != nil {
			return false, err.Error()
		}
		for _, cl := range claims.Items {
			if cl.Status.ProviderID != "" {
				claim = cl
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d claims, %d CreateFleet requests", len(claims.Items), len(srv.Requests("CreateFleet")))
	})
	fleets := srv.Requests("CreateFleet")
	if len(fleets) != 1 {
		t.Fatalf("CreateFleet requests = %d, want 1", len(fleets))
	}
	tags := map[string]string{}
	for _, ts := range awsfake.FormTagSpecifications(fleets[0].Form, "TagSpecification") {
		if ts.ResourceType == "instance" {
			for _, tg := range ts.Tags {
				tags[*tg.Key] = *tg.Value
			}
		}
	}
	if tags["tenon.dev/nodeclaim"] != claim.Name || tags["tenon.dev/cluster"] != cluster || tags["tenon.dev/nodepool"] != "general" {
		t.Errorf("instance tags = %v, want the claim %s, cluster %s and pool general", tags, claim.Name, cluster)
	}
	if got := fleets[0].Form.Get("TargetCapacitySpecification.DefaultTargetCapacityType"); got != "on-demand" {
		t.Errorf("fleet capacity type = %s", got)
	}
	// The NodeClass names a role: the agent created its instance profile
	// over IAM's wire protocol and launches with it.
	profiles := fake.InstanceProfiles()
	if len(profiles) != 1 {
		t.Fatalf("instance profiles = %v, want the one the agent manages", profiles)
	}
	for name, p := range profiles {
		if len(p.Roles) != 1 || *p.Roles[0].RoleName != "node-role" || !strings.HasPrefix(name, "tenon_"+cluster+"_") {
			t.Errorf("instance profile %s = %+v, want tenon_%s_<hash> holding node-role", name, p, cluster)
		}
		for _, lt := range srv.Requests("CreateLaunchTemplate") {
			if got := lt.Form.Get("LaunchTemplateData.IamInstanceProfile.Name"); got != name {
				t.Errorf("launch template %s has instance profile %q, want %s", lt.Form.Get("LaunchTemplateName"), got, name)
			}
		}
	}

	// The instance "boots": the test registers its Node with the labels its
	// user data gives the kubelet, none of which a kubelet may refuse.
	kubeletLabels := userDataLabels(t, srv.Requests("CreateLaunchTemplate"))
	for k := range kubeletLabels {
		if k == "kubernetes.io/team" || k == "storage.k8s.io/tier" {
			t.Errorf("the user data gives the kubelet label %s, which it refuses to set on itself", k)
		}
	}
	if kubeletLabels["team"] != "web" {
		t.Errorf("the user data's labels %v lack the pool's label team=web", kubeletLabels)
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-23.ec2.internal", Labels: kubeletLabels},
		Spec:       corev1.NodeSpec{ProviderID: claim.Status.ProviderID},
	}
	create(ctx, t, c, node)
	// The agent labels the node as it registers it, so the status update
	// retries on conflicts, as a kubelet does.
	waitFor(t, log, 30*time.Second, "the node's status written", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
			return false, err.Error()
		}
		node.Status = corev1.NodeStatus{
			Capacity: claim.Status.Capacity, Allocatable: claim.Status.Allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
		}
		if err := c.Status().Update(ctx, node); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	waitFor(t, log, 60*time.Second, "the NodeClaim registered", func() (bool, string) {
		got := &v1.NodeClaim{}
		if err := c.Get(ctx, client.ObjectKey{Name: claim.Name}, got); err != nil {
			return false, err.Error()
		}
		return meta.IsStatusConditionTrue(got.Status.Conditions, v1.ConditionRegistered), fmt.Sprintf("conditions %v", got.Status.Conditions)
	})
	if err := c.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"kubernetes.io/team": "payments", "storage.k8s.io/tier": "fast", "team": "web", v1.LabelNodePool: "general"} {
		if node.Labels[k] != want {
			t.Errorf("registered node's label %s = %q, want %q (labels %v)", k, node.Labels[k], want, node.Labels)
		}
	}

	// The NodeClass status shows what discovery resolved, as the agent wrote it.
	waitFor(t, log, 30*time.Second, "the NodeClass status resolved", func() (bool, string) {
		nc := &v1.NodeClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: "default"}, nc); err != nil {
			return false, err.Error()
		}
		st := nc.Status
		ok := len(st.Subnets) > 0 && len(st.SecurityGroups) > 0 && len(st.AMIs) > 0 && st.InstanceProfile != "" &&
			meta.IsStatusConditionTrue(st.Conditions, v1.ConditionSubnetsReady) &&
			meta.IsStatusConditionTrue(st.Conditions, v1.ConditionReady)
		return ok, fmt.Sprintf("status %+v", st)
	})

	// A spot interruption warning for the instance arrives on the queue: the
	// agent disrupts the claim and only then deletes the message.
	instance := claim.Status.ProviderID[strings.LastIndex(claim.Status.ProviderID, "/")+1:]
	fake.Enqueue(`{"version":"0","id":"1e5527d7","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","account":"123456789012",` +
		`"time":"` + time.Now().UTC().Format(time.RFC3339) + `","region":"us-east-1","resources":["arn:aws:ec2:us-east-1a:instance/` + instance + `"],` +
		`"detail":{"instance-id":"` + instance + `","instance-action":"terminate"}}`)
	waitFor(t, log, 60*time.Second, "the interruption handled and its message deleted", func() (bool, string) {
		got := &v1.NodeClaim{}
		err := c.Get(ctx, client.ObjectKey{Name: claim.Name}, got)
		disrupted := apierrors.IsNotFound(err) || (err == nil && got.DeletionTimestamp != nil)
		deleted := len(srv.Requests("DeleteMessage")) == 1 && fake.QueueLength() == 0
		return disrupted && deleted, fmt.Sprintf("claim disrupted %v, DeleteMessage requests %d, queue %d", disrupted, len(srv.Requests("DeleteMessage")), fake.QueueLength())
	})
}

// userDataLabels returns the --node-labels the launch templates' AL2023
// user data passes to the kubelet.
func userDataLabels(t *testing.T, templates []awsfake.Request) map[string]string {
	t.Helper()
	labels := map[string]string{}
	for _, lt := range templates {
		ud, err := base64.StdEncoding.DecodeString(lt.Form.Get("LaunchTemplateData.UserData"))
		if err != nil {
			t.Fatalf("launch template user data: %v", err)
		}
		for _, line := range strings.Split(string(ud), "\n") {
			_, list, ok := strings.Cut(line, "--node-labels=")
			if !ok {
				continue
			}
			for _, kv := range strings.Split(strings.Trim(strings.TrimSpace(list), `"'`), ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					labels[k] = v
				}
			}
		}
	}
	if len(labels) == 0 {
		t.Fatal("no --node-labels in any launch template's user data")
	}
	return labels
}

func kubeClient(t *testing.T, cp *controlplane.ControlPlane) client.Client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := agent.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serverVersion is the API server's minor version, such as 1.35.
func serverVersion(t *testing.T, cp *controlplane.ControlPlane) string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	info, err := clientset.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	return info.Major + "." + strings.TrimRight(info.Minor, "+")
}

// world is the fake AWS account of the cluster, its AMI parameters named
// after the API server's version, as the agent looks them up.
func world(t *testing.T, cp *controlplane.ControlPlane) *awsfake.Fake {
	t.Helper()
	fake := awsfake.World(cluster)
	version := serverVersion(t, cp)
	for name, ami := range fake.Parameters {
		fake.Parameters[strings.ReplaceAll(name, awsfake.KubernetesVersion, version)] = ami
	}
	return fake
}

func create(ctx context.Context, t *testing.T, c client.Client, o client.Object) {
	t.Helper()
	if err := c.Create(ctx, o); err != nil {
		t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
	}
}

// buildAgent builds `tenon agent` alone (test/e2e/agent/internal/tenonagent).
func buildAgent(ctx context.Context, t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tenon")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./test/e2e/agent/internal/tenonagent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tenon agent: %v\n%s", err, out)
	}
	return bin
}

// startAgent runs `tenon agent --cloud aws` with its SDK clients pointed at
// the server; Cleanup stops it. It returns the agent's log.
func startAgent(t *testing.T, binary, kubeconfig, endpoint string) *controlplane.SyncBuffer {
	t.Helper()
	log := &controlplane.SyncBuffer{}
	cmd := exec.Command(binary, "agent", "--cloud=aws", "--cluster-name="+cluster, "--kubeconfig="+kubeconfig,
		"--metrics-addr="+controlplane.FreeAddr(), "--health-addr="+controlplane.FreeAddr(), "--log-format=text", "--batch-idle=1s", "--batch-max=5s",
		"--region=us-east-1", "--interruption-queue=tenon-e2e", "--cluster-endpoint=https://ABC.gr7.us-east-1.eks.amazonaws.com")
	none := filepath.Join(t.TempDir(), "none")
	cmd.Env = append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=AKIDEXAMPLE",
		"AWS_SECRET_ACCESS_KEY=secret", "AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE="+none, "AWS_SHARED_CREDENTIALS_FILE="+none)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("---- agent log ----\n%s", log.String())
		}
	})
	return log
}

// waitFor polls cond every 200 ms until it holds or timeout passes. It fails
// at once when the agent exited because it does not support the aws cloud
// or one of its flags.
func waitFor(t *testing.T, log *controlplane.SyncBuffer, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if l := log.String(); strings.Contains(l, "not built into this binary") || strings.Contains(l, "flag provided but not defined") {
			t.Fatalf("tenon agent cannot run --cloud aws yet: %s", strings.TrimSpace(l))
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting %s for %s; last: %s", timeout, what, state)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
