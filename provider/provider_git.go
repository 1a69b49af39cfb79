package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"

	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

func gitBlock() schema.Block {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Deliver the resources as commits to a Git repository instead of writing them to a cluster " +
			"(GitOps): each object is one YAML file `<kind>/<name>.yaml` under `path`, listed in a `kustomization.yaml` " +
			"kept in step, for ArgoCD, Flux or the agent's pull mode (`tenon agent --policy-git-url`) to apply. Create, " +
			"update and delete are commits pushed to `branch`; read reads the file back, so an edit made in Git shows up " +
			"as drift. A push that loses a race with another writer is re-applied on the new head, never forced. " +
			"With a `kubernetes` block beside it, objects still go to Git and their computed `status` is read from " +
			"that cluster (empty until ArgoCD, Flux or the agent has applied them).",
		Attributes: map[string]schema.Attribute{
			"url": schema.StringAttribute{Optional: true, MarkdownDescription: "Repository URL: `https://...`, " +
				"`ssh://...` or `git@host:org/repo.git`, `git://...` or `file://...`. Required in this block. It may not hold " +
				"credentials (`https://user:token@host/...` is refused, so no secret reaches the state, plans, logs or the " +
				"agent's arguments): give them in `auth`."},
			"allow_insecure_http": schema.BoolAttribute{Optional: true, MarkdownDescription: "Let `auth`'s token or password " +
				"go to an `http://` URL, in clear text. Off by default: credentials need `https://`. For a test server or a " +
				"trusted network only."},
			"branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Branch to commit to. Defaults to `main`; " +
				"created by the first commit if the repository does not have it."},
			"path": schema.StringAttribute{Optional: true, MarkdownDescription: "Folder of the repository holding the " +
				"objects, such as `clusters/prod/tenon`. Defaults to the repository's root."},
			"author_name": schema.StringAttribute{Optional: true, MarkdownDescription: "Author and committer name of the " +
				"commits. Defaults to `Tenon`."},
			"author_email": schema.StringAttribute{Optional: true, MarkdownDescription: "Author and committer e-mail of " +
				"the commits. Defaults to `tenon@tenon.dev`."},
		},
		Blocks: map[string]schema.Block{
			"auth": schema.SingleNestedBlock{
				MarkdownDescription: "Credentials: `token` (HTTPS access token), `username` and `password` (HTTPS basic), " +
					"or `ssh_private_key` with `ssh_known_hosts` (SSH). Omit for anonymous access.",
				Attributes: map[string]schema.Attribute{
					"username": schema.StringAttribute{Optional: true, MarkdownDescription: "HTTPS user name; with `token` " +
						"it defaults to `x-access-token`."},
					"password":        schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "HTTPS password."},
					"token":           schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "HTTPS access token (GitHub, GitLab, Gitea, ...)."},
					"ssh_private_key": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "PEM or OpenSSH private key for SSH URLs."},
					"ssh_key_passphrase": schema.StringAttribute{Optional: true, Sensitive: true,
						MarkdownDescription: "Passphrase of an encrypted `ssh_private_key`."},
					"ssh_known_hosts": schema.StringAttribute{Optional: true, MarkdownDescription: "known_hosts lines holding " +
						"the SSH server's host key (`ssh-keyscan github.com`). Required with SSH: unknown hosts are never trusted."},
				},
			},
		},
	}
}

// configureGit returns the git target when the git block is set, and false when it is not.
func configureGit(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) (delivery.Target, bool) {
	var g *gitModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("git"), &g)...)
	if resp.Diagnostics.HasError() || g == nil {
		return nil, false
	}
	var k *kubernetesModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("kubernetes"), &k)...)
	if resp.Diagnostics.HasError() {
		return nil, true
	}
	if !req.Config.Raw.IsFullyKnown() {
		return delivery.Unavailable{Reason: "the provider's git block holds values Terraform knows only after apply; run apply, or create them first"}, true
	}
	if g.URL.ValueString() == "" {
		resp.Diagnostics.AddAttributeError(path.Root("git").AtName("url"), "Missing Git URL",
			"Set url to the repository the resources are committed to, such as https://github.com/org/policy.git.")
		return nil, true
	}
	cfg := delivery.GitConfig{
		URL: g.URL.ValueString(), Branch: g.Branch.ValueString(), Path: g.Path.ValueString(),
		AuthorName: g.AuthorName.ValueString(), AuthorEmail: g.AuthorEmail.ValueString(),
		AllowInsecureHTTP: g.AllowInsecureHTTP.ValueBool(),
	}
	if a := g.Auth; a != nil {
		cfg.Auth = gitops.Auth{
			Username: a.Username.ValueString(), Password: a.Password.ValueString(), Token: a.Token.ValueString(),
			SSHPrivateKey: []byte(a.SSHPrivateKey.ValueString()), SSHKeyPassphrase: a.SSHKeyPassphrase.ValueString(),
			SSHKnownHosts: []byte(a.SSHKnownHosts.ValueString()),
		}
		if len(cfg.Auth.SSHPrivateKey) == 0 {
			cfg.Auth.SSHPrivateKey = nil
		}
		if len(cfg.Auth.SSHKnownHosts) == 0 {
			cfg.Auth.SSHKnownHosts = nil
		}
	}
	target, err := delivery.NewGit(cfg)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("git"), "Invalid Git Configuration", err.Error())
		return nil, true
	}
	if k == nil {
		return target, true
	}
	// A kubernetes block beside git: objects still go to Git; status is read from the cluster.
	live := configureKubernetes(ctx, req, resp)
	if resp.Diagnostics.HasError() {
		return nil, true
	}
	return &delivery.GitWithStatus{Git: target, Live: live}, true
}
