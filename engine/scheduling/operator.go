package scheduling

// Operators a RequirementSpec may use. In, NotIn, Exists, DoesNotExist, Gt and
// Lt are Kubernetes' node selector operators; Gte and Lte are Tenon's inclusive
// variants of Gt and Lt.
const (
	OpIn           = "In"
	OpNotIn        = "NotIn"
	OpExists       = "Exists"
	OpDoesNotExist = "DoesNotExist"
	OpGt           = "Gt"
	OpLt           = "Lt"
	OpGte          = "Gte"
	OpLte          = "Lte"
)

// Operators returns every operator a RequirementSpec may use, in documentation
// order, so validators and docs can be built from one list.
func Operators() []string {
	return []string{OpIn, OpNotIn, OpExists, OpDoesNotExist, OpGt, OpLt, OpGte, OpLte}
}
