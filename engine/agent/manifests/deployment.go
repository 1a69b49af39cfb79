package manifests

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// PriorityClassName keeps the agent scheduled ahead of workloads: without it, pending pods
// could preempt the one component that adds capacity for them.
const PriorityClassName = "system-cluster-critical"

// runAsUser is the distroless nonroot user.
const runAsUser = 65532

// deployment runs the agent: Replicas pods on different nodes (required anti-affinity on the
// hostname) spread over zones, never on a node the agent launched, with probes, requests and a
// locked-down security context.
func deployment(o Options) *appsv1.Deployment {
	selector := &metav1.LabelSelector{MatchLabels: Labels()}
	maxUnavailable := intstr.FromInt32(1)
	maxSurge := intstr.FromInt32(0) // anti-affinity: a surge pod could find no free node
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta(Name, o.Namespace),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(o.Replicas),
			Selector: selector,
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &maxUnavailable, MaxSurge: &maxSurge},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: Labels()},
				Spec: corev1.PodSpec{
					ServiceAccountName: Name,
					PriorityClassName:  PriorityClassName,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](runAsUser),
						RunAsGroup:     ptr.To[int64](runAsUser),
						FSGroup:        ptr.To[int64](runAsUser),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Affinity: affinity(),
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew:           1,
						TopologyKey:       corev1.LabelTopologyZone,
						WhenUnsatisfiable: corev1.ScheduleAnyway,
						LabelSelector:     &metav1.LabelSelector{MatchLabels: Labels()},
					}},
					Containers: []corev1.Container{container(o)},
					Volumes:    tmpVolume(o),
				},
			},
		},
	}
}

// tmpDir is where pull mode's SSH transport writes its known_hosts file (the system's temporary
// folder): under the read-only root filesystem it must be a volume of its own.
const tmpDir = "/tmp"

// tmpVolume is a small emptyDir for tmpDir in pull mode, and nothing otherwise.
func tmpVolume(o Options) []corev1.Volume {
	if o.PolicyGit == nil {
		return nil
	}
	size := resource.MustParse("16Mi")
	return []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &size}}}}
}

// tmpMount mounts tmpVolume at tmpDir in pull mode.
func tmpMount(o Options) []corev1.VolumeMount {
	if o.PolicyGit == nil {
		return nil
	}
	return []corev1.VolumeMount{{Name: "tmp", MountPath: tmpDir}}
}

func affinity() *corev1.Affinity {
	return &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{
						Key:      PoolLabel,
						Operator: corev1.NodeSelectorOpDoesNotExist,
					}},
				}},
			},
		},
		PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey:   corev1.LabelHostname,
				LabelSelector: &metav1.LabelSelector{MatchLabels: Labels()},
			}},
		},
	}
}

func container(o Options) corev1.Container {
	probe := func(path string, period int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("health")},
			},
			InitialDelaySeconds: 5,
			PeriodSeconds:       period,
			TimeoutSeconds:      5,
			FailureThreshold:    3,
		}
	}
	return corev1.Container{
		Name:            ContainerName,
		Image:           o.Image,
		ImagePullPolicy: o.ImagePullPolicy,
		Args:            agentArgs(o),
		Ports: []corev1.ContainerPort{
			{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
			{Name: "health", ContainerPort: HealthPort, Protocol: corev1.ProtocolTCP},
		},
		LivenessProbe:  probe("/healthz", 10),
		ReadinessProbe: probe("/readyz", 5),
		Resources:      o.Resources,
		VolumeMounts:   tmpMount(o),
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr.To(true),
			ReadOnlyRootFilesystem:   ptr.To(true),
			AllowPrivilegeEscalation: ptr.To(false),
			Privileged:               ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}
