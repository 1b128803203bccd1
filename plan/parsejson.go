package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// ParseJSON replaces column Col, which holds one JSON document per row
// (binary or string, e.g. a Kafka value), with the fields of Schema, decoded
// from it. Spark writes this select(from_json(col, schema).alias("d"), …)
// followed by "d.*"; here it is one step.
type ParseJSON struct {
	Input  Node
	Col    string
	Fields *arrow.Schema
	// ReplaceInvalidUTF8 stores invalid UTF-8 in JSON strings as U+FFFD
	// instead of treating the document as malformed.
	ReplaceInvalidUTF8 bool
	schema             *arrow.Schema
}

func (p *ParseJSON) Schema() *arrow.Schema { return p.schema }
func (p *ParseJSON) Children() []Node      { return []Node{p.Input} }
func (p *ParseJSON) Describe() string {
	return fmt.Sprintf("ParseJSON %s into %s", p.Col, columnar.FieldNames(p.Fields))
}

// NewParseJSON analyzes a JSON decoding step: the column and the field
// names. Whether the decoder supports each field's type is checked by the
// caller (the API asks textdecode), so that plan depends on no decoder.
func NewParseJSON(in Node, col string, fields *arrow.Schema) (*ParseJSON, error) {
	s := in.Schema()
	idx, err := columnar.FieldIndex(s, col)
	if err != nil {
		return nil, fmt.Errorf("fromJSON: %w", err)
	}
	if id := s.Field(idx).Type.ID(); id != arrow.BINARY && id != arrow.STRING {
		return nil, fmt.Errorf("fromJSON: column %s is %s; it must be binary or string", col, columnar.TypeName(s.Field(idx).Type))
	}
	if fields == nil || fields.NumFields() == 0 {
		return nil, fmt.Errorf("fromJSON(%s): the schema has no fields", col)
	}
	var out []arrow.Field
	names := map[string]bool{}
	for i, f := range s.Fields() {
		if i == idx {
			for _, g := range fields.Fields() {
				g.Nullable = true
				out = append(out, g)
			}
			continue
		}
		out = append(out, f)
	}
	for _, f := range out {
		if names[f.Name] {
			return nil, fmt.Errorf("fromJSON(%s): field %s clashes with an existing column; rename one", col, f.Name)
		}
		names[f.Name] = true
	}
	return &ParseJSON{Input: in, Col: col, Fields: fields, schema: arrow.NewSchema(out, nil)}, nil
}
