package units

import "testing"

func TestBytesPicksTheUnitAndDropsAZeroDecimal(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 bytes", 512: "512 bytes", 1536: "1.5 KiB", 16 << 30: "16 GiB", 3<<40 + 1<<39: "3.5 TiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
