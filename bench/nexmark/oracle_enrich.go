package nexmark

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/columnar"
)

// Oracles of the enrichment joins q13 and q20: Go maps, without the engine.
// An inner join's final output does not depend on the order rows arrived
// in, so they ignore triggers and event order.

var (
	q13Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "value", Type: arrow.BinaryTypes.String},
	}, nil)
	q20Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "channel", Type: arrow.BinaryTypes.String},
		{Name: "url", Type: arrow.BinaryTypes.String},
		{Name: "bid_dateTime", Type: columnar.Timestamp},
		{Name: "bid_extra", Type: arrow.BinaryTypes.String},
		{Name: "itemName", Type: arrow.BinaryTypes.String},
		{Name: "description", Type: arrow.BinaryTypes.String},
		{Name: "initialBid", Type: arrow.PrimitiveTypes.Int64},
		{Name: "reserve", Type: arrow.PrimitiveTypes.Int64},
		{Name: "auction_dateTime", Type: columnar.Timestamp},
		{Name: "expires", Type: columnar.Timestamp},
		{Name: "seller", Type: arrow.PrimitiveTypes.Int64},
		{Name: "category", Type: arrow.PrimitiveTypes.Int64},
		{Name: "auction_extra", Type: arrow.BinaryTypes.String},
	}, nil)
)

// OracleQ13 evaluates q13 naively over events [0, events): every bid with
// the side input's value for its auction modulo SideInputRows (every bid
// matches: the keys cover all remainders).
func OracleQ13(g *Generator, events int64) Result {
	return overBids(g, events, q13Schema, func(b Bid, out *array.RecordBuilder) bool {
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Int64Builder).Append(b.Price)
		out.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		out.Field(4).(*array.StringBuilder).Append(g.sideInputValue(b.Auction % SideInputRows))
		return true
	})
}

// OracleQ20 evaluates q20 naively over events [0, events): the auctions of
// Q20Category by id, then one row per bid on one of them.
func OracleQ20(g *Generator, events int64) Result {
	auctions := map[int64]Auction{}
	for pos := range events {
		e := g.EventNumber(pos)
		if KindOf(e) != Auctions {
			continue
		}
		if a := g.AuctionAt(e); a.Category == Q20Category {
			auctions[a.ID] = a
		}
	}
	return overBids(g, events, q20Schema, func(b Bid, out *array.RecordBuilder) bool {
		a, ok := auctions[b.Auction]
		if !ok {
			return false
		}
		out.Field(0).(*array.Int64Builder).Append(b.Auction)
		out.Field(1).(*array.Int64Builder).Append(b.Bidder)
		out.Field(2).(*array.Int64Builder).Append(b.Price)
		out.Field(3).(*array.StringBuilder).Append(b.Channel)
		out.Field(4).(*array.StringBuilder).Append(b.URL)
		out.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		out.Field(6).(*array.StringBuilder).Append(b.Extra)
		out.Field(7).(*array.StringBuilder).Append(a.ItemName)
		out.Field(8).(*array.StringBuilder).Append(a.Description)
		out.Field(9).(*array.Int64Builder).Append(a.InitialBid)
		out.Field(10).(*array.Int64Builder).Append(a.Reserve)
		out.Field(11).(*array.TimestampBuilder).Append(arrow.Timestamp(a.DateTime))
		out.Field(12).(*array.TimestampBuilder).Append(arrow.Timestamp(a.Expires))
		out.Field(13).(*array.Int64Builder).Append(a.Seller)
		out.Field(14).(*array.Int64Builder).Append(a.Category)
		out.Field(15).(*array.StringBuilder).Append(a.Extra)
		return true
	})
}
