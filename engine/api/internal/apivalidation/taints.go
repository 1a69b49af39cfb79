package apivalidation

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const maxTaints = 50

// Taint is a version's taint type: it knows its core form.
type Taint interface {
	ToCore() corev1.Taint
}

var taintEffects = []string{
	string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute),
}

// TaintEffects returns the effects a taint may have, in the order the CRDs list them.
func TaintEffects() []corev1.TaintEffect {
	out := make([]corev1.TaintEffect, len(taintEffects))
	for i, e := range taintEffects {
		out[i] = corev1.TaintEffect(e)
	}
	return out
}

// NodeTaints checks the taints and startup taints of the nodes, the fields taints and
// startupTaints under path: each list on its own, and that no startup taint repeats a taint.
func NodeTaints[T Taint](path *field.Path, taints, startupTaints []T) field.ErrorList {
	errs := taintList(path.Child("taints"), "taints", taints)
	errs = append(errs, taintList(path.Child("startupTaints"), "startupTaints", startupTaints)...)
	return append(errs, startupTaintRepeats(path.Child("startupTaints"), taints, startupTaints)...)
}

// taintList checks a list of taints: key syntax, value syntax, effect, and that no key and effect
// pair repeats. name is the list's field name (taints or startupTaints), for the message.
func taintList[T Taint](path *field.Path, name string, taints []T) field.ErrorList {
	var errs field.ErrorList
	if len(taints) > maxTaints {
		errs = append(errs, field.TooMany(path, len(taints), maxTaints))
	}
	type keyEffect struct {
		key    string
		effect corev1.TaintEffect
	}
	seen := map[keyEffect]bool{}
	for i := range taints {
		t, p := taints[i].ToCore(), path.Index(i)
		switch {
		case t.Key == "":
			errs = append(errs, field.Required(p.Child("key"), "set key to a label key such as example.com/dedicated"))
		case len(t.Key) > maxLabelKey:
			errs = append(errs, field.TooLong(p.Child("key"), t.Key, maxLabelKey))
		case !isQualifiedName(t.Key):
			errs = append(errs, field.Invalid(p.Child("key"), t.Key, msgKeySyntax))
		}
		errs = append(errs, labelValue(p.Child("value"), t.Value)...)
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(p.Child("effect"), "set effect to NoSchedule, PreferNoSchedule or NoExecute"))
		case !slices.Contains(taintEffects, string(t.Effect)):
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, taintEffects))
		}
		ke := keyEffect{t.Key, t.Effect}
		if seen[ke] {
			errs = append(errs, field.Invalid(p, t.Key, name+" repeat a key and effect; remove the duplicate"))
		}
		seen[ke] = true
	}
	return errs
}

// startupTaintRepeats reports startup taints that repeat a taint's key and effect.
func startupTaintRepeats[T Taint](path *field.Path, taints, startupTaints []T) field.ErrorList {
	var errs field.ErrorList
	for i := range startupTaints {
		s := startupTaints[i].ToCore()
		if slices.ContainsFunc(taints, func(t T) bool { c := t.ToCore(); return c.Key == s.Key && c.Effect == s.Effect }) {
			errs = append(errs, field.Invalid(path.Index(i), s.Key, msgStartupTaintRepeat))
		}
	}
	return errs
}
