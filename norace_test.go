//go:build !race

package prooflane_test

// raceEnabled says the test binary was built with the race detector.
const raceEnabled = false
