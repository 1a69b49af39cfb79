package awsfake

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// Account is the AWS account ID of the ARNs the fake makes.
const Account = "111122223333"

// InstanceProfiles returns the instance profiles by name (copies).
func (f *Fake) InstanceProfiles() map[string]iamtypes.InstanceProfile {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]iamtypes.InstanceProfile, len(f.profiles))
	for k, v := range f.profiles {
		cp := *v
		cp.Roles = slices.Clone(v.Roles)
		cp.Tags = slices.Clone(v.Tags)
		out[k] = cp
	}
	return out
}

// AddInstanceProfile puts an instance profile into the fake as if created
// elsewhere.
func (f *Fake) AddInstanceProfile(p iamtypes.InstanceProfile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.profiles[aws.ToString(p.InstanceProfileName)] = &p
}

// GetInstanceProfile returns a profile, or NoSuchEntity.
func (f *Fake) GetInstanceProfile(ctx context.Context, in *iam.GetInstanceProfileInput, _ ...func(*iam.Options)) (*iam.GetInstanceProfileOutput, error) {
	if err := f.begin(ctx, "GetInstanceProfile", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.profile(aws.ToString(in.InstanceProfileName))
	if err != nil {
		return nil, err
	}
	cp := *p
	cp.Roles, cp.Tags = slices.Clone(p.Roles), slices.Clone(p.Tags)
	return &iam.GetInstanceProfileOutput{InstanceProfile: &cp}, nil
}

// CreateInstanceProfile creates an empty profile with the request's tags,
// or fails with EntityAlreadyExists.
func (f *Fake) CreateInstanceProfile(ctx context.Context, in *iam.CreateInstanceProfileInput, _ ...func(*iam.Options)) (*iam.CreateInstanceProfileOutput, error) {
	if err := f.begin(ctx, "CreateInstanceProfile", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := aws.ToString(in.InstanceProfileName)
	if _, ok := f.profiles[name]; ok {
		return nil, apiError("EntityAlreadyExists", "Instance Profile "+name+" already exists.")
	}
	path := aws.ToString(in.Path)
	if path == "" {
		path = "/"
	}
	p := &iamtypes.InstanceProfile{
		InstanceProfileName: aws.String(name), Path: aws.String(path),
		Arn:               aws.String("arn:aws:iam::" + Account + ":instance-profile" + path + name),
		InstanceProfileId: aws.String(f.nextID("AIPA")), CreateDate: aws.Time(f.now().UTC()),
		Roles: []iamtypes.Role{}, Tags: slices.Clone(in.Tags),
	}
	f.profiles[name] = p
	cp := *p
	return &iam.CreateInstanceProfileOutput{InstanceProfile: &cp}, nil
}

// AddRoleToInstanceProfile adds a role (any name is taken as an existing
// role); a profile holds one role at most (LimitExceeded).
func (f *Fake) AddRoleToInstanceProfile(ctx context.Context, in *iam.AddRoleToInstanceProfileInput, _ ...func(*iam.Options)) (*iam.AddRoleToInstanceProfileOutput, error) {
	if err := f.begin(ctx, "AddRoleToInstanceProfile", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.profile(aws.ToString(in.InstanceProfileName))
	if err != nil {
		return nil, err
	}
	if len(p.Roles) > 0 {
		return nil, apiError("LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")
	}
	role := aws.ToString(in.RoleName)
	p.Roles = append(p.Roles, iamtypes.Role{
		RoleName: aws.String(role), Path: aws.String("/"), Arn: aws.String("arn:aws:iam::" + Account + ":role/" + role),
		RoleId: aws.String("AROA" + role), CreateDate: aws.Time(f.now().UTC()),
	})
	return &iam.AddRoleToInstanceProfileOutput{}, nil
}

// RemoveRoleFromInstanceProfile removes a role, or fails with NoSuchEntity.
func (f *Fake) RemoveRoleFromInstanceProfile(ctx context.Context, in *iam.RemoveRoleFromInstanceProfileInput, _ ...func(*iam.Options)) (*iam.RemoveRoleFromInstanceProfileOutput, error) {
	if err := f.begin(ctx, "RemoveRoleFromInstanceProfile", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.profile(aws.ToString(in.InstanceProfileName))
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(p.Roles, func(r iamtypes.Role) bool { return aws.ToString(r.RoleName) == aws.ToString(in.RoleName) })
	if i < 0 {
		return nil, apiError("NoSuchEntity", "The role with name "+aws.ToString(in.RoleName)+" cannot be found in the instance profile.")
	}
	p.Roles = slices.Delete(p.Roles, i, i+1)
	return &iam.RemoveRoleFromInstanceProfileOutput{}, nil
}

// DeleteInstanceProfile deletes a profile without roles (DeleteConflict
// otherwise), or fails with NoSuchEntity.
func (f *Fake) DeleteInstanceProfile(ctx context.Context, in *iam.DeleteInstanceProfileInput, _ ...func(*iam.Options)) (*iam.DeleteInstanceProfileOutput, error) {
	if err := f.begin(ctx, "DeleteInstanceProfile", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := aws.ToString(in.InstanceProfileName)
	p, err := f.profile(name)
	if err != nil {
		return nil, err
	}
	if len(p.Roles) > 0 {
		return nil, apiError("DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.")
	}
	delete(f.profiles, name)
	return &iam.DeleteInstanceProfileOutput{}, nil
}

// profile returns the named profile or NoSuchEntity; f.mu held.
func (f *Fake) profile(name string) (*iamtypes.InstanceProfile, error) {
	p, ok := f.profiles[name]
	if !ok {
		return nil, apiError("NoSuchEntity", "Instance Profile "+name+" cannot be found.")
	}
	return p, nil
}
