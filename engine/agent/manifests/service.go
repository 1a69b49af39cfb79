package manifests

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MetricsServiceName is the Service in front of the agent's metrics port, for Prometheus
// scrape configurations and ServiceMonitors. Every replica serves metrics, the stand-bys too.
const MetricsServiceName = Name + "-metrics"

func metricsService(o Options) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(MetricsServiceName, o.Namespace),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: Labels(),
			Ports: []corev1.ServicePort{{
				Name:       "metrics",
				Port:       MetricsPort,
				TargetPort: intstr.FromString("metrics"),
				Protocol:   corev1.ProtocolTCP,
			}},
		},
	}
}
