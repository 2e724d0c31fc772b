// Package draw is the keyed uniform draw that the replay (package model) and the live lab
// (live/loadgen, live/faultproxy) share. A number depends only on a stream's key and two
// coordinates of what it is drawn for, never on how many draws came before, so two runs
// draw the same number for the same thing however differently they have gone (common
// random numbers): the replay's arms, and a live run and its replay.
//
// A stream is named by a purpose ("payment-risk/service"): [Key] mixes its hash with the
// run's seed once, and [Uniform] draws from the key.
package draw

// Key returns the key of the stream named purpose under seed.
func Key(seed uint64, purpose string) uint64 { return KeyOf(seed, Hash(purpose)) }

// KeyOf returns the key of the stream whose purpose hashes to h ([Hash]) under seed.
func KeyOf(seed, h uint64) uint64 { return Mix(seed ^ h) }

// Uniform returns the stream key's number in (0, 1) at the coordinates a and b (for
// example a logical request and its attempt): the midpoint of one of 2⁵³ equal
// intervals. Neither 0 nor 1 is drawn, so an inverse CDF read at it is finite.
func Uniform(key, a, b uint64) float64 {
	h := Mix(Mix(key^a) ^ b)
	u := (float64(h>>11) + 0.5) * (1.0 / (1 << 53))
	return min(u, below1) // the last interval's midpoint rounds to 1
}

// below1 is the largest float64 below 1.
const below1 = 1 - 1.0/(1<<53)

// Hash returns the 64-bit FNV-1a hash of s, as hash/fnv's New64a computes it, without
// allocating.
func Hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Mix is splitmix64's finaliser: a bijection of the 64-bit words whose every output bit
// depends on every input bit.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
