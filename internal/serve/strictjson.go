package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// maxWriteBody caps the JSON body of a write endpoint (64 KiB): a root
// path and nothing else.
const maxWriteBody = 64 << 10

// decodeStrict reads one JSON object from r into v (a pointer to a struct
// with json tags), more strictly than encoding/json, which matches keys
// case-insensitively, keeps the last of duplicate keys and stops reading
// after the first value. It refuses, with an error naming the problem:
//   - a body over maxWriteBody bytes;
//   - anything but whitespace after the object ({"root":"/p"}garbage);
//   - a key that is not exactly the json name of one of v's fields
//     ("ROOT", "Root", "force"): unknown fields are refused, and case
//     counts;
//   - a key given twice at any depth, or two keys of one object that
//     differ only in case.
//
// An empty body (whitespace only) is io.EOF, so callers can fall back on
// query parameters.
func decodeStrict(r io.Reader, v any) error {
	body, err := io.ReadAll(io.LimitReader(r, maxWriteBody+1))
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if len(body) > maxWriteBody {
		return fmt.Errorf("body is over %d bytes", maxWriteBody)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return io.EOF
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want a JSON object, got %v", tok)
	}
	if err := checkObject(dec, fieldNames(v)); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON object")
	}
	dec = json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// checkObject reads the rest of an object whose '{' dec has just read:
// its keys must be unique, also ignoring case, and, when names is not
// nil, each one of names exactly. Nested values are checked for duplicate
// keys alone.
func checkObject(dec *json.Decoder, names map[string]bool) error {
	seen := map[string]string{} // lower-cased key -> key as given
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if prev, ok := seen[strings.ToLower(key)]; ok {
			if prev == key {
				return fmt.Errorf("key %q is given twice", key)
			}
			return fmt.Errorf("keys %q and %q differ only in case", prev, key)
		}
		seen[strings.ToLower(key)] = key
		if names != nil && !names[key] {
			return fmt.Errorf("unknown field %q", key)
		}
		if err := checkValue(dec); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// checkValue reads one value, checking the objects in it (checkObject).
func checkValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return checkObject(dec, nil)
	case json.Delim('['):
		for dec.More() {
			if err := checkValue(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
	}
	return err
}

// fieldNames is the set of json names of the exported fields of the
// struct v points to (the tag's name, else the field's name).
func fieldNames(v any) map[string]bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	names := map[string]bool{}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		names[name] = true
	}
	return names
}
