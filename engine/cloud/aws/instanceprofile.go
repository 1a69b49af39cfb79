package aws

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// TagNodeClass is the tag naming the NodeClass an instance profile the
// provider manages belongs to.
const TagNodeClass = "tenon.dev/nodeclass"

// ManagedInstanceProfileName is the name of the instance profile the
// provider manages for a NodeClass that names a role:
// tenon_<cluster>_<16 hex digits of sha256(region/nodeclass)>. It is
// deterministic, so a restarted agent finds the profile it created, and
// derived from the NodeClass name, so it can be deleted once the NodeClass is
// gone. IAM names are at most 128 characters; EKS cluster names at most 100.
// The suffix has a fixed length, so the IAM guide's resource pattern
// tenon_<cluster>_ followed by exactly 16 characters (? wildcards) matches
// this cluster's profiles and never another's whose name starts the same
// (tenon_prod_eu_... for cluster prod).
func ManagedInstanceProfileName(cluster, region, nodeClass string) string {
	sum := sha256.Sum256([]byte(region + "/" + nodeClass))
	return "tenon_" + cluster + "_" + hex.EncodeToString(sum[:8])
}

// roleName is the name of a role given as a name or an ARN
// (arn:aws:iam::<account>:role/<path>/<name>).
func roleName(role string) string {
	if i := strings.LastIndex(role, "/"); i >= 0 && strings.HasPrefix(role, "arn:") {
		return role[i+1:]
	}
	return role
}

// isNoSuchEntity reports whether err is IAM's NoSuchEntity.
func isNoSuchEntity(err error) bool { return iamErrorCode(err) == "NoSuchEntity" }

// isUnreadable reports whether GetInstanceProfile found no profile the
// agent may read: NoSuchEntity, or AccessDenied, which the guide's policy
// answers for a profile without this cluster's tag (and for one that does
// not exist, as IAM evaluates the tag condition before looking).
func isUnreadable(err error) bool {
	code := iamErrorCode(err)
	return code == "NoSuchEntity" || code == "AccessDenied"
}

func iamErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// ensureInstanceProfile makes the managed instance profile of NodeClass nc
// exist, tagged with the cluster and the NodeClass, and hold exactly role
// (an instance profile holds at most one role: another one is replaced). It
// returns the profile's name.
func (p *Provider) ensureInstanceProfile(ctx context.Context, nc *v1.NodeClass, role string) (string, error) {
	name := ManagedInstanceProfileName(p.opts.ClusterName, p.region, nc.Name)
	role = roleName(role)
	out, err := p.iam.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(name)})
	var profile *iamtypes.InstanceProfile
	switch {
	case isUnreadable(err):
		created, err := p.iam.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
			InstanceProfileName: aws.String(name),
			Tags: []iamtypes.Tag{
				{Key: aws.String(TagCluster), Value: aws.String(p.opts.ClusterName)},
				{Key: aws.String(TagNodeClass), Value: aws.String(nc.Name)},
			},
		})
		if iamErrorCode(err) == "EntityAlreadyExists" {
			return "", fmt.Errorf("instance profile %s for nodeclass %q exists but the agent may not read it: it lacks the tag %s=%s, so it is not this cluster's; delete or retag it", name, nc.Name, TagCluster, p.opts.ClusterName)
		}
		if err != nil {
			return "", fmt.Errorf("creating instance profile %s for nodeclass %q: %w", name, nc.Name, err)
		}
		p.log.Info("created instance profile", "nodeclass", nc.Name, "instanceProfile", name)
		profile = created.InstanceProfile
	case err != nil:
		return "", fmt.Errorf("looking up instance profile %s of nodeclass %q: %w", name, nc.Name, err)
	default:
		profile = out.InstanceProfile
	}
	if profile == nil {
		return "", fmt.Errorf("IAM returned no instance profile %s", name)
	}
	has := false
	for _, r := range profile.Roles {
		if other := aws.ToString(r.RoleName); other != role {
			if _, err := p.iam.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String(other)}); err != nil && !isNoSuchEntity(err) {
				return "", fmt.Errorf("removing the former role %s from instance profile %s of nodeclass %q: %w", other, name, nc.Name, err)
			}
			p.log.Info("removed the former role from the instance profile", "nodeclass", nc.Name, "instanceProfile", name, "role", other)
		} else {
			has = true
		}
	}
	if !has {
		if _, err := p.iam.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String(role)}); err != nil {
			return "", fmt.Errorf("adding role %s to instance profile %s of nodeclass %q (does the role exist, and may the agent pass it?): %w", role, name, nc.Name, err)
		}
		p.log.Info("added the role to the instance profile", "nodeclass", nc.Name, "instanceProfile", name, "role", role)
	}
	return name, nil
}

// DeleteInstanceProfile deletes the instance profile the provider manages
// for NodeClass name, after removing its role. A profile that does not
// exist, or that is not tagged as this cluster's, is left alone. The
// provider calls it when a NodeClass it resolved is gone (Refresh); the
// agent may call it when it sees a NodeClass deleted.
func (p *Provider) DeleteInstanceProfile(ctx context.Context, name string) error {
	profileName := ManagedInstanceProfileName(p.opts.ClusterName, p.region, name)
	out, err := p.iam.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(profileName)})
	if isUnreadable(err) {
		// Gone, or not this cluster's (the policy denies reading it): either
		// way not ours to delete.
		return nil
	}
	if err != nil {
		return fmt.Errorf("looking up instance profile %s of deleted nodeclass %q: %w", profileName, name, err)
	}
	if out.InstanceProfile == nil || !slices.ContainsFunc(out.InstanceProfile.Tags, func(t iamtypes.Tag) bool {
		return aws.ToString(t.Key) == TagCluster && aws.ToString(t.Value) == p.opts.ClusterName
	}) {
		p.log.Warn("not deleting an instance profile without this cluster's tag", "instanceProfile", profileName, "nodeclass", name)
		return nil
	}
	for _, r := range out.InstanceProfile.Roles {
		if _, err := p.iam.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(profileName), RoleName: r.RoleName}); err != nil && !isNoSuchEntity(err) {
			return fmt.Errorf("removing role %s from instance profile %s of deleted nodeclass %q: %w", aws.ToString(r.RoleName), profileName, name, err)
		}
	}
	if _, err := p.iam.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(profileName)}); err != nil && !isNoSuchEntity(err) {
		return fmt.Errorf("deleting instance profile %s of deleted nodeclass %q: %w", profileName, name, err)
	}
	p.log.Info("deleted instance profile", "nodeclass", name, "instanceProfile", profileName)
	return nil
}
