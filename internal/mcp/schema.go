package mcp

import (
	"fmt"

	"github.com/sweatpants-go/sweatpants/elicit"
)

// mcpFormats are the string formats a form of revision 2025-11-25 may
// name; others are left out, the question's own check still applying.
var mcpFormats = map[string]bool{"email": true, "uri": true, "date": true, "date-time": true}

// flatForm says schema as the requested schema of elicitation/create: an
// object of strings, numbers, integers, booleans and multiple choices
// (lists of strings from an enum), with titles, descriptions, enums,
// defaults and bounds. When it cannot be said so, it
// returns why instead.
func flatForm(schema *elicit.Schema) (map[string]any, string) {
	if schema == nil || schema.Type != "object" {
		return nil, "its answer is not a form"
	}
	props := map[string]any{}
	for name, p := range schema.Properties {
		field, err := flatField(p)
		if err != nil {
			return nil, fmt.Sprintf("its field %q %v", name, err)
		}
		props[name] = field
	}
	form := map[string]any{"type": "object", "properties": props}
	if len(schema.Required) > 0 {
		form["required"] = schema.Required
	}
	return form, ""
}

// flatField says one field of a flat form. A list is a field only as a
// multiple choice: a list of strings from an enum.
func flatField(p *elicit.Schema) (map[string]any, error) {
	f := map[string]any{"type": p.Type}
	switch {
	case p.Type == "string", p.Type == "number", p.Type == "integer", p.Type == "boolean":
	case p.Type == "array" && p.Items != nil && p.Items.Type == "string" && len(p.Items.Enum) > 0:
		f["items"] = map[string]any{"type": "string", "enum": p.Items.Enum}
		if p.MinItems != nil {
			f["minItems"] = *p.MinItems
		}
		if p.MaxItems != nil {
			f["maxItems"] = *p.MaxItems
		}
	default:
		return nil, fmt.Errorf("is of type %q, which a form over MCP cannot hold", p.Type)
	}
	set := func(k string, v any, ok bool) {
		if ok {
			f[k] = v
		}
	}
	set("title", p.Title, p.Title != "")
	set("description", p.Description, p.Description != "")
	set("enum", p.Enum, len(p.Enum) > 0)
	set("default", p.Default, p.Default != nil)
	set("minimum", p.Minimum, p.Minimum != nil)
	set("maximum", p.Maximum, p.Maximum != nil)
	set("minLength", p.MinLength, p.MinLength != nil)
	set("maxLength", p.MaxLength, p.MaxLength != nil)
	set("format", p.Format, mcpFormats[p.Format])
	return f, nil
}
