package cuda

import (
	"strings"
	"testing"
)

func TestParseCurveTakesTheNamesStringWrites(t *testing.T) {
	for _, c := range Curves {
		got, err := ParseCurve(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCurve(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if _, err := ParseCurve("bn255"); err == nil || !strings.Contains(err.Error(), `"bn255"`) {
		t.Errorf("ParseCurve(\"bn255\"): %v, want an error naming it", err)
	}
	if s := Curve(7).String(); s != "curve(7)" {
		t.Errorf("Curve(7) is %q", s)
	}
}
