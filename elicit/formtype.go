package elicit

import (
	"fmt"
	"reflect"
)

// checkFormType reports why t, whose schema is s, cannot be a form: the
// browser and the terminal show a form as one input per field, so T must be
// a struct whose fields are text, numbers, booleans or lists of text. The
// error names the type and the first field that is none of those.
func checkFormType(t reflect.Type, s *Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("elicit: Form[%s]: a form's type must be a struct of fields, not a %s", t, t.Kind())
	}
	for f := range fields(t) {
		name, _, ok := jsonName(f)
		if !ok || formField(s.Properties[name]) {
			continue
		}
		return fmt.Errorf("elicit: Form[%s]: field %s (%s) cannot be shown in a form: "+
			"a form's fields are text, numbers, booleans or lists of text", t, f.Name, f.Type)
	}
	return nil
}

// formField reports whether a form can show p as one of its fields.
func formField(p *Schema) bool {
	switch p.Type {
	case "string", "integer", "number", "boolean":
		return true
	case "array":
		return p.Items != nil && p.Items.Type == "string"
	}
	return false // an object (a struct or a map), or any value at all
}
