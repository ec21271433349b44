package builtin

import (
	"testing"

	"github.com/prooflane/prooflane/stages/stagetest"
)

func TestEveryShippedStageTypePassesTheLifecycleCheck(t *testing.T) {
	reg := Registry()
	if len(reg.Types()) < 9 {
		t.Fatalf("only %d stage types registered: %v", len(reg.Types()), reg.Types())
	}
	stagetest.CheckFactories(t, reg)
}
