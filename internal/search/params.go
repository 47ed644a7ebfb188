package search

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Set assigns HybridParams fields from spec, a comma-separated list of
// Field=value ("Semantic=0.3,Expand=0,Delegate=false,FTS.Body=0.5"):
// field names as in HybridParams (those of the embedded QueryOptions
// too; a struct field's fields after a dot), values parsed by the
// field's kind (float, int, bool). It lets an evaluation ablate one
// stage or re-weigh one signal without a rebuild (coderag eval --set).
// Errors name the unknown field or the bad value; hp is left partly set.
func (hp *HybridParams) Set(spec string) error {
	for _, kv := range strings.Split(spec, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("param %q: want Field=value", kv)
		}
		f := reflect.ValueOf(hp).Elem()
		for _, part := range strings.Split(strings.TrimSpace(name), ".") {
			if f.Kind() != reflect.Struct {
				return fmt.Errorf("param %q: %s has no fields", name, part)
			}
			f = f.FieldByName(part)
			if !f.IsValid() || !f.CanSet() {
				return fmt.Errorf("param %q: no such field of HybridParams", name)
			}
		}
		val = strings.TrimSpace(val)
		var err error
		switch f.Kind() {
		case reflect.Float64:
			var x float64
			if x, err = strconv.ParseFloat(val, 64); err == nil {
				f.SetFloat(x)
			}
		case reflect.Int:
			var x int64
			if x, err = strconv.ParseInt(val, 10, 64); err == nil {
				f.SetInt(x)
			}
		case reflect.Bool:
			var x bool
			if x, err = strconv.ParseBool(val); err == nil {
				f.SetBool(x)
			}
		default:
			return fmt.Errorf("param %q: a %s cannot be set", name, f.Kind())
		}
		if err != nil {
			return fmt.Errorf("param %q: bad value %q", name, val)
		}
	}
	return nil
}
