package prooflane_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/prooflane/prooflane/"

// deps lists the module's packages pkg links (go list -deps, no tests),
// without the module prefix.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var own []string
	for _, p := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(p, module); ok {
			own = append(own, rest)
		}
	}
	return own
}

// matching returns the packages of ps equal to, or under, one of roots.
func matching(ps []string, roots ...string) []string {
	var out []string
	for _, p := range ps {
		for _, r := range roots {
			if p == r || strings.HasPrefix(p, r+"/") {
				out = append(out, p)
			}
		}
	}
	return out
}

// The proof families and the family contract sit below the engine: no
// stage package links runtime. A family links no other family, and the
// built-in circuits (workloads) link no family.
func TestFamiliesAreBelowTheEngineAndApartFromEachOther(t *testing.T) {
	families := map[string][]string{
		"stages/groth16": {"stages/plonk"},
		"stages/plonk":   {"stages/groth16"},
	}
	for _, pkg := range []string{"stages/...", "workloads"} {
		out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./"+pkg).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range strings.Fields(string(out)) {
			p = strings.TrimPrefix(p, module)
			d := deps(t, "./"+p)
			if bad := matching(d, "runtime"); len(bad) > 0 {
				t.Errorf("%s links the engine: %v", p, bad)
			}
			for fam, others := range families {
				if p == fam || strings.HasPrefix(p, fam+"/") {
					if bad := matching(d, others...); len(bad) > 0 {
						t.Errorf("family package %s links another family: %v", p, bad)
					}
				}
			}
			if p == "workloads" {
				if bad := matching(d, "stages/groth16", "stages/plonk"); len(bad) > 0 {
					t.Errorf("the built-in circuits link a family: %v", bad)
				}
			}
		}
	}
}

// The command and the service reach the families through the family
// contract and the registry (stages/builtin) only: neither imports a
// family's package itself.
func TestCommandAndServiceNameNoFamily(t *testing.T) {
	for _, pkg := range []string{"./cmd/prooflane", "./service"} {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, pkg).Output()
		if err != nil {
			t.Fatal(err)
		}
		imports := strings.Fields(string(out))
		for _, fam := range []string{"stages/groth16", "stages/plonk"} {
			if i := slices.IndexFunc(imports, func(p string) bool {
				return p == module+fam || strings.HasPrefix(p, module+fam+"/")
			}); i >= 0 {
				t.Errorf("%s imports %s", pkg, imports[i])
			}
		}
	}
}

// The binary and the service link no Ethereum client: go-ethereum (the
// simulated chain the Solidity verifiers are tested on) is linked by
// internal/evmtest and tests alone.
func TestTheBinaryLinksNoEthereumClient(t *testing.T) {
	for _, pkg := range []string{"./cmd/prooflane", "./service", "./solidity"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, "github.com/ethereum/") || p == module+"internal/evmtest" {
				t.Errorf("%s links %s", pkg, p)
			}
		}
	}
}
