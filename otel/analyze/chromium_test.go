package analyze

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium: $PROOFLANE_CHROMIUM, else
// chromium or chromium-browser on PATH (Debian: apt-get install chromium).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PROOFLANE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium, or set PROOFLANE_CHROMIUM): HTML rendering not checked")
	return ""
}

// screenshot renders an HTML file with headless Chromium into a PNG.
func screenshot(t *testing.T, html, png string, w, h int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir="+t.TempDir(), "--screenshot="+png,
		fmt.Sprintf("--window-size=%d,%d", w, h), "file://"+html)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
}

func TestHTMLReportRendersInHeadlessChromium(t *testing.T) {
	chromium(t)
	r, err := Analyze(smallTrace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	page, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "report.png")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(f, "small trace"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	screenshot(t, page, shot, 1400, 900)

	pf, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatal(err)
	}
	// Every stage colour, the busy colour and the idle-gap colour must be
	// painted: the SVG timeline rendered, not just the tables.
	want := map[string]bool{"#2e7d32": false, "#ffcdd2": false}
	colors := r.stageColors()
	for _, s := range r.Stages {
		want[colors(s.Name)] = false
	}
	count := map[string]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[hex(img, x, y)]++
		}
	}
	for c := range want {
		if count[c] < 100 {
			t.Errorf("colour %s painted on %d pixels; the timeline did not render", c, count[c])
		}
	}
}

func hex(img image.Image, x, y int) string {
	r, g, b, _ := img.At(x, y).RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}
