// Command helm-render renders a Helm chart the way `helm template` does, so that kubesmith's tests can check the
// charts `kubesmith make helm` writes on machines without a helm binary. Test tooling: it is not shipped.
//
// What it shares with Helm 3: Go's text/template with sprig v3's functions (less env and expandenv) and Helm's own
// (include, tpl, required, toYaml, fromYaml, fromYamlArray, toJson, fromJson, fromJsonArray, lookup);
// missingkey=zero with "<no value>" removed; the values of values.yaml coalesced with -f files and --set overrides
// (a null removes a key) and validated against values.schema.json with gojsonschema; .Values, .Release, .Chart,
// .Capabilities, .Template and .Files; partials (_*) defined but not printed; NOTES.txt rendered apart (--notes);
// crds/ printed unrendered, before the templates, with --include-crds; every rendered document must parse as YAML.
//
// Build (GOPATH mode, offline, with Debian's golang-github-masterminds-sprig-dev, golang-k8s-sigs-yaml-dev and
// golang-github-xeipuuv-gojsonschema-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o helm-render ./tools/helm-render
//
// Usage: helm-render [--release-name N] [--namespace NS] [--set a.b=c]... [--set-string a=b]... [-f file]...
// [--include-crds] [--notes] [--parse-only] [--kube-version v1.31.0] [--api-versions group/version]... CHART
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/semver"
	"github.com/Masterminds/sprig"
	"github.com/xeipuuv/gojsonschema"
	"sigs.k8s.io/yaml"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// Metadata is Chart.yaml, with the field names templates use (.Chart.Name, .Chart.AppVersion ...).
type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []interface{}     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []interface{}     `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`
}

// KubeVersion is .Capabilities.KubeVersion.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

func (k KubeVersion) String() string     { return k.Version }
func (k KubeVersion) GitVersion() string { return k.Version }

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

// Has tells whether an API version ("monitoring.coreos.com/v1") or a resource ("apps/v1/Deployment") is known.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// Capabilities is .Capabilities.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion map[string]string
}

// Files is .Files: the chart's files outside templates/.
type Files map[string][]byte

func (f Files) Get(name string) string      { return string(f[name]) }
func (f Files) GetBytes(name string) []byte { return f[name] }
func (f Files) Lines(name string) []string {
	if f[name] == nil {
		return []string{}
	}
	return strings.Split(string(f[name]), "\n")
}

// The API versions of a plain cluster, as `helm template` assumes without --api-versions.
var defaultAPIVersions = []string{
	"v1", "apps/v1", "batch/v1", "policy/v1", "rbac.authorization.k8s.io/v1", "networking.k8s.io/v1",
	"admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "coordination.k8s.io/v1",
	"authentication.k8s.io/v1", "authorization.k8s.io/v1", "autoscaling/v2", "storage.k8s.io/v1",
	"scheduling.k8s.io/v1", "events.k8s.io/v1", "discovery.k8s.io/v1", "node.k8s.io/v1",
}

type chartFiles struct {
	meta      Metadata
	values    map[string]interface{}
	schema    []byte
	templates map[string]string // "<chart>/templates/x.yaml" -> text
	crds      map[string]string // "<chart>/crds/x.yaml" -> text
	files     Files
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "Error: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	var sets, setStrings, valueFiles, apiVersions multiFlag
	release := flag.String("release-name", "release-name", "release name (.Release.Name)")
	namespace := flag.String("namespace", "default", "release namespace (.Release.Namespace)")
	kubeVersion := flag.String("kube-version", "v1.31.0", "Kubernetes version (.Capabilities.KubeVersion)")
	includeCRDs := flag.Bool("include-crds", false, "print the files of crds/ before the templates")
	notes := flag.Bool("notes", false, "print the rendered templates/NOTES.txt instead of the manifests")
	parseOnly := flag.Bool("parse-only", false, "parse every template and report errors; render nothing")
	flag.Var(&sets, "set", "a.b=c[,d=e] value override (repeatable)")
	flag.Var(&setStrings, "set-string", "a.b=c value override kept as a string (repeatable)")
	flag.Var(&valueFiles, "f", "values file merged over values.yaml (repeatable)")
	flag.Var(&valueFiles, "values", "same as -f")
	flag.Var(&apiVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	// Flags may come after the chart folder, as with helm.
	var positional []string
	args := os.Args[1:]
	for {
		if err := flag.CommandLine.Parse(args); err != nil {
			fail("%v", err)
		}
		if flag.NArg() == 0 {
			break
		}
		positional = append(positional, flag.Arg(0))
		args = flag.Args()[1:]
	}
	if len(positional) != 1 {
		fail("expected exactly one chart folder, got %d arguments", len(positional))
	}
	chart, err := load(positional[0])
	if err != nil {
		fail("%v", err)
	}
	funcs := funcMap()
	if *parseOnly {
		if err := parseAll(chart, funcs); err != nil {
			fail("%v", err)
		}
		fmt.Println("ok")
		return
	}

	user := map[string]interface{}{}
	for _, f := range valueFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			fail("%v", err)
		}
		m := map[string]interface{}{}
		if err := yaml.Unmarshal(data, &m); err != nil {
			fail("failed to parse %s: %v", f, err)
		}
		mergeMaps(user, m)
	}
	for _, s := range sets {
		if err := parseSet(s, user, false); err != nil {
			fail("failed parsing --set data: %v", err)
		}
	}
	for _, s := range setStrings {
		if err := parseSet(s, user, true); err != nil {
			fail("failed parsing --set-string data: %v", err)
		}
	}
	values := coalesce(user, deepCopy(chart.values).(map[string]interface{}))
	if chart.schema != nil {
		if err := validateSchema(chart.schema, values); err != nil {
			fail("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%v", chart.meta.Name, err)
		}
	}

	v, err := semver.NewVersion(*kubeVersion)
	if err != nil {
		fail("invalid --kube-version %q: %v", *kubeVersion, err)
	}
	caps := Capabilities{
		KubeVersion: KubeVersion{Version: "v" + v.String(), Major: strconv.FormatUint(v.Major(), 10), Minor: strconv.FormatUint(v.Minor(), 10)},
		APIVersions: append(VersionSet(append([]string{}, defaultAPIVersions...)), apiVersions...),
		HelmVersion: map[string]string{"version": "v3.16.0"},
	}
	top := map[string]interface{}{
		"Chart":        &chart.meta,
		"Capabilities": caps,
		"Release": map[string]interface{}{
			"Name": *release, "Namespace": *namespace, "IsInstall": true, "IsUpgrade": false,
			"Revision": 1, "Service": "Helm",
		},
		"Values": values,
		"Files":  chart.files,
	}
	rendered, err := render(chart, funcs, top)
	if err != nil {
		fail("%v", err)
	}
	notesName := path.Join(chart.meta.Name, "templates", "NOTES.txt")
	if *notes {
		fmt.Print(rendered[notesName])
		return
	}
	var out bytes.Buffer
	if *includeCRDs {
		for _, name := range sortedKeys(chart.crds) {
			fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", name, strings.TrimRight(chart.crds[name], "\n"))
		}
	}
	for _, name := range sortedKeys(rendered) {
		text := rendered[name]
		if name == notesName || strings.TrimSpace(text) == "" {
			continue
		}
		for i, doc := range splitDocs(text) {
			var parsed interface{}
			if err := yaml.Unmarshal([]byte(doc), &parsed); err != nil {
				fail("YAML parse error on %s (document %d): %v\n%s", name, i+1, err, numbered(doc))
			}
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", name, strings.TrimRight(text, "\n"))
	}
	os.Stdout.Write(out.Bytes())
}

func numbered(text string) string {
	var b strings.Builder
	for i, l := range strings.Split(text, "\n") {
		fmt.Fprintf(&b, "%4d | %s\n", i+1, l)
	}
	return b.String()
}

func splitDocs(text string) []string {
	var docs []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimRight(line, " ") == "---" {
			docs = append(docs, strings.Join(cur, "\n"))
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	return append(docs, strings.Join(cur, "\n"))
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// load reads a chart folder: Chart.yaml (validated as Helm does on load), values.yaml, values.schema.json,
// templates/ (recursively), crds/ and the other files.
func load(dir string) (*chartFiles, error) {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, fmt.Errorf("Chart.yaml file is missing: %v", err)
	}
	c := &chartFiles{values: map[string]interface{}{}, templates: map[string]string{}, crds: map[string]string{}, files: Files{}}
	if err := yaml.Unmarshal(data, &c.meta); err != nil {
		return nil, fmt.Errorf("cannot load Chart.yaml: %v", err)
	}
	if c.meta.APIVersion == "" {
		return nil, errors.New("validation: chart.metadata.apiVersion is required")
	}
	if c.meta.Name == "" {
		return nil, errors.New("validation: chart.metadata.name is required")
	}
	if c.meta.Version == "" {
		return nil, errors.New("validation: chart.metadata.version is required")
	}
	if _, err := semver.NewVersion(c.meta.Version); err != nil {
		return nil, fmt.Errorf("validation: chart.metadata.version %q is invalid", c.meta.Version)
	}
	if c.meta.Type != "" && c.meta.Type != "application" && c.meta.Type != "library" {
		return nil, fmt.Errorf("validation: chart.metadata.type must be application or library")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "values.yaml")); err == nil {
		if err := yaml.Unmarshal(data, &c.values); err != nil {
			return nil, fmt.Errorf("cannot load values.yaml: %v", err)
		}
		if c.values == nil {
			c.values = map[string]interface{}{}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "values.schema.json")); err == nil {
		c.schema = data
	}
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(rel, "templates/"):
			c.templates[path.Join(c.meta.Name, rel)] = string(data)
		case strings.HasPrefix(rel, "crds/"):
			ext := path.Ext(rel)
			if ext == ".yaml" || ext == ".yml" || ext == ".json" {
				c.crds[path.Join(c.meta.Name, rel)] = string(data)
			}
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json":
		default:
			c.files[rel] = data
		}
		return nil
	})
	return c, err
}

// funcMap is Helm's: sprig's text functions without env/expandenv, and Helm's additions. include, tpl and
// required are placeholders replaced per render (they need the template set).
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toYaml": func(v interface{}) string {
			data, err := yaml.Marshal(v)
			if err != nil {
				return ""
			}
			return strings.TrimSuffix(string(data), "\n")
		},
		"fromYaml": func(s string) map[string]interface{} {
			m := map[string]interface{}{}
			if err := yaml.Unmarshal([]byte(s), &m); err != nil {
				m["Error"] = err.Error()
			}
			return m
		},
		"fromYamlArray": func(s string) []interface{} {
			a := []interface{}{}
			if err := yaml.Unmarshal([]byte(s), &a); err != nil {
				a = []interface{}{err.Error()}
			}
			return a
		},
		"toJson": func(v interface{}) string {
			data, err := json.Marshal(v)
			if err != nil {
				return ""
			}
			return string(data)
		},
		"fromJson": func(s string) map[string]interface{} {
			m := map[string]interface{}{}
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				m["Error"] = err.Error()
			}
			return m
		},
		"fromJsonArray": func(s string) []interface{} {
			a := []interface{}{}
			if err := json.Unmarshal([]byte(s), &a); err != nil {
				a = []interface{}{err.Error()}
			}
			return a
		},
		"toToml": func(v interface{}) (string, error) { return "", errors.New("toToml is not supported by helm-render") },
		"fromToml": func(s string) (map[string]interface{}, error) {
			return nil, errors.New("fromToml is not supported by helm-render")
		},
		"lookup": func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
		"include":  func(string, interface{}) string { return "not implemented" },
		"tpl":      func(string, interface{}) interface{} { return "not implemented" },
		"required": func(string, interface{}) (interface{}, error) { return "not implemented", nil },
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// templateOrder is Helm's parse order: deeper paths first, then by name.
func templateOrder(tpls map[string]string) []string {
	keys := sortedKeys(tpls)
	sort.SliceStable(keys, func(i, j int) bool {
		ci, cj := strings.Count(keys[i], "/"), strings.Count(keys[j], "/")
		if ci == cj {
			return keys[i] > keys[j]
		}
		return ci > cj
	})
	return keys
}

func parseAll(c *chartFiles, funcs template.FuncMap) error {
	t := template.New("gotpl").Funcs(funcs)
	for _, name := range templateOrder(c.templates) {
		if _, err := t.New(name).Parse(c.templates[name]); err != nil {
			return cleanParseError(name, err)
		}
	}
	return nil
}

func cleanParseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) < 2 {
		return fmt.Errorf("parse error in (%s): %v", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

func render(c *chartFiles, funcs template.FuncMap, top map[string]interface{}) (map[string]string, error) {
	t := template.New("gotpl").Option("missingkey=zero")
	included := map[string]int{}
	fm := template.FuncMap{}
	for k, v := range funcs {
		fm[k] = v
	}
	fm["include"] = func(name string, data interface{}) (string, error) {
		if included[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		included[name]++
		defer func() { included[name]-- }()
		var buf strings.Builder
		err := t.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	fm["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			return val, errors.New(warn)
		}
		if s, ok := val.(string); ok && s == "" {
			return val, errors.New(warn)
		}
		return val, nil
	}
	fm["tpl"] = func(text string, vals interface{}) (string, error) {
		clone, err := t.Clone()
		if err != nil {
			return "", err
		}
		name := "tpl"
		if m, ok := vals.(map[string]interface{}); ok {
			if tm, ok := m["Template"].(map[string]interface{}); ok {
				if n, ok := tm["Name"].(string); ok {
					name = n
				}
			}
		}
		if _, err := clone.New(name).Parse(text); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %v", text, err)
		}
		var buf strings.Builder
		if err := clone.ExecuteTemplate(&buf, name, vals); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %v", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	t.Funcs(fm)
	for _, name := range templateOrder(c.templates) {
		if _, err := t.New(name).Parse(c.templates[name]); err != nil {
			return nil, cleanParseError(name, err)
		}
	}
	out := map[string]string{}
	for _, name := range sortedKeys(c.templates) {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		top["Template"] = map[string]interface{}{"Name": name, "BasePath": path.Join(c.meta.Name, "templates")}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, name, top); err != nil {
			return nil, fmt.Errorf("execution error in (%s): %v", name, err)
		}
		out[name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return out, nil
}

func validateSchema(schema []byte, values map[string]interface{}) error {
	doc, err := json.Marshal(values)
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return fmt.Errorf("values.schema.json: %v", err)
	}
	if result.Valid() {
		return nil
	}
	var b strings.Builder
	for _, e := range result.Errors() {
		fmt.Fprintf(&b, "- %s\n", e)
	}
	return errors.New(strings.TrimRight(b.String(), "\n"))
}

// mergeMaps merges b into a (b wins; maps merged recursively), like Helm merges -f files and --set values.
func mergeMaps(a, b map[string]interface{}) {
	for k, v := range b {
		if vm, ok := v.(map[string]interface{}); ok {
			if am, ok := a[k].(map[string]interface{}); ok {
				mergeMaps(am, vm)
				continue
			}
		}
		a[k] = v
	}
}

// coalesce fills the user's values with the chart's defaults: user values win, a user null removes the key.
func coalesce(user, defaults map[string]interface{}) map[string]interface{} {
	for k, dv := range defaults {
		uv, present := user[k]
		if !present {
			user[k] = dv
			continue
		}
		if uv == nil {
			delete(user, k)
			continue
		}
		um, uok := uv.(map[string]interface{})
		dm, dok := dv.(map[string]interface{})
		if uok && dok {
			user[k] = coalesce(um, dm)
		}
	}
	for k, v := range user {
		if v == nil {
			delete(user, k)
		}
	}
	return user
}

func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		m := make(map[string]interface{}, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []interface{}:
		a := make([]interface{}, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	default:
		return v
	}
}

// typedVal is Helm's reading of a --set value: true/false/null, integers without a leading zero, else a string.
func typedVal(val string, asString bool) interface{} {
	if asString {
		return val
	}
	switch {
	case strings.EqualFold(val, "true"):
		return true
	case strings.EqualFold(val, "false"):
		return false
	case strings.EqualFold(val, "null"):
		return nil
	case val == "0":
		return int64(0)
	}
	if len(val) > 0 && val[0] != '0' {
		if i, err := strconv.ParseInt(val, 10, 64); err == nil {
			return i
		}
	}
	return val
}

// splitUnescaped splits s at sep, honouring backslash escapes (which it removes) and, for commas, {a,b} lists.
func splitUnescaped(s string, sep rune, keepBraces bool) []string {
	var parts []string
	var cur strings.Builder
	depth := 0
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			if keepBraces {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case keepBraces && r == '{':
			depth++
			cur.WriteRune(r)
		case keepBraces && r == '}':
			depth--
			cur.WriteRune(r)
		case r == sep && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

// parseSet applies one --set argument (`a.b=c,d[0]=e,f={x,y}`) to values.
func parseSet(arg string, values map[string]interface{}, asString bool) error {
	for _, pair := range splitUnescaped(arg, ',', true) {
		if pair == "" {
			continue
		}
		eq := -1
		escaped := false
		for i, r := range pair {
			if escaped {
				escaped = false
				continue
			}
			if r == '\\' {
				escaped = true
				continue
			}
			if r == '=' {
				eq = i
				break
			}
		}
		if eq < 0 {
			return fmt.Errorf("key %q has no value", pair)
		}
		key, raw := pair[:eq], pair[eq+1:]
		var val interface{}
		if strings.HasPrefix(raw, "{") && strings.HasSuffix(raw, "}") {
			list := []interface{}{}
			inner := raw[1 : len(raw)-1]
			if inner != "" {
				for _, item := range splitUnescaped(inner, ',', false) {
					list = append(list, typedVal(item, asString))
				}
			}
			val = list
		} else {
			val = typedVal(strings.NewReplacer(`\,`, ",", `\=`, "=").Replace(raw), asString)
		}
		if err := setPath(values, splitUnescaped(key, '.', false), val); err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
	}
	return nil
}

// setPath sets a dotted path (segments may end in [N]) to val, creating maps and lists on the way.
func setPath(m map[string]interface{}, segs []string, val interface{}) error {
	seg := segs[0]
	name, index := seg, -1
	if open := strings.Index(seg, "["); open >= 0 && strings.HasSuffix(seg, "]") {
		i, err := strconv.Atoi(seg[open+1 : len(seg)-1])
		if err != nil || i < 0 {
			return fmt.Errorf("bad list index in %q", seg)
		}
		name, index = seg[:open], i
	}
	if index < 0 {
		if len(segs) == 1 {
			m[name] = val
			return nil
		}
		child, ok := m[name].(map[string]interface{})
		if !ok {
			child = map[string]interface{}{}
			m[name] = child
		}
		return setPath(child, segs[1:], val)
	}
	list, _ := m[name].([]interface{})
	for len(list) <= index {
		list = append(list, nil)
	}
	if len(segs) == 1 {
		list[index] = val
	} else {
		child, ok := list[index].(map[string]interface{})
		if !ok {
			child = map[string]interface{}{}
		}
		if err := setPath(child, segs[1:], val); err != nil {
			return err
		}
		list[index] = child
	}
	m[name] = list
	return nil
}
