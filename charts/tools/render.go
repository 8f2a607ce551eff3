// Renders a Helm chart's templates the way `helm template` does for the features charts/berth
// uses (Go templates, the sprig functions, include, toYaml, required), for machines without
// helm. Usage: render <chart dir> [key.path=value ...]; prints the manifests as one YAML stream.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

func readYaml(path string) map[string]interface{} {
	out := map[string]interface{}{}
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	if err := yaml.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("%s: %v", path, err))
	}
	return out
}

// set applies one --set style override: a.b.c=value (true/false and integers are typed).
func set(values map[string]interface{}, kv string) {
	eq := strings.Index(kv, "=")
	keys := strings.Split(kv[:eq], ".")
	var v interface{} = kv[eq+1:]
	if err := yaml.Unmarshal([]byte(kv[eq+1:]), &v); err != nil {
		v = kv[eq+1:]
	}
	m := values
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]interface{})
		if !ok {
			next = map[string]interface{}{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

func main() {
	dir := os.Args[1]
	values := readYaml(filepath.Join(dir, "values.yaml"))
	for _, kv := range os.Args[2:] {
		set(values, kv)
	}
	chart := readYaml(filepath.Join(dir, "Chart.yaml"))
	data := map[string]interface{}{
		"Values":  values,
		"Release": map[string]interface{}{"Name": "berth", "Namespace": "berth", "Service": "Helm"},
		"Chart":   map[string]interface{}{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"]},
	}
	root := template.New("chart")
	funcs := sprig.TxtFuncMap()
	funcs["include"] = func(name string, d interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, d)
		return buf.String(), err
	}
	funcs["toYaml"] = func(v interface{}) string {
		b, err := yaml.Marshal(v)
		if err != nil {
			panic(err)
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, fmt.Errorf("%s", msg)
		}
		return v, nil
	}
	root.Funcs(funcs).Option("missingkey=zero")
	files, _ := filepath.Glob(filepath.Join(dir, "templates", "*"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		if _, err := root.New(filepath.Base(f)).Parse(string(b)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "_") {
			continue
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, data); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if strings.TrimSpace(buf.String()) != "" {
			fmt.Printf("---\n# Source: %s\n%s\n", name, strings.TrimSpace(buf.String()))
		}
	}
}
