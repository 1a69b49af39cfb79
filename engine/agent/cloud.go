package agent

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/kwok"
)

// newCloud builds the cloud provider --cloud names. Both read the API
// server directly, not through the informer cache, so that Create's
// idempotency check and NodeClass look-ups never see stale data.
// Both log through log, the agent's logger (--log-format, --log-level).
func newCloud(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, opts Options, log logr.Logger) (cloud.CloudProvider, error) {
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("creating the cloud provider's client: %w", err)
	}
	switch opts.Cloud {
	case CloudKWOK:
		return kwok.New(c, kwok.Options{ClusterName: opts.ClusterName, Region: opts.Region, Zones: opts.Zones, LaunchDelay: opts.KWOKLaunchDelay, Logger: log})
	case CloudAWS:
		return newAWS(ctx, cfg, c, opts, log)
	}
	return nil, fmt.Errorf("--cloud %q: use kwok or aws", opts.Cloud)
}

// newAWS builds the EC2 provider: credentials the SDK's default way (IRSA,
// Pod Identity, environment), the endpoint nodes join (--cluster-endpoint,
// else the API server the agent talks to) with its CA, and the server's
// Kubernetes minor version for the EKS-optimized AMIs.
func newAWS(ctx context.Context, cfg *rest.Config, c client.Client, opts Options, log logr.Logger) (cloud.CloudProvider, error) {
	endpoint := opts.ClusterEndpoint
	if endpoint == "" {
		endpoint = cfg.Host
	}
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		data, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading the cluster CA %s: %w", cfg.CAFile, err)
		}
		ca = data
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating a discovery client: %w", err)
	}
	info, err := kube.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's Kubernetes version: %w", err)
	}
	version := info.Major + "." + strings.TrimRight(info.Minor, "+")
	p, err := aws.NewFromDefaultConfig(ctx, aws.Options{
		ClusterName:       opts.ClusterName,
		Region:            opts.Region,
		InterruptionQueue: opts.InterruptionQueue,
		ClusterEndpoint:   endpoint,
		ClusterCIDR:       opts.ClusterCIDR,
		ClusterCA:         base64.StdEncoding.EncodeToString(ca),
		KubernetesVersion: version,
		Logger:            log,
		NodeClass: func(ctx context.Context, name string) (*v1.NodeClass, error) {
			nc := &v1.NodeClass{}
			err := c.Get(ctx, client.ObjectKey{Name: name}, nc)
			if apierrors.IsNotFound(err) {
				return nil, nil // gone: the provider reports it and releases what it managed for it
			}
			if err != nil {
				return nil, fmt.Errorf("reading nodeclass %s: %w", name, err)
			}
			return nc, nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("--cloud aws: %w", err)
	}
	return p, nil
}
