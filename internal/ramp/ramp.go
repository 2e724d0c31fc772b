// Package ramp is a schedule's rate, compiled (Schedule: its rate steps, each constant
// or ramping linearly to its ramp_to), and the arithmetic of a rate that changes linearly
// with time, by which both the replay (package model) and the live generator
// (live/loadgen) place the arrivals of an open-loop source: the step in force at an
// instant, the rate then, and the time until the integrated rate reaches a draw.
package ramp

import "math"

// Gap is the time, in seconds, until a rate that is r0 now and changes by slope per
// second per second has integrated to e (an Exp(1) draw for Poisson arrivals, 1 for
// uniform ones): the root of r0·g + slope·g²/2 = e, exact for a linear rate. False when
// it never does (a falling rate that reaches zero first).
func Gap(r0, slope, e float64) (float64, bool) {
	// The root in the conjugate form, stable for either sign.
	disc := r0*r0 + 2*slope*e
	if disc < 0 {
		return 0, false
	}
	den := r0 + math.Sqrt(disc)
	if den <= 0 {
		return 0, false
	}
	return 2 * e / den, true
}

// Rate is the rate at t seconds after a step that began at rate r0 with slope, never
// below zero.
func Rate(r0, slope, t float64) float64 { return max(0, r0+slope*t) }
