// Package hashstage is the worked example of docs/stages.md, "Writing a
// stage type": a complete stage type that hashes its partition's input.
package hashstage

import (
	"context"
	"crypto/sha256"
	"errors"

	"github.com/prooflane/prooflane/stages"
)

// Digest is what the stage outputs; later stages read it by this type.
const Digest stages.DataType = "hash.digest"

// Config is the stage's YAML `config:`; every field has a doc comment.
type Config struct {
	// Rounds is how many times to hash.
	Rounds int `yaml:"rounds"`
}

func (c *Config) Validate() error {
	if c.Rounds < 1 {
		return errors.New("rounds must be at least 1")
	}
	return nil
}

// Factory describes the type to the registry.
func Factory() stages.Factory {
	return stages.Factory{
		Type:      "hash.sha256",
		Doc:       "hashes the job's input for its partition",
		Output:    Digest,
		Payload:   "[][]byte, one input per partition",
		NewConfig: func() stages.Config { return &Config{Rounds: 1} },
		New: func(c stages.Config) (stages.Stage, error) {
			return &stage{rounds: c.(*Config).Rounds}, nil
		},
	}
}

type stage struct{ rounds int }

// Run is called once per partition, from several workers at once.
func (s *stage) Run(ctx context.Context, in *stages.Input) (any, error) {
	inputs, err := stages.JobAs[[][]byte](in) // the payload given to Engine.Run
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(inputs[in.Partition])
	for i := 1; i < s.rounds; i++ {
		sum = sha256.Sum256(sum[:])
	}
	return sum, nil
}
