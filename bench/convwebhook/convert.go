package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

const (
	group      = "examples.stencil.dev"
	hub        = "v1"
	spoke      = "v1alpha1"
	annotation = "stencil.dev/conversion-data"
)

type object = map[string]any

// absent stands for a field an object does not have (a field may hold null).
type absentField struct{}

var absent any = absentField{}

// The fields each version's schema has, below spec and status: what the API server keeps.
var (
	hubFields   = object{"spec": object{"image": nil, "replicas": nil, "port": nil, "tier": nil}, "status": object{"address": nil}}
	spokeFields = object{"spec": object{"repository": nil, "tag": nil, "instances": nil, "container": object{"port": nil}}, "status": object{"address": nil}}
)

// An entry of the annotation: a field's path and value, and the value the round trip gave it
// instead, if any (to tell later whether a client changed it since).
type kept = []any

func convert(obj object, desired string) (object, error) {
	from, err := versionOf(obj["apiVersion"])
	if err != nil {
		return nil, err
	}
	to, err := versionOf(desired)
	if err != nil {
		return nil, err
	}
	switch {
	case from == to:
		obj["apiVersion"] = desired
		return obj, nil
	case to == spoke:
		return toSpoke(obj)
	default:
		return toHub(obj)
	}
}

func versionOf(apiVersion any) (string, error) {
	text, ok := apiVersion.(string)
	if !ok {
		return "", fmt.Errorf("the object has no apiVersion")
	}
	if text != group+"/"+hub && text != group+"/"+spoke {
		return "", fmt.Errorf("%s is not a version of this kind (it has %s/%s, %s/%s)", text, group, hub, group, spoke)
	}
	return text[len(group)+1:], nil
}

// toSpoke: a v1 WebApp at v1alpha1; what v1alpha1 cannot hold of it (tier) is kept aside.
func toSpoke(obj object) (object, error) {
	data, err := readData(obj)
	if err != nil {
		return nil, err
	}
	out := pruned(down(obj), spokeFields, data[spoke])
	delete(data, spoke)
	back := pruned(up(out), hubFields, nil)
	if lost := differences(pruned(obj, hubFields, nil), back, nil, nil); len(lost) > 0 {
		data[hub] = lost
	}
	return withData(out, group+"/"+spoke, data), nil
}

// toHub: a v1alpha1 WebApp at v1, with the fields v1 kept aside put back.
func toHub(obj object) (object, error) {
	data, err := readData(obj)
	if err != nil {
		return nil, err
	}
	out := pruned(up(obj), hubFields, data[hub])
	delete(data, hub)
	back := pruned(down(out), spokeFields, nil)
	if lost := differences(pruned(obj, spokeFields, nil), back, nil, nil); len(lost) > 0 {
		data[spoke] = lost
	}
	return withData(out, group+"/"+hub, data), nil
}

// down maps a v1 object's spec to v1alpha1's: replicas is instances, port is container.port, and
// the image is split into repository and tag.
func down(obj object) object {
	spec, _ := obj["spec"].(object)
	out, converted := copied(obj)
	replicas, port := get(obj, "spec", "replicas"), get(obj, "spec", "port")
	image, isString := get(obj, "spec", "image").(string)
	remove(converted, "spec", "replicas")
	remove(converted, "spec", "port")
	remove(converted, "spec", "image")
	set(converted, replicas, "spec", "instances")
	set(converted, port, "spec", "container", "port")
	if spec != nil && isString {
		repository, tag, tagged := image, "", false
		if last := image[strings.LastIndex(image, "/")+1:]; strings.Contains(last, ":") {
			colon := strings.LastIndex(image, ":")
			repository, tag, tagged = image[:colon], image[colon+1:], true
		}
		set(converted, repository, "spec", "repository")
		if tagged {
			set(converted, tag, "spec", "tag")
		}
	}
	return rooted(out, converted)
}

// up maps a v1alpha1 object's spec to v1's: the image is the repository, and ":tag" if it has one.
func up(obj object) object {
	out, converted := copied(obj)
	instances, port := get(obj, "spec", "instances"), get(obj, "spec", "container", "port")
	image := text(get(obj, "spec", "repository"))
	if tag := get(obj, "spec", "tag"); truthy(tag) {
		image += ":" + text(tag)
	}
	remove(converted, "spec", "instances")
	remove(converted, "spec", "container", "port")
	remove(converted, "spec", "repository")
	remove(converted, "spec", "tag")
	set(converted, instances, "spec", "replicas")
	set(converted, port, "spec", "port")
	set(converted, image, "spec", "image")
	return rooted(out, converted)
}

// copied: the object's fields other than spec and status, and a deep copy of those two.
func copied(obj object) (object, object) {
	out, converted := object{}, object{}
	for key, value := range obj {
		if key == "spec" || key == "status" {
			converted[key] = deepCopy(value)
		} else {
			out[key] = value
		}
	}
	return out, converted
}

func rooted(out, converted object) object {
	for key, value := range converted {
		out[key] = value
	}
	return out
}

// pruned puts back the kept entries where the object has no value, or still has the one the
// conversion gave when it was kept; then drops every field the version's schema does not have.
func pruned(obj object, fields object, restore any) object {
	entries, _ := restore.([]any)
	for _, entry := range entries {
		e := entry.([]any)
		path := strings_(e[0].([]any))
		if now := get(obj, path...); now == absent || (len(e) == 3 && equal(now, e[2])) {
			put(obj, e[1], path...) // a kept null is put back too
		}
	}
	out := object{}
	for key, value := range obj {
		switch key {
		case "apiVersion", "kind", "metadata":
			out[key] = value
		case "spec", "status":
			out[key] = keep(value, fields[key])
		}
	}
	return out
}

func keep(value any, fields any) any {
	given, isObject := value.(object)
	if !isObject {
		return value
	}
	below, _ := fields.(object) // nil for a field that is not an object: none of its keys is kept
	out := object{}
	for key, item := range given {
		if sub, known := below[key]; known {
			out[key] = keep(item, sub)
		}
	}
	return out
}

// differences: each field below spec and status of original that back does not hold, in the
// order of its keys (the API server sends an object's keys sorted).
func differences(original, back any, path []string, found []any) []any {
	given, isObject := original.(object)
	other, otherIsObject := back.(object)
	if isObject && otherIsObject {
		for _, key := range sortedKeys(given) {
			if len(path) > 0 || key == "spec" || key == "status" {
				there, ok := other[key]
				if !ok {
					there = absent
				}
				found = differences(given[key], there, append(append([]string{}, path...), key), found)
			}
		}
		return found
	}
	if len(path) > 0 && !equal(original, back) {
		steps := make([]any, len(path))
		for i, step := range path {
			steps[i] = step
		}
		if back == absent {
			return append(found, kept{steps, original})
		}
		return append(found, kept{steps, original, back})
	}
	return found
}

// readData: the annotation's entries by version, checked to be what conversion writes.
func readData(obj object) (map[string]any, error) {
	metadata, _ := obj["metadata"].(object)
	annotations, _ := metadata["annotations"].(object)
	value, ok := annotations[annotation]
	if !ok || value == nil {
		return map[string]any{}, nil
	}
	wrong := fmt.Errorf("the annotation %s is not what conversion writes", annotation)
	text, _ := value.(string)
	decoder := json.NewDecoder(strings.NewReader(text))
	decoder.UseNumber()
	var data map[string]any
	if err := decoder.Decode(&data); err != nil || data == nil || decoder.More() {
		return nil, wrong
	}
	for _, entries := range data {
		list, isList := entries.([]any)
		if !isList {
			return nil, wrong
		}
		for _, entry := range list {
			if !isEntry(entry) {
				return nil, wrong
			}
		}
	}
	return data, nil
}

func isEntry(entry any) bool {
	e, ok := entry.([]any)
	if !ok || (len(e) != 2 && len(e) != 3) {
		return false
	}
	path, ok := e[0].([]any)
	if !ok || len(path) < 2 || (path[0] != "spec" && path[0] != "status") {
		return false
	}
	for _, step := range path {
		if _, ok := step.(string); !ok {
			return false
		}
	}
	return true
}

// withData: the object at apiVersion with the annotation holding data (none if data is empty).
func withData(obj object, apiVersion string, data map[string]any) object {
	metadata := object{}
	if given, ok := obj["metadata"].(object); ok {
		for key, value := range given {
			metadata[key] = value
		}
	}
	annotations := object{}
	if given, ok := metadata["annotations"].(object); ok {
		for key, value := range given {
			if key != annotation {
				annotations[key] = value
			}
		}
	}
	if len(data) > 0 {
		annotations[annotation] = pythonJSON(data)
	}
	if len(annotations) > 0 {
		metadata["annotations"] = annotations
	} else {
		delete(metadata, "annotations")
	}
	obj["apiVersion"], obj["metadata"] = apiVersion, metadata
	return obj
}

func get(obj any, path ...string) any {
	for _, step := range path {
		below, ok := obj.(object)
		if !ok {
			return absent
		}
		if obj, ok = below[step]; !ok {
			return absent
		}
	}
	return obj
}

// set writes value at path, making the objects above it; absent or null writes nothing.
func set(obj object, value any, path ...string) {
	if value != absent && value != nil {
		put(obj, value, path...)
	}
}

func put(obj object, value any, path ...string) {
	for _, step := range path[:len(path)-1] {
		below, ok := obj[step].(object)
		if !ok {
			below = object{}
			obj[step] = below
		}
		obj = below
	}
	obj[path[len(path)-1]] = value
}

// remove deletes the field at path, and the objects above it that it leaves empty.
func remove(obj object, path ...string) {
	parents := []object{obj}
	for _, step := range path[:len(path)-1] {
		below, ok := obj[step].(object)
		if !ok {
			return
		}
		obj = below
		parents = append(parents, obj)
	}
	if _, ok := obj[path[len(path)-1]]; !ok {
		return
	}
	delete(obj, path[len(path)-1])
	for i := len(parents) - 1; i > 0; i-- {
		if len(parents[i]) > 0 {
			break
		}
		delete(parents[i-1], path[i-1])
	}
}

func deepCopy(value any) any {
	switch v := value.(type) {
	case object:
		out := make(object, len(v))
		for key, item := range v {
			out[key] = deepCopy(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = deepCopy(item)
		}
		return out
	}
	return value
}

func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// text and truthy: a value as the expressions of kind.yaml see it in "~" and in "if".
func text(value any) string {
	switch v := value.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		if v {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case absentField:
		return ""
	}
	return fmt.Sprint(value)
}

func truthy(value any) bool {
	switch v := value.(type) {
	case string:
		return v != ""
	case json.Number:
		f, _ := v.Float64()
		return f != 0
	case bool:
		return v
	case nil, absentField:
		return false
	case object:
		return len(v) > 0
	case []any:
		return len(v) > 0
	}
	return true
}

func sortedKeys(obj object) []string {
	keys := make([]string, 0, len(obj))
	for key := range obj {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

func strings_(steps []any) []string {
	out := make([]string, len(steps))
	for i, step := range steps {
		out[i] = step.(string)
	}
	return out
}
