package provider

import "github.com/hashicorp/terraform-plugin-framework/types"

// The provider's configuration as Go values: where the resources are delivered. Their schemas
// are kubernetesBlock (provider_kubernetes.go) and gitBlock (provider_git.go).

// providerModel is the provider block.
type providerModel struct {
	Kubernetes *kubernetesModel `tfsdk:"kubernetes"`
	Git        *gitModel        `tfsdk:"git"`
}

// kubernetesModel is the provider's kubernetes {} block.
type kubernetesModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Insecure             types.Bool   `tfsdk:"insecure"`
	Exec                 *execModel   `tfsdk:"exec"`
}

// execModel is the kubernetes block's exec {} block.
type execModel struct {
	APIVersion types.String            `tfsdk:"api_version"`
	Command    types.String            `tfsdk:"command"`
	Args       []types.String          `tfsdk:"args"`
	Env        map[string]types.String `tfsdk:"env"`
}

// gitModel is the provider's git {} block.
type gitModel struct {
	URL         types.String `tfsdk:"url"`
	Branch      types.String `tfsdk:"branch"`
	Path        types.String `tfsdk:"path"`
	AuthorName  types.String `tfsdk:"author_name"`
	AuthorEmail types.String `tfsdk:"author_email"`
	// AllowInsecureHTTP lets auth go to an http:// url.
	AllowInsecureHTTP types.Bool    `tfsdk:"allow_insecure_http"`
	Auth              *gitAuthModel `tfsdk:"auth"`
}

// gitAuthModel is the git block's auth {} block.
type gitAuthModel struct {
	Username         types.String `tfsdk:"username"`
	Password         types.String `tfsdk:"password"`
	Token            types.String `tfsdk:"token"`
	SSHPrivateKey    types.String `tfsdk:"ssh_private_key"`
	SSHKeyPassphrase types.String `tfsdk:"ssh_key_passphrase"`
	SSHKnownHosts    types.String `tfsdk:"ssh_known_hosts"`
}
