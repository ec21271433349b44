package groth16

import (
	"fmt"

	"github.com/prooflane/prooflane/stages"
)

// jobPayload is what every Groth16 stage reads from Input.Job.
const jobPayload = "a *groth16.Job (circuit, keys, one witness per partition): prove with `prooflane prove` or `prooflane bench`"

// Factories returns the six Groth16 stage types.
func Factories() []stages.Factory {
	fs := factories()
	for i := range fs {
		fs[i].Payload = jobPayload
	}
	return fs
}

func factories() []stages.Factory {
	return []stages.Factory{
		{
			Type:   TypeNameSynthesize,
			Doc:    "Solve the R1CS for the partition's witness: wire values, the a, b, c vectors and the commitments (api.Commit) on the device.",
			Output: TypeSolution,
			New:    func(stages.Config) (stages.Stage, error) { return &synthesize{}, nil },
		},
		{
			Type:      TypeNamePrepMSM,
			Doc:       "Filter wires with infinite bases, split ones off for batch addition, convert scalars for the device.",
			Inputs:    []stages.DataType{TypeSolution},
			Output:    TypeMSMInputs,
			NewConfig: func() stages.Config { return &PrepConfig{SplitOnes: true} },
			New: func(c stages.Config) (stages.Stage, error) {
				cfg, err := configAs[*PrepConfig](c)
				if err != nil {
					return nil, err
				}
				return &prepMSM{cfg: *cfg}, nil
			},
		},
		{
			Type:      TypeNameBG2MSM,
			Doc:       "The G2 MSM for B, on the CPU (or on the device with on: device).",
			Inputs:    []stages.DataType{TypeMSMInputs},
			Output:    TypeG2MSM,
			NewConfig: func() stages.Config { return &G2Config{On: "cpu", Bases: BasesDevice, Tables: TablesAuto} },
			New: func(c stages.Config) (stages.Stage, error) {
				cfg, err := configAs[*G2Config](c)
				if err != nil {
					return nil, err
				}
				return &bG2MSM{cfg: *cfg}, nil
			},
		},
		{
			Type:      TypeNameVRAMStage,
			Doc:       "Allocate the partition's vectors on its device and upload them (on_oom: retry or upload_in_compute).",
			Inputs:    []stages.DataType{TypeMSMInputs},
			Output:    TypeDeviceBuffers,
			Device:    true,
			NewConfig: func() stages.Config { return &VRAMConfig{OnOOM: OnOOMRetry, Bases: BasesDevice, Tables: TablesAuto} },
			New: func(c stages.Config) (stages.Stage, error) {
				cfg, err := configAs[*VRAMConfig](c)
				if err != nil {
					return nil, err
				}
				return &vramStage{cfg: *cfg}, nil
			},
		},
		{
			Type:   TypeNameGPUCompute,
			Doc:    "H by NTTs, the G1 MSMs and the batch additions on the device (uploading first when vram_stage deferred it); frees the partition's vectors.",
			Inputs: []stages.DataType{TypeDeviceBuffers},
			Output: TypeG1MSMs,
			Device: true,
			Busy:   true,
			New:    func(stages.Config) (stages.Stage, error) { return gpuCompute{}, nil },
		},
		{
			Type:      TypeNameEpilogue,
			Doc:       "Sample r and s, assemble the proof (Ar, Bs, Krs) and check it with the verifying key (verify: false to skip).",
			Inputs:    []stages.DataType{TypeG1MSMs, TypeG2MSM},
			Output:    TypeProof,
			NewConfig: func() stages.Config { return &EpilogueConfig{Verify: true} },
			New: func(c stages.Config) (stages.Stage, error) {
				cfg, err := configAs[*EpilogueConfig](c)
				if err != nil {
					return nil, err
				}
				return epilogue{cfg: *cfg}, nil
			},
		},
	}
}

func configAs[T stages.Config](c stages.Config) (T, error) {
	x, ok := c.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("config is %T, want %T", c, zero)
	}
	return x, nil
}
