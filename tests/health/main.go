// Command health prints what the clients people wait on and watch with say of Kubernetes
// objects, using those clients' own libraries, so that a test can hold Stencil's parents to
// what users will see rather than to a reading of the rules written by hand.
//
// For every object it prints one JSON line:
//
//		{"apiVersion": …, "kind": …, "namespace": …, "name": …,
//		 "kstatus": {"status": "Current", "message": …},
//		 "health": {"status": "Healthy", "message": …}}
//
//	  - kstatus is sigs.k8s.io/cli-utils/pkg/kstatus/status.Compute (v0.37.2), what kpt, Flux's
//	    health checks and Helm 4's `--wait=watcher` wait with.
//	  - health is github.com/argoproj/gitops-engine/pkg/health.GetResourceHealth, given the
//	    health overrides exactly as Argo CD's application controller gives them: Argo CD's own
//	    github.com/argoproj/argo-cd/v2/util/lua.ResourceHealthOverrides, keyed "group/Kind" like
//	    resource.customizations, so the Lua runs in Argo CD's own VM (its globals, the libraries
//	    it opens, the table it reads back and the status values it accepts). It is null when
//	    Argo CD knows no health for the object, as for a custom resource without a check.
//
// Argo CD v2.14.21 is used because its module builds with Go 1.26; the v3 line moved
// gitops-engine into argo-cd/gitops-engine/v3, which does not build here. gitops-engine is at
// the version that Argo CD release requires, so the two agree as they do in Argo CD itself.
//
// Objects come as JSON on stdin: one object, an array of them, or a List with items. Flags:
//
//	-lua GROUP/KIND=FILE   a health check for that kind (repeatable; a core kind has no group)
//	-open-libs GROUP/KIND  run that kind's check with Lua's standard libraries, as
//	                       resource.customizations.useOpenLibs does
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	appv1 "github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v2/util/lua"
	"github.com/argoproj/gitops-engine/pkg/health"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type reading struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

type line struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Name       string   `json:"name"`
	Kstatus    reading  `json:"kstatus"`
	Health     *reading `json:"health"`
}

type checks map[string]string

func (c checks) String() string { return fmt.Sprint(map[string]string(c)) }

func (c checks) Set(value string) error {
	key, file, ok := strings.Cut(value, "=")
	if !ok || key == "" || file == "" {
		return fmt.Errorf("want GROUP/KIND=FILE, got %q", value)
	}
	script, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	c[key] = string(script)
	return nil
}

type names map[string]bool

func (n names) String() string { return fmt.Sprint(map[string]bool(n)) }

func (n names) Set(value string) error {
	n[value] = true
	return nil
}

func main() {
	scripts, openLibs := checks{}, names{}
	flag.Var(scripts, "lua", "GROUP/KIND=FILE: the Argo CD health check of that kind (repeatable)")
	flag.Var(openLibs, "open-libs", "GROUP/KIND: run its check with Lua's standard libraries")
	flag.Parse()
	objects, err := read(os.Stdin)
	if err != nil {
		fail(err)
	}
	overrides := lua.ResourceHealthOverrides{}
	for key, script := range scripts {
		overrides[key] = appv1.ResourceOverride{HealthLua: script, UseOpenLibs: openLibs[key]}
	}
	out := json.NewEncoder(os.Stdout)
	for _, obj := range objects {
		if err := out.Encode(judge(obj, overrides)); err != nil {
			fail(err)
		}
	}
}

func judge(obj *unstructured.Unstructured, overrides lua.ResourceHealthOverrides) line {
	result := line{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	computed, err := status.Compute(obj)
	if err != nil {
		result.Kstatus = reading{Status: "error", Message: err.Error()}
	} else {
		result.Kstatus = reading{Status: computed.Status.String(), Message: computed.Message}
	}
	// GetResourceHealth turns a failing check into Unknown with the error, as Argo CD shows it.
	found, _ := health.GetResourceHealth(obj, overrides)
	if found != nil {
		result.Health = &reading{Status: string(found.Status), Message: found.Message}
	}
	return result
}

func read(in io.Reader) ([]*unstructured.Unstructured, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	// Integers as int64, as client-go decodes them: kstatus reads generations with NestedInt64.
	var raw any
	if err := utiljson.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("stdin is not JSON: %w", err)
	}
	var items []any
	switch value := raw.(type) {
	case []any:
		items = value
	case map[string]any:
		if listed, ok := value["items"].([]any); ok && strings.HasSuffix(fmt.Sprint(value["kind"]), "List") {
			items = listed
		} else {
			items = []any{value}
		}
	default:
		return nil, fmt.Errorf("stdin holds neither an object nor a list of them")
	}
	objects := make([]*unstructured.Unstructured, 0, len(items))
	for i, item := range items {
		content, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("item %d is not an object", i)
		}
		objects = append(objects, &unstructured.Unstructured{Object: content})
	}
	return objects, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "health:", err)
	os.Exit(1)
}
