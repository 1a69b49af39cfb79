// Package apivalidation holds the checks the tenon.dev API versions share: the regular
// expressions of their CEL rules and patterns, the messages both the rules and Go give, and Go
// checks returning field errors for names, label keys and values, annotations, requirements,
// taints and tags. Package v1 and package v1alpha5 call it, so a Provisioner and a NodePool
// accept the same labels, taints and requirements.
//
// CEL rules live in kubebuilder markers, which cannot name Go constants: the markers repeat the
// expressions and messages below character for character, and the twin tests of each version
// hold the markers and these checks equal. What a label key may be follows the scheduling
// package (scheduling.IsRestrictedLabel), so the API accepts exactly the labels the scheduler
// lets a pool use.
package apivalidation
