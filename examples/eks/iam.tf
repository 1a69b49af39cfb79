data "aws_caller_identity" "current" {}

data "aws_partition" "current" {}

# The nodes' role. The NodeClass names it; the agent creates and manages the
# instance profile holding it (tenon_<cluster>_<hash>, see
# docs/guides/aws-iam.md).
resource "aws_iam_role" "node" {
  name = "${var.cluster_name}-tenon-node"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy_attachment" "node" {
  for_each = toset([
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
  ])
  role       = aws_iam_role.node.name
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/${each.value}"
}

# Lets nodes with the role join the cluster.
resource "aws_eks_access_entry" "node" {
  cluster_name  = module.eks.cluster_name
  principal_arn = aws_iam_role.node.arn
  type          = "EC2_LINUX"
}

# The agent's role, assumed through EKS Pod Identity by the ServiceAccount
# tenon_agent creates.
resource "aws_iam_role" "agent" {
  name = "${var.cluster_name}-tenon-agent"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "pods.eks.amazonaws.com" }
      Action    = ["sts:AssumeRole", "sts:TagSession"]
    }]
  })
}

# Exactly the policy of docs/guides/aws-iam.md (agent-policy.json.tftpl is a
# copy that a test in engine/cloud/aws keeps identical).
resource "aws_iam_role_policy" "agent" {
  name = "tenon-agent"
  role = aws_iam_role.agent.id
  policy = templatefile("${path.module}/agent-policy.json.tftpl", {
    REGION        = var.region
    ACCOUNT_ID    = data.aws_caller_identity.current.account_id
    CLUSTER_NAME  = var.cluster_name
    NODE_ROLE_ARN = aws_iam_role.node.arn
    QUEUE_NAME    = aws_sqs_queue.interruption.name
  })
}

resource "aws_eks_pod_identity_association" "agent" {
  cluster_name    = module.eks.cluster_name
  namespace       = "tenon-system"
  service_account = "tenon-agent"
  role_arn        = aws_iam_role.agent.arn
}
