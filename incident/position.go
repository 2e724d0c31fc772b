package incident

// pos is a source position: 1-based line and column of a YAML node's value, and of its
// mapping key when it has one.
type pos struct {
	Line, Col       int
	KeyLine, KeyCol int
}
