package nexmark

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// Enrichment joins of the suite's later queries: q13 (bids joined with a
// static side input) and q20 (bids joined with their auctions).

// SideInputRows is the number of rows of q13's side input: the suite reads
// a file of 10,000 lines "key,value".
const SideInputRows = 10_000

// sideInputField is the random field the side input's values are drawn
// from (any number the generator's events do not use).
const sideInputField = 0x5_1de

var sideInputSchema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.PrimitiveTypes.Int64},
	{Name: "value", Type: arrow.BinaryTypes.String},
}, nil)

// sideInputValue is the value of key in g's side input: a number drawn
// from the generator's seed, so that another seed gives another table.
func (g *Generator) sideInputValue(key int64) string {
	return strconv.FormatUint(g.draw(key, sideInputField)%1_000_000_000, 10)
}

// SideInput returns q13's side input, built from g's seed: keys 0 to
// SideInputRows−1, each with a value (sideInputValue). It is a static
// table (the view side_input in Session, read with millrace.ReadTable).
func (g *Generator) SideInput() sources.Table {
	b := array.NewRecordBuilder(memory.NewGoAllocator(), sideInputSchema)
	defer b.Release()
	keys, values := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.StringBuilder)
	for k := range int64(SideInputRows) {
		keys.Append(k)
		values.Append(g.sideInputValue(k))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	t, err := memsrc.NewTable(sideInputSchema, rec)
	if err != nil {
		// NewTable fails only on a record of another schema
		panic(fmt.Sprintf("nexmark side input: %v (a bug: the record is built from the schema)", err))
	}
	return t
}

// Q13 is the suite's "bounded side input join": every bid with the value
// of the side input row whose key is its auction modulo SideInputRows
// (Spark's stream-static inner join; the suite's lookup join FOR
// SYSTEM_TIME AS OF PROCTIME() reads the same table, which never changes).
// Output columns: auction, bidder, price, dateTime, value.
func Q13(bids sources.Source, side sources.Table) *millrace.Stream {
	col := millrace.Col
	b := millrace.ReadStream(bids).Select(col("auction"), col("bidder"), col("price"), col("dateTime"),
		col("auction").Mod(SideInputRows).As("side_key"))
	return b.Join(millrace.ReadTable(side), col("side_key").Eq(col("key")), millrace.Inner).
		SelectCols("auction", "bidder", "price", "dateTime", "value")
}

// Q20Category is the auction category q20 keeps.
const Q20Category = 10

// Q20 is the suite's "expand bid with auction": every bid on an auction of
// category 10 with the auction's columns, a stream-stream inner join
// without a time range (as q3: both sides are join state for the life of
// the query). The clashing columns take the suite's sink names. Output
// columns: auction, bidder, price, channel, url, bid_dateTime, bid_extra,
// itemName, description, initialBid, reserve, auction_dateTime, expires,
// seller, category, auction_extra.
func Q20(bids, auctions sources.Source) *millrace.Stream {
	col := millrace.Col
	b := millrace.ReadStream(bids).Select(col("auction"), col("bidder"), col("price"), col("channel"), col("url"),
		col("dateTime").As("bid_dateTime"), col("extra").As("bid_extra"))
	a := millrace.ReadStream(auctions).
		Filter(col("category").Eq(int64(Q20Category))).
		Select(col("id"), col("itemName"), col("description"), col("initialBid"), col("reserve"),
			col("dateTime").As("auction_dateTime"), col("expires"), col("seller"), col("category"),
			col("extra").As("auction_extra"))
	return b.Join(a, col("auction").Eq(col("id")), millrace.Inner).
		SelectCols("auction", "bidder", "price", "channel", "url", "bid_dateTime", "bid_extra",
			"itemName", "description", "initialBid", "reserve", "auction_dateTime", "expires",
			"seller", "category", "auction_extra")
}
