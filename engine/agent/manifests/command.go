package manifests

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/internal/cli"
	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

// Which objects `tenon manifests --crds` prints.
const (
	CRDsInclude = "include"
	CRDsSkip    = "skip"
	CRDsOnly    = "only"
)

var commandUsage = []string{
	"Usage: tenon manifests --cloud aws|kwok --cluster-name NAME [flags] > tenon.yaml",
	"\nPrints the agent's complete install as multi-document YAML: the Namespace, the tenon.dev CRDs,",
	"the ServiceAccount, least-privilege RBAC, the Deployment, its PodDisruptionBudget and the metrics",
	"Service, exactly what the tenon_agent Terraform resource applies for the same settings. Apply it",
	"with `kubectl apply --server-side -f tenon.yaml`, or commit it for ArgoCD or Flux.",
	"Without --image the Deployment runs this binary's own version, " + ImageRepository + ":" + version.ImageTag() + ".",
	"--crds skip leaves the CRDs out (to manage them apart); --crds only prints just them (to upgrade them).",
	"--read-only-role prints only the ClusterRole " + ReadOnlyClusterRoleName + " (get and list on what the agent reads), which",
	"`tenon simulate --kubeconfig` and `tenon explain` need; it takes no other flag.",
	"--service-monitor adds a Prometheus Operator ServiceMonitor (monitoring.coreos.com/v1) scraping the metrics Service.",
	"Exit status: 0 printed, 2 bad flags or settings.",
}

// commandFlags are the flags of `tenon manifests`: one per setting of the tenon_agent resource.
type commandFlags struct {
	opts          Options
	pullPolicy    string
	annotations   keyValues
	zones         stringList
	args          stringList
	git           PolicyGit
	crds          cli.Choice
	readOnly      bool
	monitor       bool
	monitorLabels keyValues
}

func (f *commandFlags) register(fs *flag.FlagSet) {
	o, s := &f.opts, &f.opts.Settings
	fs.StringVar(&o.Cloud, "cloud", "", "where nodes are launched: aws or kwok (required)")
	fs.StringVar(&o.ClusterName, "cluster-name", "", "the cluster's `name` in cloud tags and logs (required)")
	fs.StringVar(&o.Namespace, "namespace", DefaultNamespace, "`namespace` of the agent")
	fs.StringVar(&o.Image, "image", "", "the agent's container `image` (default "+ImageRepository+":"+version.ImageTag()+", this binary's version)")
	fs.StringVar(&f.pullPolicy, "image-pull-policy", "", "Always, IfNotPresent or Never; empty lets Kubernetes choose")
	fs.Var(int32Value{&o.Replicas}, "replicas", "`N` replicas of the Deployment: one leader, the others on stand-by (default 2)")
	fs.Var(&f.annotations, "service-account-annotation", "`key=value` annotation of the ServiceAccount, such as eks.amazonaws.com/role-arn=ARN for IRSA; repeatable")
	fs.DurationVar(&s.BatchIdle, "batch-idle", DefaultBatchIdle, "close a batch of pending pods after this long without a new one")
	fs.DurationVar(&s.BatchMax, "batch-max", DefaultBatchMax, "close a batch of pending pods at the latest this long after its first pod")
	fs.StringVar(&s.LogLevel, "log-level", DefaultLogLevel, "debug, info, warn or error")
	fs.StringVar(&s.LogFormat, "log-format", DefaultLogFormat, "json or text")
	fs.StringVar(&s.InterruptionQueue, "interruption-queue", "", "aws: the SQS `queue` of spot interruption and instance state events")
	fs.StringVar(&s.Region, "region", "", "cloud `region`; empty lets the agent decide")
	fs.Var(&f.zones, "zones", "comma-separated `zones` nodes may be launched in; empty means all of the region")
	fs.DurationVar(&s.KWOKLaunchDelay, "kwok-launch-delay", 0, "kwok: simulated boot time of a node")
	fs.BoolVar(&s.PodDeletionCost, "pod-deletion-cost", false, "write controller.kubernetes.io/pod-deletion-cost on ReplicaSet pods so a scale-down deletes first the replicas on the nodes consolidation would remove (off by default, as in Karpenter)")
	fs.StringVar(&f.git.URL, "policy-git-url", "", "pull mode: the `repository` whose tenon.dev objects the agent applies itself")
	fs.StringVar(&f.git.Branch, "policy-git-branch", "", "pull mode: the `branch` to follow (default the agent's)")
	fs.StringVar(&f.git.Path, "policy-git-path", "", "pull mode: the repository `folder` holding the objects (default the root)")
	fs.DurationVar(&f.git.Interval, "policy-git-interval", 0, "pull mode: time between fetches (default the agent's)")
	fs.StringVar(&f.git.Secret, "policy-git-secret", "", "pull mode: the `Secret` in the agent's namespace with the Git credentials")
	fs.Var(&f.args, "arg", "an extra agent `flag` such as --cluster-cidr=172.20.0.0/16, for flags the settings do not cover; repeatable")
	fs.Var(&f.crds, "crds", "include, skip or only: whether to print the CRDs")
	fs.BoolVar(&f.readOnly, "read-only-role", false, "print only the read-only ClusterRole "+ReadOnlyClusterRoleName+" that tenon simulate --kubeconfig and tenon explain need")
	fs.BoolVar(&f.monitor, "service-monitor", false, "add a Prometheus Operator ServiceMonitor for the metrics Service (needs the Operator's CRDs)")
	fs.Var(&f.monitorLabels, "service-monitor-label", "`key=value` label of the ServiceMonitor, such as release=kube-prometheus-stack for the Prometheus that selects it; repeatable; implies --service-monitor")
}

// options turns the parsed flags into Options.
func (f *commandFlags) options() Options {
	o := f.opts
	o.ImagePullPolicy = corev1.PullPolicy(f.pullPolicy)
	if len(f.annotations) > 0 {
		o.ServiceAccountAnnotations = f.annotations
	}
	for _, z := range f.zones {
		o.Settings.Zones = append(o.Settings.Zones, strings.Split(z, ",")...)
	}
	o.Args = f.args
	if f.monitor || len(f.monitorLabels) > 0 {
		o.ServiceMonitor = &ServiceMonitor{Labels: f.monitorLabels}
	}
	if f.git.URL != "" || f.git.Branch != "" || f.git.Path != "" || f.git.Interval != 0 || f.git.Secret != "" {
		g := f.git
		o.PolicyGit = &g
	}
	return o
}

// Command is `tenon manifests`: it prints the objects Objects builds for the flags' settings as
// YAML on stdout. Bad flags or settings exit 2 naming each one at fault.
func Command(_ context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := cli.Command{Name: "tenon manifests", Stderr: stderr}
	f := &commandFlags{crds: cli.Choice{Value: CRDsInclude, Allowed: []string{CRDsInclude, CRDsSkip, CRDsOnly}}}
	fs := cmd.FlagSet(commandUsage...)
	f.register(fs)
	positional, err := cli.Parse(fs, args)
	if err != nil {
		return cli.ParseExit(err)
	}
	if len(positional) > 0 {
		cmd.Printf("unexpected argument %q: tenon manifests takes only flags", positional[0])
		return cli.ExitBadInput
	}
	if f.readOnly {
		return printReadOnlyRole(cmd, fs, stdout)
	}
	objs, err := Objects(f.options())
	if err != nil {
		cmd.Printf("%v", err)
		return cli.ExitBadInput
	}
	data, err := YAML(selectCRDs(objs, f.crds.Value))
	if err != nil {
		cmd.Printf("%v", err)
		return 1
	}
	if f.opts.Image == "" && f.crds.Value != CRDsOnly {
		if note := DefaultImageNote(); note != "" {
			cmd.Printf("%s", note)
		}
	}
	fmt.Fprintf(stdout, "# The install of Tenon's agent, printed by tenon manifests %s.\n", version.Version())
	if _, err := stdout.Write(data); err != nil {
		cmd.Printf("writing the manifests: %v", err)
		return 1
	}
	return cli.ExitOK
}

func selectCRDs(objs []client.Object, which string) []client.Object {
	isCRD := func(o client.Object) bool {
		return o.GetObjectKind().GroupVersionKind().Kind == "CustomResourceDefinition"
	}
	switch which {
	case CRDsSkip:
		return slices.DeleteFunc(objs, isCRD)
	case CRDsOnly:
		return slices.DeleteFunc(objs, func(o client.Object) bool { return !isCRD(o) })
	}
	return objs
}

// keyValues is a repeatable key=value flag.
type keyValues map[string]string

func (kv *keyValues) String() string {
	var parts []string
	for k, v := range *kv {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// Set adds one key=value pair.
func (kv *keyValues) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return errors.New("must be key=value, such as eks.amazonaws.com/role-arn=arn:aws:iam::123456789012:role/tenon")
	}
	if *kv == nil {
		*kv = keyValues{}
	}
	(*kv)[k] = v
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

// Set adds one value.
func (l *stringList) Set(s string) error {
	if s == "" {
		return errors.New("must not be empty")
	}
	*l = append(*l, s)
	return nil
}

// int32Value is an int32 flag.
type int32Value struct{ p *int32 }

func (v int32Value) String() string {
	if v.p == nil {
		return "0"
	}
	return fmt.Sprint(*v.p)
}

// Set parses a decimal int32.
func (v int32Value) Set(s string) error {
	var n int32
	if _, err := fmt.Sscan(s, &n); err != nil || fmt.Sprint(n) != s {
		return errors.New("must be a whole number such as 2")
	}
	*v.p = n
	return nil
}

// printReadOnlyRole prints ReadOnlyClusterRole for --read-only-role, which takes no other flag
// (the role depends on none of them).
func printReadOnlyRole(cmd cli.Command, fs *flag.FlagSet, stdout io.Writer) int {
	var others []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "read-only-role" {
			others = append(others, "--"+f.Name)
		}
	})
	if len(others) > 0 {
		cmd.Printf("--read-only-role takes no other flag (got %s): the role is the same for every install", strings.Join(others, ", "))
		return cli.ExitBadInput
	}
	data, err := YAML([]client.Object{ReadOnlyClusterRole()})
	if err != nil {
		cmd.Printf("%v", err)
		return 1
	}
	fmt.Fprintf(stdout, "# The read-only ClusterRole of tenon simulate --kubeconfig and tenon explain, printed by tenon manifests %s.\n", version.Version())
	if _, err := stdout.Write(data); err != nil {
		cmd.Printf("writing the role: %v", err)
		return 1
	}
	return cli.ExitOK
}
