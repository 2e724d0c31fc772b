package control_test

import "testing"

// benchGoodputPath is filled in when the control packages land.
func benchGoodputPath(b *testing.B) { b.Skip(errNotBuilt) }
