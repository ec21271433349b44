// Package units formats sizes for messages.
package units

import (
	"fmt"
	"strings"
)

// Bytes prints n in bytes, KiB, MiB, GiB or TiB with one decimal, a zero
// one dropped: "512 bytes", "1.5 KiB", "16 GiB".
func Bytes(n uint64) string {
	names := []string{"bytes", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(names)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + names[u]
}
