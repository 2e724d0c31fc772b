package chart

import (
	"math"
	"reflect"
	"testing"
)

func TestPlaceLabels(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name   string
		labels []Label
		rows   int
		lo, hi float64
		want   []Placed
	}{
		{"apart, one row", []Label{{X: 10, Width: 10}, {X: 30, Width: 10}}, 3, -inf, inf,
			[]Placed{{0, "middle", 10}, {0, "middle", 30}}},
		{"closer than the gap: next row", []Label{{X: 10, Width: 10}, {X: 25, Width: 10}}, 3, -inf, inf,
			[]Placed{{0, "middle", 10}, {1, "middle", 25}}},
		{"exactly the gap apart", []Label{{X: 10, Width: 10}, {X: 26, Width: 10}}, 3, -inf, inf,
			[]Placed{{0, "middle", 10}, {0, "middle", 26}}},
		{"rows full: the last row", []Label{{X: 10, Width: 10}, {X: 12, Width: 10}, {X: 14, Width: 10}, {X: 16, Width: 10}}, 3, -inf, inf,
			[]Placed{{0, "middle", 10}, {1, "middle", 12}, {2, "middle", 14}, {2, "middle", 16}}},
		{"back to the top row once it is clear", []Label{{X: 10, Width: 10}, {X: 12, Width: 10}, {X: 40, Width: 10}}, 2, -inf, inf,
			[]Placed{{0, "middle", 10}, {1, "middle", 12}, {0, "middle", 40}}},
		{"left edge: starts at the marker", []Label{{X: 5, Width: 40}}, 2, 2, 100,
			[]Placed{{0, "start", 3}}},
		{"right edge: ends at the marker", []Label{{X: 95, Width: 40}}, 2, 2, 98,
			[]Placed{{0, "end", 97}}},
		{"one row at least", []Label{{X: 10, Width: 10}, {X: 11, Width: 10}}, 0, -inf, inf,
			[]Placed{{0, "middle", 10}, {0, "middle", 11}}},
		{"none", nil, 2, -inf, inf, []Placed{}},
	} {
		if got := PlaceLabels(tc.labels, tc.rows, tc.lo, tc.hi); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
