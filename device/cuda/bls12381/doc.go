// Package bls12381 is the CUDA backend's BLS12-381 device (package
// device/cuda opens it): the kernels of package cuda instantiated for the
// curve (cuda.BLS12381Fr, cuda.BLS12381G1, cuda.BLS12381G2), behind the
// device contract of package device/bls12381. Its streams time their
// work with CUDA events (device.Timer) and compute Groth16's H step in
// one fused call (stages/groth16.HComputer, found with cdev.As). Built
// without the cuda tag the package is empty: package device/cuda says
// what is missing. Package device/cuda/bn254 is its generated BN254 copy.
package bls12381
