package awsfake

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// WorldTypes are the instance types World offers, a mix of sizes,
// architectures and a GPU type.
var WorldTypes = []string{"t3.medium", "m5.large", "m5.xlarge", "c5.large", "c5.xlarge", "m6g.large", "g4dn.xlarge"}

// KubernetesVersion is the version World publishes AMI parameters for.
const KubernetesVersion = "1.33"

// World returns a Fake holding a small us-east-1 account for cluster: three
// zones; subnets and a security group tagged kubernetes.io/cluster/<cluster>
// and tenon.dev/discovery=<cluster> (zone a has two subnets, subnet-a2 with
// more free addresses); an untagged security group; the public AL2023 and
// Bottlerocket AMI parameters for Kubernetes 1.33 (x86_64, arm64, nvidia);
// tagged images for amiSelectorTerms; WorldTypes offered in every zone
// (g4dn.xlarge only in a and b); on-demand prices from the embedded catalog
// and spot prices at 30% of them, a tenth of a cent cheaper per zone letter.
func World(cluster string) *Fake {
	cat, err := catalog.New()
	if err != nil {
		panic(fmt.Sprintf("awsfake: the embedded catalog does not load: %v", err))
	}
	return WorldWith(cluster, cat)
}

// WorldWith is World with the embedded catalog already loaded.
func WorldWith(cluster string, cat *catalog.Catalog) *Fake {
	f := New()
	clusterTag := ec2types.Tag{Key: aws.String("kubernetes.io/cluster/" + cluster), Value: aws.String("shared")}
	discovery := ec2types.Tag{Key: aws.String("tenon.dev/discovery"), Value: aws.String(cluster)}
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	subnet := func(id, zone string, free int32) ec2types.Subnet {
		return ec2types.Subnet{SubnetId: aws.String(id), AvailabilityZone: aws.String(zone), AvailabilityZoneId: aws.String("use1-az" + zone[len(zone)-1:]),
			AvailableIpAddressCount: aws.Int32(free), VpcId: aws.String("vpc-1"), State: ec2types.SubnetStateAvailable, Tags: []ec2types.Tag{clusterTag, discovery}}
	}
	f.Subnets = []ec2types.Subnet{
		subnet("subnet-a", "us-east-1a", 100), subnet("subnet-a2", "us-east-1a", 500),
		subnet("subnet-b", "us-east-1b", 200), subnet("subnet-c", "us-east-1c", 300),
		{SubnetId: aws.String("subnet-public"), AvailabilityZone: aws.String("us-east-1a"), VpcId: aws.String("vpc-1"), AvailableIpAddressCount: aws.Int32(1000)},
	}
	f.SecurityGroups = []ec2types.SecurityGroup{
		{GroupId: aws.String("sg-node"), GroupName: aws.String("eks-node"), VpcId: aws.String("vpc-1"), Tags: []ec2types.Tag{clusterTag, discovery}},
		{GroupId: aws.String("sg-other"), GroupName: aws.String("other"), VpcId: aws.String("vpc-1")},
	}
	v := KubernetesVersion
	f.Parameters = map[string]string{
		"/aws/service/eks/optimized-ami/" + v + "/amazon-linux-2023/x86_64/standard/recommended/image_id": "ami-al2023-amd64",
		"/aws/service/eks/optimized-ami/" + v + "/amazon-linux-2023/arm64/standard/recommended/image_id":  "ami-al2023-arm64",
		"/aws/service/eks/optimized-ami/" + v + "/amazon-linux-2023/x86_64/nvidia/recommended/image_id":   "ami-al2023-nvidia",
		"/aws/service/bottlerocket/aws-k8s-" + v + "/x86_64/latest/image_id":                              "ami-br-amd64",
		"/aws/service/bottlerocket/aws-k8s-" + v + "/arm64/latest/image_id":                               "ami-br-arm64",
		"/aws/service/bottlerocket/aws-k8s-" + v + "-nvidia/x86_64/latest/image_id":                       "ami-br-nvidia",
	}
	team := ec2types.Tag{Key: aws.String("team"), Value: aws.String("platform")}
	image := func(id, name, date string, arch ec2types.ArchitectureValues) ec2types.Image {
		return ec2types.Image{ImageId: aws.String(id), Name: aws.String(name), CreationDate: aws.String(date), Architecture: arch,
			State: ec2types.ImageStateAvailable, OwnerId: aws.String("123456789012"), Tags: []ec2types.Tag{team}}
	}
	f.Images = []ec2types.Image{
		image("ami-custom-old", "custom-2026-01", "2026-01-01T00:00:00.000Z", ec2types.ArchitectureValuesX8664),
		image("ami-custom-new", "custom-2026-06", "2026-06-01T00:00:00.000Z", ec2types.ArchitectureValuesX8664),
		image("ami-custom-arm", "custom-arm-2026-06", "2026-06-01T00:00:00.000Z", ec2types.ArchitectureValuesArm64),
	}
	for _, name := range WorldTypes {
		it, ok := cat.Get(name)
		if !ok {
			panic("awsfake: " + name + " is not in the embedded catalog")
		}
		f.InstanceTypes = append(f.InstanceTypes, ec2types.InstanceTypeInfo{InstanceType: ec2types.InstanceType(name)})
		var od float64
		for _, o := range it.Offerings {
			if o.CapacityType == scheduling.CapacityTypeOnDemand {
				od = o.PricePerHour
			}
		}
		f.OnDemandPrices[name] = od
		for i, zone := range zones {
			if name == "g4dn.xlarge" && zone == "us-east-1c" {
				continue
			}
			f.Offerings = append(f.Offerings, ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(name), Location: aws.String(zone), LocationType: ec2types.LocationTypeAvailabilityZone})
			f.SpotPrices = append(f.SpotPrices, ec2types.SpotPrice{
				InstanceType: ec2types.InstanceType(name), AvailabilityZone: aws.String(zone), ProductDescription: ec2types.RIProductDescriptionLinuxUnix,
				SpotPrice: aws.String(formatPrice(od*0.3 - 0.001*float64(i))), Timestamp: aws.Time(f.now()),
			})
		}
	}
	return f
}
