//go:build race

package plonk_test

// raceDetector is whether the test binary runs under the race detector.
const raceDetector = true
