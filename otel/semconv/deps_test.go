package semconv_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The runtime, the resource locks and the stages name attributes through
// this package alone, so a program built on them links no exporter: no
// gRPC, no OTLP client, no protobuf.
func TestRuntimeResourcesAndStagesLinkNoExporter(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	cmd := exec.Command(gobin, "list", "-deps", "./runtime", "./resources", "./stages/...")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var bad []string
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "google.golang.org/grpc") || strings.Contains(pkg, "otlp") ||
			strings.Contains(pkg, "go.opentelemetry.io/otel/exporters") || strings.Contains(pkg, "google.golang.org/protobuf") ||
			pkg == "github.com/prooflane/prooflane/otel" {
			bad = append(bad, pkg)
		}
	}
	if len(bad) > 0 {
		t.Errorf("go list -deps ./runtime ./resources ./stages/... lists exporter packages:\n  %s", strings.Join(bad, "\n  "))
	}
}

// The otel packages sit below the runtime and the stages (DESIGN.md,
// "Layers"): they read and write traces and know nothing of pipelines, so
// none of them may import the runtime or a stage package. simulate, which
// runs pipelines, lives in runtime/simulate.
func TestOtelPackagesImportNoRuntimeOrStages(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	cmd := exec.Command(gobin, "list", "-deps", "./otel/...")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/prooflane/prooflane/"
	var bad []string
	for _, pkg := range strings.Fields(string(out)) {
		for _, up := range []string{mod + "runtime", mod + "stages"} {
			if pkg == up || strings.HasPrefix(pkg, up+"/") {
				bad = append(bad, pkg)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("go list -deps ./otel/... lists packages above otel:\n  %s", strings.Join(bad, "\n  "))
	}
}
