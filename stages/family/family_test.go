package family

import (
	"testing"

	"github.com/prooflane/prooflane/stages"
)

type fakeFamily struct {
	name  string
	proof stages.DataType
}

func (f fakeFamily) Name() string               { return f.name }
func (f fakeFamily) ProofType() stages.DataType { return f.proof }

func registry() *Registry {
	return NewRegistry().MustRegister(fakeFamily{"a", "a.proof"}, fakeFamily{"b", "b.proof"})
}

func TestRegisterRefusesBadNames(t *testing.T) {
	for _, f := range []Family{fakeFamily{"", ""}, fakeFamily{"a.b", ""}, fakeFamily{"sim", ""}, fakeFamily{"a", ""}} {
		if err := registry().Register(f); err == nil {
			t.Errorf("family %q registered", f.Name())
		}
	}
}
