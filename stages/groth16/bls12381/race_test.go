//go:build race

package groth16_test

// raceEnabled says the test binary was built with the race detector.
const raceEnabled = true
