package aws

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
)

// templateSpec is everything one launch template depends on: the NodeClass,
// one of its AMIs, and the pool's labels and taints (capacity type among
// the labels).
type templateSpec struct {
	class  *v1.NodeClass
	r      *resolved
	ami    v1.AMI
	labels map[string]string
	taints []v1.Taint
	pool   string
	// reservation, when set, is the capacity reservation the template
	// launches into (one template per reservation).
	reservation *catalog.Reservation
}

// launchTemplate builds the template's name and data. The name is a hash of
// the data, so one template serves every launch with the same inputs and a
// changed input makes a new one.
func (p *Provider) launchTemplate(ts templateSpec) (string, *ec2types.RequestLaunchTemplateData, error) {
	spec := ts.class.Spec.AWS
	b := bootstrap{
		clusterName: p.opts.ClusterName, endpoint: p.opts.ClusterEndpoint, ca: p.opts.ClusterCA,
		cidr: p.opts.ClusterCIDR, dns: p.opts.ClusterDNS, labels: ts.labels, taints: ts.taints,
		kubelet: spec.Kubelet, custom: spec.UserData,
	}
	if b.dns == "" {
		b.dns = tenthAddress(b.cidr)
	}
	ud, err := userData(family(spec), b)
	if err != nil {
		return "", nil, fmt.Errorf("user data of nodeclass %q: %w", ts.class.Name, err)
	}
	var groups []string
	for _, g := range ts.r.status.SecurityGroups {
		groups = append(groups, g.ID)
	}
	tags := map[string]string{}
	maps.Copy(tags, spec.Tags)
	tags[TagCluster] = p.opts.ClusterName
	tags[TagNodePool] = ts.pool
	data := &ec2types.RequestLaunchTemplateData{
		ImageId:             aws.String(ts.ami.ID),
		IamInstanceProfile:  &ec2types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: aws.String(ts.r.status.InstanceProfile)},
		SecurityGroupIds:    groups,
		MetadataOptions:     metadataOptions(spec.MetadataOptions),
		BlockDeviceMappings: blockDevices(family(spec), spec.BlockDeviceMappings),
		TagSpecifications: []ec2types.LaunchTemplateTagSpecificationRequest{
			{ResourceType: ec2types.ResourceTypeVolume, Tags: ec2Tags(tags)},
			{ResourceType: ec2types.ResourceTypeNetworkInterface, Tags: ec2Tags(tags)},
		},
	}
	if ud != "" {
		data.UserData = aws.String(base64.StdEncoding.EncodeToString([]byte(ud)))
	}
	if res := ts.reservation; res != nil {
		data.CapacityReservationSpecification = &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
			CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String(res.ID)},
		}
		if res.Type == v1.CapacityReservationTypeCapacityBlock {
			data.InstanceMarketOptions = &ec2types.LaunchTemplateInstanceMarketOptionsRequest{MarketType: ec2types.MarketTypeCapacityBlock}
		}
	}
	raw, err := json.Marshal(struct {
		Class string
		Data  *ec2types.RequestLaunchTemplateData
	}{ts.class.Name, data})
	if err != nil {
		return "", nil, fmt.Errorf("hashing the launch template of nodeclass %q: %w", ts.class.Name, err)
	}
	sum := sha256.Sum256(raw)
	return "tenon/" + p.opts.ClusterName + "/" + hex.EncodeToString(sum[:8]), data, nil
}

// ensureLaunchTemplate makes sure the named template exists, creating it on
// first use, and records the use for garbage collection.
func (p *Provider) ensureLaunchTemplate(ctx context.Context, name string, data *ec2types.RequestLaunchTemplateData, pool string) error {
	p.mu.Lock()
	_, known := p.templates[name]
	p.templates[name] = p.now()
	p.mu.Unlock()
	if known {
		return nil
	}
	_, err := p.ec2.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{name}})
	if err == nil {
		return nil
	}
	if !isCode(err, "InvalidLaunchTemplateName.NotFoundException") {
		p.forgetTemplate(name)
		return fmt.Errorf("describing launch template %s: %w", name, err)
	}
	_, err = p.ec2.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(name),
		LaunchTemplateData: data,
		TagSpecifications: []ec2types.TagSpecification{{
			ResourceType: ec2types.ResourceTypeLaunchTemplate,
			Tags:         ec2Tags(map[string]string{TagCluster: p.opts.ClusterName, TagNodePool: pool}),
		}},
	})
	if err != nil && !isCode(err, "InvalidLaunchTemplateName.AlreadyExistsException") {
		p.forgetTemplate(name)
		return fmt.Errorf("creating launch template %s: %w", name, err)
	}
	p.log.Info("created launch template", "launchTemplate", name, "pool", pool, "image", aws.ToString(data.ImageId))
	return nil
}

func (p *Provider) forgetTemplate(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.templates, name)
}

// CollectLaunchTemplates deletes the cluster's launch templates that this
// provider has not used for LaunchTemplateTTL and that are older than that
// (so a template another replica just made survives). It returns the names
// deleted. Refresh calls it; a deleted template is made again on next use.
func (p *Provider) CollectLaunchTemplates(ctx context.Context) ([]string, error) {
	var deleted []string
	pages := ec2.NewDescribeLaunchTemplatesPaginator(p.ec2, &ec2.DescribeLaunchTemplatesInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:" + TagCluster), Values: []string{p.opts.ClusterName}}},
	})
	cutoff := p.now().Add(-p.opts.LaunchTemplateTTL)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return deleted, fmt.Errorf("listing launch templates: %w", err)
		}
		for _, lt := range page.LaunchTemplates {
			name := aws.ToString(lt.LaunchTemplateName)
			p.mu.Lock()
			used, ok := p.templates[name]
			p.mu.Unlock()
			if (ok && used.After(cutoff)) || aws.ToTime(lt.CreateTime).After(cutoff) {
				continue
			}
			_, err := p.ec2.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateName: aws.String(name)})
			if err != nil && !isCode(err, "InvalidLaunchTemplateName.NotFoundException", "InvalidLaunchTemplateId.NotFound") {
				return deleted, fmt.Errorf("deleting launch template %s: %w", name, err)
			}
			p.forgetTemplate(name)
			deleted = append(deleted, name)
			p.log.Info("deleted unused launch template", "launchTemplate", name)
		}
	}
	return deleted, nil
}

// metadataOptions maps the NodeClass's IMDS settings, defaulting to IMDSv2
// only with a hop limit of 1 (pods cannot reach the node's credentials).
func metadataOptions(m *v1.MetadataOptions) *ec2types.LaunchTemplateInstanceMetadataOptionsRequest {
	out := &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{
		HttpEndpoint:            ec2types.LaunchTemplateInstanceMetadataEndpointStateEnabled,
		HttpProtocolIpv6:        ec2types.LaunchTemplateInstanceMetadataProtocolIpv6Disabled,
		HttpPutResponseHopLimit: aws.Int32(1),
		HttpTokens:              ec2types.LaunchTemplateHttpTokensStateRequired,
	}
	if m == nil {
		return out
	}
	if m.HTTPEndpoint != nil {
		out.HttpEndpoint = ec2types.LaunchTemplateInstanceMetadataEndpointState(*m.HTTPEndpoint)
	}
	if m.HTTPProtocolIPv6 != nil {
		out.HttpProtocolIpv6 = ec2types.LaunchTemplateInstanceMetadataProtocolIpv6(*m.HTTPProtocolIPv6)
	}
	if m.HTTPPutResponseHopLimit != nil {
		out.HttpPutResponseHopLimit = aws.Int32(int32(*m.HTTPPutResponseHopLimit))
	}
	if m.HTTPTokens != nil {
		out.HttpTokens = ec2types.LaunchTemplateHttpTokensState(*m.HTTPTokens)
	}
	return out
}

// blockDevices maps the NodeClass's disks, or the family's default: a 20 GiB
// encrypted gp3 root volume (Bottlerocket: a 4 GiB OS volume and a 20 GiB
// data volume).
func blockDevices(fam string, mappings []v1.BlockDeviceMapping) []ec2types.LaunchTemplateBlockDeviceMappingRequest {
	gp3 := func(device string, gib int32) ec2types.LaunchTemplateBlockDeviceMappingRequest {
		return ec2types.LaunchTemplateBlockDeviceMappingRequest{DeviceName: aws.String(device), Ebs: &ec2types.LaunchTemplateEbsBlockDeviceRequest{
			VolumeSize: aws.Int32(gib), VolumeType: ec2types.VolumeTypeGp3, Encrypted: aws.Bool(true), DeleteOnTermination: aws.Bool(true),
		}}
	}
	if len(mappings) == 0 {
		switch fam {
		case v1.AMIFamilyBottlerocket:
			return []ec2types.LaunchTemplateBlockDeviceMappingRequest{gp3("/dev/xvda", 4), gp3("/dev/xvdb", 20)}
		case v1.AMIFamilyAL2023:
			return []ec2types.LaunchTemplateBlockDeviceMappingRequest{gp3("/dev/xvda", 20)}
		}
		return nil
	}
	var out []ec2types.LaunchTemplateBlockDeviceMappingRequest
	for _, m := range mappings {
		bd := ec2types.LaunchTemplateBlockDeviceMappingRequest{DeviceName: aws.String(m.DeviceName)}
		if e := m.EBS; e != nil {
			ebs := &ec2types.LaunchTemplateEbsBlockDeviceRequest{
				DeleteOnTermination: e.DeleteOnTermination, Encrypted: e.Encrypted, KmsKeyId: e.KMSKeyID, SnapshotId: e.SnapshotID,
			}
			if ebs.DeleteOnTermination == nil {
				ebs.DeleteOnTermination = aws.Bool(true)
			}
			if e.IOPS != nil {
				ebs.Iops = aws.Int32(int32(*e.IOPS))
			}
			if e.Throughput != nil {
				ebs.Throughput = aws.Int32(int32(*e.Throughput))
			}
			if e.VolumeSize != nil {
				ebs.VolumeSize = aws.Int32(gibibytes(*e.VolumeSize))
			}
			if e.VolumeType != nil {
				ebs.VolumeType = ec2types.VolumeType(*e.VolumeType)
			}
			bd.Ebs = ebs
		}
		out = append(out, bd)
	}
	return out
}

// gibibytes rounds a quantity up to whole GiB, as EBS sizes volumes.
func gibibytes(q resource.Quantity) int32 {
	const gib = 1 << 30
	return int32((q.Value() + gib - 1) / gib)
}
