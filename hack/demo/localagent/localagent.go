// Package localagent runs `tenon agent` on a local control plane as the Deployment of
// engine/agent/manifests would run it in a cluster: the same CRDs, namespace, ServiceAccount
// and RBAC installed, the Deployment container's arguments, and a kubeconfig that impersonates
// the agent's ServiceAccount, so exactly the RBAC the manifests grant applies. `make demo` and
// `make bench-e2e` share it; nothing that ships imports it.
package localagent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// Install server-side applies everything of the agent's install but the Deployment and its
// PDB (the agent runs as a local process instead) and returns what it applied.
func Install(ctx context.Context, c client.Client, opts manifests.Options) ([]*unstructured.Unstructured, error) {
	objs, err := manifests.Objects(opts)
	if err != nil {
		return nil, err
	}
	var install []client.Object
	for _, o := range objs {
		switch o.GetObjectKind().GroupVersionKind().Kind {
		case "Deployment", "PodDisruptionBudget":
		default:
			install = append(install, o)
		}
	}
	us, err := manifests.Unstructured(install)
	if err != nil {
		return nil, err
	}
	if err := kube.Apply(ctx, c, us); err != nil {
		return nil, fmt.Errorf("installing the agent's CRDs and RBAC: %w", err)
	}
	return us, nil
}

// Command is how to run the agent locally: its arguments, and where it serves metrics and
// health probes.
type Command struct {
	Args        []string
	MetricsAddr string
	HealthAddr  string
}

// NewCommand returns the Deployment container's arguments for opts with free local ports and
// a kubeconfig, written into dir, that impersonates the agent's ServiceAccount on the cluster
// of adminKubeconfig.
func NewCommand(opts manifests.Options, adminKubeconfig, dir string) (Command, error) {
	opts = opts.Defaulted()
	args, err := manifests.AgentArgs(opts)
	if err != nil {
		return Command{}, err
	}
	kubeconfig := filepath.Join(dir, "agent.kubeconfig")
	if err := WriteImpersonatingKubeconfig(adminKubeconfig, kubeconfig, opts.Namespace); err != nil {
		return Command{}, err
	}
	cmd := Command{MetricsAddr: controlplane.FreeAddr(), HealthAddr: controlplane.FreeAddr()}
	cmd.Args = LocalArgs(args, kubeconfig, cmd.MetricsAddr, cmd.HealthAddr)
	return cmd, nil
}

// LocalArgs replaces the in-cluster listen addresses of args with local ones and adds the
// kubeconfig.
func LocalArgs(args []string, kubeconfig, metrics, health string) []string {
	out := make([]string, 0, len(args)+1)
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--metrics-addr="):
			a = "--metrics-addr=" + metrics
		case strings.HasPrefix(a, "--health-addr="):
			a = "--health-addr=" + health
		}
		out = append(out, a)
	}
	return append(out, "--kubeconfig="+kubeconfig)
}

// WriteImpersonatingKubeconfig copies the admin kubeconfig, impersonating the agent's
// ServiceAccount in namespace.
func WriteImpersonatingKubeconfig(admin, path, namespace string) error {
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		return fmt.Errorf("reading %s: %w", admin, err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = "system:serviceaccount:" + namespace + ":" + manifests.Name
		auth.ImpersonateGroups = []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	}
	return clientcmd.WriteToFile(*cfg, path)
}
