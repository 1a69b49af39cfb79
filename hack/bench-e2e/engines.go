package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/localagent"
)

// engine is a node autoscaler under test: how to install it on a fresh cluster with the shared
// policy, and how to start it.
type engine interface {
	Name() string
	// Install puts the engine's CRDs, RBAC and policy objects into the cluster.
	Install(ctx context.Context, c client.Client, cp *controlplane.ControlPlane) error
	// Start runs the engine beside the control plane and returns once it is ready.
	Start(ctx context.Context, cp *controlplane.ControlPlane) (*controlplane.Process, error)
}

// tenon is Tenon's agent, run as the Deployment of engine/agent/manifests would run it, as its
// ServiceAccount.
type tenon struct {
	bin              string
	consolidateAfter string
	extraArgs        []string
	podDeletionCost  bool // -pod-deletion-cost: the setting, with its RBAC
}

func (t *tenon) Name() string { return "tenon" }

func (t *tenon) options() manifests.Options {
	return manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "bench", Settings: manifests.Settings{PodDeletionCost: t.podDeletionCost}}
}

func (t *tenon) Install(ctx context.Context, c client.Client, _ *controlplane.ControlPlane) error {
	if _, err := localagent.Install(ctx, c, t.options()); err != nil {
		return err
	}
	objs, err := kube.ReadData("tenon-policy.yaml", []byte(tenonPolicy(t.consolidateAfter)))
	if err != nil {
		return err
	}
	return kube.Apply(ctx, c, objs)
}

func (t *tenon) Start(ctx context.Context, cp *controlplane.ControlPlane) (*controlplane.Process, error) {
	cmd, err := localagent.NewCommand(t.options(), cp.Kubeconfig, cp.Dir)
	if err != nil {
		return nil, err
	}
	p, err := cp.StartProcess("tenon", t.bin, append(cmd.Args, t.extraArgs...), nil)
	if err != nil {
		return nil, err
	}
	return p, waitReady(ctx, p, "http://"+cmd.HealthAddr+"/readyz")
}

// karpenter is Karpenter's KWOK provider with the same catalog (an instance-types file
// generated from Tenon's) and the same policy.
type karpenter struct {
	bin, crds        string
	consolidateAfter string
}

func (k *karpenter) Name() string { return "karpenter" }

func (k *karpenter) Install(ctx context.Context, c client.Client, _ *controlplane.ControlPlane) error {
	files, err := filepath.Glob(filepath.Join(k.crds, "*.yaml"))
	if err != nil {
		return fmt.Errorf("listing Karpenter's CRDs in %s: %w", k.crds, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("no Karpenter CRDs in %s: -karpenter-crds names the folder make bench-e2e copies them to from the module", k.crds)
	}
	crds, err := kube.ReadFiles(files...)
	if err != nil {
		return err
	}
	if err := kube.Apply(ctx, c, crds); err != nil {
		return err
	}
	objs, err := kube.ReadData("karpenter-policy.yaml", []byte(karpenterPolicy(k.consolidateAfter)))
	if err != nil {
		return err
	}
	return kube.Apply(ctx, c, objs)
}

func (k *karpenter) Start(ctx context.Context, cp *controlplane.ControlPlane) (*controlplane.Process, error) {
	types := filepath.Join(cp.Dir, "karpenter-instance-types.json")
	data, err := karpenterInstanceTypes()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(types, data, 0o600); err != nil {
		return nil, err
	}
	metrics, health := controlplane.FreePort(), controlplane.FreePort()
	env := []string{
		"KUBECONFIG=" + cp.Kubeconfig,
		"INSTANCE_TYPES_FILE_PATH=" + types,
		"DISABLE_LEADER_ELECTION=true",
		"METRICS_PORT=" + strconv.Itoa(metrics),
		"HEALTH_PROBE_PORT=" + strconv.Itoa(health),
		"SYSTEM_NAMESPACE=kube-system",
		"LOG_LEVEL=info",
	}
	p, err := cp.StartProcess("karpenter", k.bin, nil, env)
	if err != nil {
		return nil, err
	}
	return p, waitReady(ctx, p, "http://127.0.0.1:"+strconv.Itoa(health)+"/readyz")
}

// waitReady polls url until it answers 200 (for at most two minutes) or p exits.
func waitReady(ctx context.Context, p *controlplane.Process, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	hc := &http.Client{Timeout: 2 * time.Second}
	var last error
	for {
		if err := p.Exited(); err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s answered %s", url, resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after two minutes: %w (log %s)", last, p.Log())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// karpenterPolicy is Karpenter's side of the shared policy: the same requirements under
// Karpenter's label keys (the instance-types file carries the category and generation labels
// on every offering), the same consolidation, a KWOKNodeClass that registers nodes at once as
// Tenon's KWOK provider does.
func karpenterPolicy(consolidateAfter string) string {
	return `apiVersion: karpenter.kwok.sh/v1alpha1
kind: KWOKNodeClass
metadata:
  name: default
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
      expireAfter: Never
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a, us-east-1b, us-east-1c]}
        - {key: ` + labelCategory + `, operator: In, values: [c, m, r]}
        - {key: ` + labelGeneration + `, operator: Gt, values: ["2"]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: ` + consolidateAfter + "\n"
}

// engineNames lists the engines a -engines value names, checked.
func engineNames(s string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(s, ",") {
		switch n = strings.TrimSpace(n); n {
		case "tenon", "karpenter":
			out = append(out, n)
		case "":
		default:
			return nil, fmt.Errorf("-engines: unknown engine %q (tenon, karpenter)", n)
		}
	}
	return out, nil
}
