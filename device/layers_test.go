package device_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const mod = "github.com/prooflane/prooflane/"

// goListDeps is `go list -deps` of patterns from the repository's root,
// with build tags tags ("" for none), test dependencies too when test.
func goListDeps(t *testing.T, tags string, test bool, patterns ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	args := []string{"list", "-deps"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	if test {
		args = append(args, "-test")
	}
	cmd := exec.Command(gobin, append(args, patterns...)...)
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, stderr.Bytes())
	}
	return strings.Fields(string(out))
}

// under lists the packages of pkgs that are dir (a path from the module
// root) or below it.
func under(pkgs []string, dir string) []string {
	var out []string
	for _, p := range pkgs {
		if p == mod+dir || strings.HasPrefix(p, mod+dir+"/") {
			out = append(out, p)
		}
	}
	return out
}

// The families reach the kernels only through the device contract: no
// package under stages/ links package cuda, with the cuda tag or
// without (their memory estimates take the backend's device.MemoryModel).
func TestStagesLinkNoKernels(t *testing.T) {
	for _, tags := range []string{"", "cuda"} {
		if bad := under(goListDeps(t, tags, false, "./stages/..."), "cuda"); len(bad) > 0 {
			t.Errorf("go list -deps -tags %q ./stages/... lists the kernels' packages:\n  %s", tags, strings.Join(bad, "\n  "))
		}
	}
}

// The kernels know no proof family: nothing under cuda/ (its tests and
// the host checks of its arithmetic included) nor cudabench links a stage
// package, or the device layer above the kernels.
func TestKernelsLinkNoStages(t *testing.T) {
	pkgs := goListDeps(t, "cuda,cudahost", true, "./cuda/...", "./cmd/cudabench")
	for _, up := range []string{"stages", "device"} {
		if bad := under(pkgs, up); len(bad) > 0 {
			t.Errorf("go list -deps -test ./cuda/... ./cmd/cudabench lists packages above the kernels:\n  %s", strings.Join(bad, "\n  "))
		}
	}
}

// The kernels' settings are options given to the backend's constructor:
// the CLI (cmd/prooflane) is the one place that reads PROOFLANE_CUDA_*,
// no library Go file under cuda/ or device/ reads the environment, and
// the kernels' sources call no getenv.
func TestOnlyTheCLIReadsTheCUDAVariables(t *testing.T) {
	env := regexp.MustCompile(`os\.(Getenv|LookupEnv|Environ)\b`)
	getenv := regexp.MustCompile(`\bgetenv\s*\(`)
	var bad []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == filepath.Join("cuda", "build") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".go" && ext != ".cu" && ext != ".cuh" && ext != ".h" && ext != ".cpp" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(b)
		library := strings.HasPrefix(rel, "cuda"+string(filepath.Separator)) || strings.HasPrefix(rel, "device"+string(filepath.Separator))
		switch {
		case ext == ".go" && strings.Contains(src, "PROOFLANE_CUDA_") && filepath.Dir(rel) != filepath.Join("cmd", "prooflane"):
			bad = append(bad, rel+": names PROOFLANE_CUDA_*")
		case ext == ".go" && library && env.MatchString(src):
			bad = append(bad, rel+": reads the environment")
		case ext != ".go" && getenv.MatchString(src):
			bad = append(bad, rel+": calls getenv")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("the environment read outside cmd/prooflane:\n  %s", strings.Join(bad, "\n  "))
	}
}
