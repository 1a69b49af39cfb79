package aws

import "flag"

// AddFlags registers the flags of the options only the aws cloud needs, for
// `tenon agent --cloud aws`: --cluster-endpoint, --cluster-ca,
// --cluster-cidr, --cluster-dns and --kubernetes-version, written into o
// when fs is parsed. ClusterName, Region and InterruptionQueue come from the
// agent's own --cluster-name, --region and --interruption-queue; New checks
// the values.
func AddFlags(fs *flag.FlagSet, o *Options) {
	fs.StringVar(&o.ClusterEndpoint, "cluster-endpoint", o.ClusterEndpoint, "aws: the API server URL nodes join (EKS: aws eks describe-cluster --query cluster.endpoint)")
	fs.StringVar(&o.ClusterCA, "cluster-ca", o.ClusterCA, "aws: the cluster CA, base64 PEM as EKS returns it (certificateAuthority.data)")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "aws: the service CIDR for nodeadm (default 10.100.0.0/16)")
	fs.StringVar(&o.ClusterDNS, "cluster-dns", o.ClusterDNS, "aws: the cluster DNS IP for Bottlerocket (default the service CIDR's .10)")
	fs.StringVar(&o.KubernetesVersion, "kubernetes-version", o.KubernetesVersion, "aws: the cluster's minor version, such as 1.33, naming the AMIs' SSM parameters")
}
