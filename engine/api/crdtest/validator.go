// Package crdtest evaluates a CustomResourceDefinition's validation in process with
// the code kube-apiserver itself runs (k8s.io/apiextensions-apiserver): structural
// defaulting, OpenAPI schema validation, list-type invariants, embedded ObjectMeta and
// CEL x-kubernetes-validations including transition rules and ratcheting. Tests use it
// to prove that a generated CRD and its Go validation twin agree, without an API server.
//
// The pipeline mirrors a create (old == nil) or update request with strict field
// validation, the kubectl default:
//
//  1. the object is decoded to its JSON form (integers as int64) and defaulted;
//  2. apiVersion and kind, when absent, are taken from the CRD as the request URL would
//     supply them; a namespaced object with no namespace gets "default"; an update
//     carries the stored resourceVersion, as a patch does;
//  3. fields the schema does not declare fail the request on their own, as
//     fieldValidation=Strict does, with no further validation;
//  4. ObjectMeta, the OpenAPI schema, embedded resources and list-type sets and maps are
//     validated; unless one of those errors blocks CEL (as in the API server: a type,
//     enum, required, too-long or too-many error), the CEL rules run with the API
//     server's per-call and per-object cost limits.
//
// The status subresource is not emulated: status is validated like any other field
// rather than dropped, so its schema can be tested too.
package crdtest

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/yaml"
)

// Validator holds one version of a CRD, compiled once, ready to validate objects.
// It is safe for concurrent use.
type Validator struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator // nil when the version has no CEL rules
}

// NewValidator parses a CRD (apiextensions.k8s.io/v1 YAML or JSON), validates it as the
// API server does when the CRD is created — so a CEL rule that does not compile, or costs
// more than the server allows, fails here — and prepares validation of the named version.
func NewValidator(crdYAML []byte, version string) (*Validator, error) {
	crd, err := parseCRD(crdYAML)
	if err != nil {
		return nil, err
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), crd); len(errs) > 0 {
		return nil, fmt.Errorf("CRD %s would be rejected by the API server: %w", crd.Name, errs.ToAggregate())
	}
	if !apiextensions.HasServedCRDVersion(crd, version) {
		return nil, fmt.Errorf("CRD %s does not serve version %q", crd.Name, version)
	}
	validation, err := apiextensions.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, fmt.Errorf("reading the schema of %s %s: %w", crd.Name, version, err)
	}
	if validation == nil || validation.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("CRD %s version %s has no openAPIV3Schema", crd.Name, version)
	}
	structural, err := structuralschema.NewStructural(validation.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("building the structural schema of %s %s: %w", crd.Name, version, err)
	}
	// As the API server does: defaults in the schema are not deep-copied, so prune a copy.
	structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, fmt.Errorf("pruning the defaults of %s %s: %w", crd.Name, version, err)
	}
	schemaValidator, _, err := apiservervalidation.NewSchemaValidator(validation.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("building the schema validator of %s %s: %w", crd.Name, version, err)
	}
	return &Validator{
		gvk:        schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind},
		namespaced: crd.Spec.Scope == apiextensions.NamespaceScoped,
		structural: structural,
		schema:     schemaValidator,
		cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
	}, nil
}

// parseCRD decodes a v1 CRD strictly, applies the v1 defaults and converts it to the
// internal version the apiextensions validation and schema code work on.
func parseCRD(crdYAML []byte) (*apiextensions.CustomResourceDefinition, error) {
	var external apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(crdYAML, &external); err != nil {
		return nil, fmt.Errorf("decoding the CRD: %w", err)
	}
	if external.APIVersion != apiextensionsv1.SchemeGroupVersion.String() || external.Kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("decoding the CRD: want %s CustomResourceDefinition, got %s %s",
			apiextensionsv1.SchemeGroupVersion, external.APIVersion, external.Kind)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&external)
	crd := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&external, crd, nil); err != nil {
		return nil, fmt.Errorf("converting the CRD to the internal version: %w", err)
	}
	// The API server records the storage version when it creates a CRD; its
	// validation requires that record.
	if storage, err := apiextensions.GetCRDStorageVersion(crd); err == nil {
		crd.Status.StoredVersions = []string{storage}
	}
	return crd, nil
}

// Default applies the schema's defaults to obj in place, as the API server does when it
// decodes a request or reads from storage. obj is left in its JSON form: integers
// become int64 and typed Go slices or maps become []any and map[string]any.
func (v *Validator) Default(obj map[string]any) {
	canonical, err := jsonForm(obj)
	if err != nil {
		// Not representable as JSON: default what the algorithm can walk.
		structuraldefaulting.Default(obj, v.structural)
		return
	}
	structuraldefaulting.Default(canonical, v.structural)
	clear(obj)
	for k, val := range canonical {
		obj[k] = val
	}
}

// Validate defaults obj in place (see Default) and validates it as a create request,
// or, when old is not nil, as an update from old (which is defaulted on a copy, as the
// API server defaults what it reads from storage). Errors carry the API server's paths
// and messages, e.g. "spec.requirements[0].values: Invalid value: ...".
func (v *Validator) Validate(obj, old map[string]any) field.ErrorList {
	v.Default(obj)
	work, err := jsonForm(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("object is not JSON: %w", err))}
	}
	var oldWork map[string]any
	if old != nil {
		if oldWork, err = jsonForm(old); err != nil {
			return field.ErrorList{field.InternalError(nil, fmt.Errorf("old object is not JSON: %w", err))}
		}
		structuraldefaulting.Default(oldWork, v.structural)
		v.fillRequestDefaults(oldWork)
		v.prune(oldWork)
	}
	v.fillRequestDefaults(work)
	if oldWork != nil {
		fillResourceVersion(work, oldWork)
	}
	if errs := v.typeMeta(work); len(errs) > 0 {
		return errs
	}
	if errs := v.prune(work); len(errs) > 0 {
		return errs
	}
	if oldWork == nil {
		return v.validateCreate(work)
	}
	return v.validateUpdate(work, oldWork)
}

// ValidateYAML decodes objYAML (and oldYAML unless it is empty) and validates them as
// Validate does. The error reports undecodable input, not validation failures.
func (v *Validator) ValidateYAML(objYAML, oldYAML []byte) (field.ErrorList, error) {
	obj, err := decodeYAML(objYAML)
	if err != nil {
		return nil, fmt.Errorf("decoding the object: %w", err)
	}
	var old map[string]any
	if len(oldYAML) > 0 {
		if old, err = decodeYAML(oldYAML); err != nil {
			return nil, fmt.Errorf("decoding the old object: %w", err)
		}
	}
	return v.Validate(obj, old), nil
}

func (v *Validator) validateCreate(obj map[string]any) field.ErrorList {
	u := &unstructured.Unstructured{Object: obj}
	var errs field.ErrorList
	errs = append(errs, metavalidation.ValidateObjectMetaAccessor(u, v.namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, v.schema)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, obj, v.structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	return append(errs, v.validateCEL(errs, obj, nil)...)
}

func (v *Validator) validateUpdate(obj, old map[string]any) field.ErrorList {
	u, oldU := &unstructured.Unstructured{Object: obj}, &unstructured.Unstructured{Object: old}
	// Ratcheting is GA and locked on since Kubernetes 1.33: errors in parts of the
	// object an update leaves unchanged are not reported.
	correlated := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: v.structural})
	var errs field.ErrorList
	errs = append(errs, metavalidation.ValidateObjectMetaAccessorUpdate(u, oldU, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, v.schema, apiservervalidation.WithRatcheting(correlated))...)
	errs = append(errs, schemaobjectmeta.Validate(nil, obj, v.structural, false)...)
	if oldErrs := listtype.ValidateListSetsAndMaps(nil, v.structural, old); len(oldErrs) == 0 {
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	}
	return append(errs, v.validateCEL(errs, obj, old, cel.WithRatcheting(correlated))...)
}

// validateCEL runs the x-kubernetes-validations rules unless earlier errors block them,
// exactly as the custom resource strategy does.
func (v *Validator) validateCEL(earlier field.ErrorList, obj, old map[string]any, opts ...cel.Option) field.ErrorList {
	if v.cel == nil {
		return nil
	}
	if blocked := blockingError(earlier); blocked != nil {
		return field.ErrorList{blocked}
	}
	var oldObj any // a nil map in an interface would look like an update
	if old != nil {
		oldObj = old
	}
	errs, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, oldObj, celconfig.RuntimeCELCostBudget, opts...)
	return errs
}

// blockingError mirrors the API server's rule: OpenAPI type, enum, required, maxLength,
// maxItems and maxProperties failures stop the CEL rules from running.
func blockingError(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}

// fillRequestDefaults supplies what a request's URL would: apiVersion, kind and, for a
// namespaced resource, a namespace.
func (v *Validator) fillRequestDefaults(obj map[string]any) {
	if _, ok := obj["apiVersion"]; !ok {
		obj["apiVersion"] = v.gvk.GroupVersion().String()
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"] = v.gvk.Kind
	}
	if !v.namespaced {
		return
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		if _, present := obj["metadata"]; present {
			return // malformed; ObjectMeta decoding reports it
		}
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	if ns, _ := meta["namespace"].(string); ns == "" {
		meta["namespace"] = "default"
	}
}

// fillResourceVersion treats an update like a patch: the stored object has a
// resourceVersion and the request carries it, unless the caller chose otherwise.
func fillResourceVersion(obj, old map[string]any) {
	oldMeta, ok := old["metadata"].(map[string]any)
	if !ok {
		return
	}
	if rv, _ := oldMeta["resourceVersion"].(string); rv == "" {
		oldMeta["resourceVersion"] = "1"
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	if _, set := meta["resourceVersion"]; !set {
		meta["resourceVersion"] = oldMeta["resourceVersion"]
	}
}

// typeMeta rejects an apiVersion or kind that does not name this CRD version.
func (v *Validator) typeMeta(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	if kind, _ := obj["kind"].(string); kind != v.gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), obj["kind"], "must be "+v.gvk.Kind))
	}
	if apiVersion, _ := obj["apiVersion"].(string); apiVersion != v.gvk.GroupVersion().String() {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), obj["apiVersion"], "must be "+v.gvk.GroupVersion().String()))
	}
	return errs
}

// prune removes what the schema does not declare, as the API server's decoder does, and
// reports each removed field the way strict field validation rejects it. Metadata is
// decoded into ObjectMeta, so malformed or unknown metadata fields are reported too.
func (v *Validator) prune(obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	meta, found, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), obj["metadata"], fmt.Sprintf("cannot be decoded as ObjectMeta: %v", err))}
	}
	unknown := append([]string(nil), metaUnknown...)
	unknown = append(unknown, pruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.structural)
	coerceErr, embeddedUnknown := schemaobjectmeta.CoerceWithOptions(nil, obj, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if coerceErr != nil {
		errs = append(errs, coerceErr)
	}
	unknown = append(unknown, embeddedUnknown...)
	for _, path := range unknown {
		errs = append(errs, &field.Error{
			Type:     field.ErrorTypeNotFound,
			Field:    path,
			BadValue: field.OmitValueType{},
			Detail:   "unknown field: the schema does not declare it (strict field validation rejects it, other clients lose it silently); check its name and nesting",
		})
	}
	if found {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			errs = append(errs, field.InternalError(field.NewPath("metadata"), err))
		}
	}
	return errs
}

// jsonForm deep-copies obj through JSON, giving the types the API server's decoder
// produces (int64 for integral numbers, float64 otherwise, []any, map[string]any).
func jsonForm(obj map[string]any) (map[string]any, error) {
	data, err := utiljson.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

func decodeYAML(data []byte) (map[string]any, error) {
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(jsonData, &out); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errors.New("empty document")
	}
	return out, nil
}
