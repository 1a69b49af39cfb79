package provider

import (
	"context"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// kubernetesEnv maps each attribute to its environment fallback, as hashicorp/kubernetes
// names them (config_path also falls back to KUBECONFIG, a list of paths).
var kubernetesEnv = map[string]string{
	"config_path":            "KUBE_CONFIG_PATH",
	"config_context":         "KUBE_CTX",
	"host":                   "KUBE_HOST",
	"token":                  "KUBE_TOKEN",
	"client_certificate":     "KUBE_CLIENT_CERT_DATA",
	"client_key":             "KUBE_CLIENT_KEY_DATA",
	"cluster_ca_certificate": "KUBE_CLUSTER_CA_CERT_DATA",
	"insecure":               "KUBE_INSECURE",
}

func envDoc(name, what string) string {
	return what + " Defaults to the `" + kubernetesEnv[name] + "` environment variable."
}

func kubernetesBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "The cluster the resources are written to, with server-side apply (field manager " +
			"`tenon-terraform`). Use a kubeconfig (`config_path`, `config_context`), or `host` with `token`, " +
			"`client_certificate`/`client_key` or `exec`. Values known only after apply (a cluster created in " +
			"the same run) are fine: the provider connects when a resource first needs the cluster.",
		Attributes: map[string]schema.Attribute{
			"config_path": schema.StringAttribute{Optional: true, MarkdownDescription: envDoc("config_path",
				"Path of a kubeconfig file, such as `~/.kube/config`.") + " Then to `KUBECONFIG` (a `:`-separated list)."},
			"config_context": schema.StringAttribute{Optional: true, MarkdownDescription: envDoc("config_context",
				"Context of the kubeconfig to use instead of its current context.")},
			"host": schema.StringAttribute{Optional: true, MarkdownDescription: envDoc("host",
				"URL of the API server, such as `https://127.0.0.1:6443`. When set, no kubeconfig is read.")},
			"token": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: envDoc("token",
				"Bearer token for the API server.")},
			"client_certificate": schema.StringAttribute{Optional: true, MarkdownDescription: envDoc("client_certificate",
				"PEM client certificate, with `client_key`.")},
			"client_key": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: envDoc("client_key",
				"PEM private key of `client_certificate`.")},
			"cluster_ca_certificate": schema.StringAttribute{Optional: true, MarkdownDescription: envDoc("cluster_ca_certificate",
				"PEM certificate of the authority that signed the API server's certificate.")},
			"insecure": schema.BoolAttribute{Optional: true, MarkdownDescription: envDoc("insecure",
				"Skip verifying the API server's certificate. For local tests only.")},
		},
		Blocks: map[string]schema.Block{
			"exec": schema.SingleNestedBlock{
				MarkdownDescription: "A client-go credential plugin that prints a token, such as " +
					"`aws eks get-token --cluster-name prod`.",
				Attributes: map[string]schema.Attribute{
					"api_version": schema.StringAttribute{Optional: true, MarkdownDescription: "API version of the plugin's ExecCredential, such as `client.authentication.k8s.io/v1beta1`."},
					"command":     schema.StringAttribute{Optional: true, MarkdownDescription: "Command to run, such as `aws`."},
					"args":        schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Arguments of the command."},
					"env":         schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Environment variables of the command."},
				},
			},
		},
	}
}

// configureKubernetes turns the kubernetes block (and its environment fallbacks) into a
// delivery target. With values unknown until apply it returns a target that explains that
// instead of failing the plan, as hashicorp/kubernetes does.
func configureKubernetes(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) delivery.Target {
	if !req.Config.Raw.IsFullyKnown() {
		return delivery.Unavailable{Reason: "the provider's kubernetes block holds values Terraform knows only after " +
			"apply (such as the endpoint of a cluster created in the same run); run apply, or apply the cluster first"}
	}
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return nil
	}
	k := m.Kubernetes
	if k == nil {
		k = &kubernetesModel{}
	}
	cfg := delivery.KubernetesConfig{
		ConfigContext:        stringOrEnv(k.ConfigContext, "config_context"),
		Host:                 stringOrEnv(k.Host, "host"),
		Token:                stringOrEnv(k.Token, "token"),
		ClientCertificate:    stringOrEnv(k.ClientCertificate, "client_certificate"),
		ClientKey:            stringOrEnv(k.ClientKey, "client_key"),
		ClusterCACertificate: stringOrEnv(k.ClusterCACertificate, "cluster_ca_certificate"),
	}
	if p := stringOrEnv(k.ConfigPath, "config_path"); p != "" {
		cfg.ConfigPaths = []string{p}
	} else if list := os.Getenv("KUBECONFIG"); list != "" {
		cfg.ConfigPaths = filepath.SplitList(list)
	}
	switch {
	case !k.Insecure.IsNull():
		cfg.Insecure = k.Insecure.ValueBool()
	case os.Getenv(kubernetesEnv["insecure"]) != "":
		v, err := strconv.ParseBool(os.Getenv(kubernetesEnv["insecure"]))
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("kubernetes").AtName("insecure"), "Invalid KUBE_INSECURE",
				"The KUBE_INSECURE environment variable must be true or false: "+err.Error())
			return nil
		}
		cfg.Insecure = v
	}
	if e := k.Exec; e != nil && !e.Command.IsNull() {
		exec := &delivery.ExecConfig{APIVersion: e.APIVersion.ValueString(), Command: e.Command.ValueString(), Env: map[string]string{}}
		for _, a := range e.Args {
			exec.Args = append(exec.Args, a.ValueString())
		}
		for n, v := range e.Env {
			exec.Env[n] = v.ValueString()
		}
		cfg.Exec = exec
	}
	if cfg.Exec != nil && cfg.Host == "" {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes").AtName("host"), "Missing Kubernetes Host",
			"The kubernetes exec block gives a token for a cluster named by host; set host (and cluster_ca_certificate).")
		return nil
	}
	return delivery.NewKubernetes(cfg)
}

func stringOrEnv(v types.String, name string) string {
	if !v.IsNull() {
		return v.ValueString()
	}
	return os.Getenv(kubernetesEnv[name])
}
