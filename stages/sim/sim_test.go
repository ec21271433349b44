package sim

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prooflane/prooflane/stages"
)

// A duration or jitter too large to add up is refused at load, naming the
// limit; it used to pass Validate (jitter no more than duration) and then
// panic inside the stage when 2×jitter+1 overflowed.
func TestValidateRefusesDurationsAboveTheLimit(t *testing.T) {
	huge := time.Duration(math.MaxInt64)
	for _, c := range []Config{
		{Duration: huge, Jitter: huge},
		{Duration: huge},
		{Duration: MaxDuration + time.Nanosecond},
	} {
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "is above 24h0m0s, the limit on a sim stage's duration") {
			t.Errorf("Validate(%+v) = %v, want the limit named", c, err)
		}
	}
	if err := (&Config{Duration: MaxDuration, Jitter: MaxDuration}).Validate(); err != nil {
		t.Errorf("duration and jitter at the limit: %v", err)
	}
}

// A stage built without Validate (as code may) does not panic on any
// jitter: the draw stays within d ± j, clamped to 0 and MaxInt64.
func TestJitterOfAnySizeNeitherPanicsNorWraps(t *testing.T) {
	huge := time.Duration(math.MaxInt64)
	cases := []struct{ d, j, lo, hi time.Duration }{
		{huge, huge, 0, huge},
		{0, huge, 0, huge},
		{huge, 1, huge - 1, huge},
		{10 * time.Millisecond, time.Millisecond, 9 * time.Millisecond, 11 * time.Millisecond},
		{time.Millisecond, 0, time.Millisecond, time.Millisecond},
	}
	for _, c := range cases {
		for i := 0; i < 1000; i++ {
			if got := jittered(c.d, c.j); got < c.lo || got > c.hi {
				t.Fatalf("jittered(%d, %d) = %d, want within [%d, %d]", c.d, c.j, got, c.lo, c.hi)
			}
		}
	}
	// The stage itself, with the context already done, returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &stage{cfg: Config{Duration: huge, Jitter: huge}}
	if _, err := s.Run(ctx, stages.NewInput(nil)); err == nil {
		t.Error("a cancelled run of a huge sleep returned no error")
	}
}
