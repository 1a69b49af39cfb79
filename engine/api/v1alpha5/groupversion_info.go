package v1alpha5

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// Group is the API group of every Tenon object, v1's.
const Group = v1.Group

// Version is the version of the API in this package.
const Version = "v1alpha5"

// ProvisionerKind is the kind of a Provisioner.
const ProvisionerKind = "Provisioner"

// SchemeGroupVersion is the group and version of the objects in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

var (
	// SchemeBuilder registers the types of this package with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the types of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Resource returns the group-qualified resource for an unqualified resource name such as
// "provisioners".
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Provisioner{}, &ProvisionerList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
