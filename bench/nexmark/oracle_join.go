package nexmark

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Oracle of the join query q3: a hash join of Go structs, without the
// engine.

var q3Schema = arrow.NewSchema([]arrow.Field{
	{Name: "name", Type: arrow.BinaryTypes.String},
	{Name: "city", Type: arrow.BinaryTypes.String},
	{Name: "state", Type: arrow.BinaryTypes.String},
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// OracleQ3 evaluates q3 naively over events [0, events): it collects the
// persons in Q3States by id and the auctions of Q3Category, then emits one
// row per auction whose seller is such a person. An inner join's final
// output does not depend on the order rows arrived in, so the oracle
// ignores triggers and event order.
func OracleQ3(g *Generator, events int64) Result {
	persons := map[int64]Person{}
	var auctions []Auction
	for pos := range events {
		e := g.EventNumber(pos)
		switch KindOf(e) {
		case Persons:
			p := g.PersonAt(e)
			for _, s := range Q3States {
				if p.State == s {
					persons[p.ID] = p
				}
			}
		case Auctions:
			if a := g.AuctionAt(e); a.Category == Q3Category {
				auctions = append(auctions, a)
			}
		}
	}
	s := newRowSink(q3Schema)
	for _, a := range auctions {
		p, ok := persons[a.Seller]
		if !ok {
			continue
		}
		s.b.Field(0).(*array.StringBuilder).Append(p.Name)
		s.b.Field(1).(*array.StringBuilder).Append(p.City)
		s.b.Field(2).(*array.StringBuilder).Append(p.State)
		s.b.Field(3).(*array.Int64Builder).Append(a.ID)
		s.row()
	}
	return s.done()
}
