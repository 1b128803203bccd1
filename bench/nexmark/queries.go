package nexmark

import (
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// EurosPerDollar is q1's exchange rate (the reference's 0.908 * price).
const EurosPerDollar = 0.908

// Q0 passes every bid through: auction, bidder, price, dateTime, extra.
func Q0(bids sources.Source) *millrace.Stream {
	return millrace.ReadStream(bids).SelectCols("auction", "bidder", "price", "dateTime", "extra")
}

// Q1 converts every bid's price to euros: the reference's 0.908 * price,
// a double here (Millrace has no decimal type).
func Q1(bids sources.Source) *millrace.Stream {
	return millrace.ReadStream(bids).Select(
		millrace.Col("auction"),
		millrace.Col("bidder"),
		millrace.Lit(EurosPerDollar).Times(millrace.Col("price")).As("price"),
		millrace.Col("dateTime"),
		millrace.Col("extra"),
	)
}

// Q2 keeps the bids on auctions whose id is a multiple of 123: auction,
// price.
func Q2(bids sources.Source) *millrace.Stream {
	return millrace.ReadStream(bids).
		Filter(millrace.Col("auction").Mod(123).Eq(0)).
		SelectCols("auction", "price")
}

// Query is one benchmark query: how to build it and its oracle.
type Query struct {
	// Name is "q0", "q1", …
	Name string
	// Description says what the query computes.
	Description string
	// Build returns the query's stream over sources of generator g.
	Build func(g *Generator) *millrace.Stream
	// Mode is the output mode the query runs in.
	Mode millrace.OutputMode
	// Oracle evaluates the query naively over events [0, events).
	Oracle func(g *Generator, events int64) Result
	// Inputs are the kinds of events the query reads.
	Inputs []Kind
	// ProcessingTime marks a query that reads CurrentTimestamp: Run fixes
	// its clock to Generator.TriggerTime so that its output is
	// deterministic (and its progress events' durations are meaningless).
	ProcessingTime bool
	// Rate, when not 0, is the event-time rate the query runs at when the
	// Config leaves Rate 0 (see Configure): the windowed queries need a
	// rate at which their windows close within the events generated.
	Rate int64
}

// Configure returns cfg with the query's defaults: Rate q.Rate when cfg's
// Rate is 0. Run applies it; build the oracle's generator from the same
// configured Config.
func (q Query) Configure(cfg Config) Config {
	if cfg.Rate == 0 && q.Rate > 0 {
		cfg.Rate = q.Rate
	}
	return cfg
}

// Queries lists the implemented queries, in order.
var Queries = []Query{
	{Name: "q0", Description: "passthrough of bids", Build: func(g *Generator) *millrace.Stream { return Q0(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ0, Inputs: []Kind{Bids}},
	{Name: "q1", Description: "bid price in euros", Build: func(g *Generator) *millrace.Stream { return Q1(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ1, Inputs: []Kind{Bids}},
	{Name: "q2", Description: "bids on auctions that are multiples of 123", Build: func(g *Generator) *millrace.Stream { return Q2(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ2, Inputs: []Kind{Bids}},
	{Name: "q3", Description: "sellers in OR, ID, CA and their auctions in category 10 (stream-stream join)", Build: func(g *Generator) *millrace.Stream { return Q3(g.Source(Persons), g.Source(Auctions)) }, Mode: millrace.Append, Oracle: OracleQ3, Inputs: []Kind{Persons, Auctions}},
	{Name: "q4", Description: "average closing price per category (join + two-level aggregation, Complete mode)", Build: func(g *Generator) *millrace.Stream {
		return Q4(g.Source(Auctions), g.Source(Bids), g.MaxAuctionLength())
	}, Mode: millrace.Complete, Oracle: OracleQ4, Inputs: []Kind{Auctions, Bids}, Rate: ChainedRate},
	{Name: "q5", Description: "hot items: auctions with the most bids per 10 s window sliding by 2 s", Build: func(g *Generator) *millrace.Stream { return Q5(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ5, Inputs: []Kind{Bids}, Rate: ChainedRate},
	{Name: "q7", Description: "highest bid per 10 s tumbling window", Build: func(g *Generator) *millrace.Stream { return Q7(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ7, Inputs: []Kind{Bids}, Rate: ChainedRate},
	{Name: "q5-window", Description: "q5's window stage alone: bids per auction per 10 s window sliding by 2 s", Build: func(g *Generator) *millrace.Stream { return Q5Window(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ5Window, Inputs: []Kind{Bids}, Rate: ChainedRate},
	{Name: "q7-window", Description: "q7's window stage alone: the highest price per 10 s tumbling window", Build: func(g *Generator) *millrace.Stream { return Q7Window(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ7Window, Inputs: []Kind{Bids}, Rate: ChainedRate},
	{Name: "q8", Description: "new users: persons who opened an auction in the 10 s window they joined", Build: func(g *Generator) *millrace.Stream { return Q8(g.Source(Persons), g.Source(Auctions)) }, Mode: millrace.Append, Oracle: OracleQ8, Inputs: []Kind{Persons, Auctions}, Rate: ChainedRate},
	{Name: "q10", Description: "bids with their day and hour:minute (date_format), for a partitioned log", Build: func(g *Generator) *millrace.Stream { return Q10(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ10, Inputs: []Kind{Bids}},
	{Name: "q11", Description: "bids per bidder per session (10 s gap)", Build: func(g *Generator) *millrace.Stream { return Q11(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ11, Inputs: []Kind{Bids}, Rate: ChainedRate},
	{Name: "q12", Description: "bids per bidder in 10 s processing-time windows", Build: func(g *Generator) *millrace.Stream { return Q12(g.Source(Bids)) }, Mode: millrace.Update, Oracle: OracleQ12, Inputs: []Kind{Bids}, ProcessingTime: true},
	{Name: "q13", Description: "bids joined with a static side input on auction % 10000 (stream-static join)", Build: func(g *Generator) *millrace.Stream { return Q13(g.Source(Bids), g.SideInput()) }, Mode: millrace.Append, Oracle: OracleQ13, Inputs: []Kind{Bids}},
	{Name: "q14", Description: "bids of 1M–50M euros with their time of day and the count of 'c' in extra", Build: func(g *Generator) *millrace.Stream { return Q14(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ14, Inputs: []Kind{Bids}},
	{Name: "q15", Description: "bidding statistics per day: bids, distinct bidders and auctions per price rank (Complete mode)", Build: func(g *Generator) *millrace.Stream { return Q15(g.Source(Bids)) }, Mode: millrace.Complete, Oracle: OracleQ15, Inputs: []Kind{Bids}},
	{Name: "q16", Description: "channel statistics per day: q15's counts per channel with the latest minute (Complete mode)", Build: func(g *Generator) *millrace.Stream { return Q16(g.Source(Bids)) }, Mode: millrace.Complete, Oracle: OracleQ16, Inputs: []Kind{Bids}},
	{Name: "q17", Description: "auction statistics per day: bids per price rank, min/max/avg/sum of prices (Complete mode)", Build: func(g *Generator) *millrace.Stream { return Q17(g.Source(Bids)) }, Mode: millrace.Complete, Oracle: OracleQ17, Inputs: []Kind{Bids}},
	{Name: "q20", Description: "bids on auctions of category 10 with the auction's columns (stream-stream join)", Build: func(g *Generator) *millrace.Stream { return Q20(g.Source(Bids), g.Source(Auctions)) }, Mode: millrace.Append, Oracle: OracleQ20, Inputs: []Kind{Bids, Auctions}},
	{Name: "q21", Description: "bids with a channel id (fixed for hot channels, else regexp_extract of the url)", Build: func(g *Generator) *millrace.Stream { return Q21(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ21, Inputs: []Kind{Bids}},
	{Name: "q22", Description: "bids with the first three directories of their url (split_part)", Build: func(g *Generator) *millrace.Stream { return Q22(g.Source(Bids)) }, Mode: millrace.Append, Oracle: OracleQ22, Inputs: []Kind{Bids}},
}

// Lookup returns the query called name.
func Lookup(name string) (Query, bool) {
	for _, q := range Queries {
		if q.Name == name {
			return q, true
		}
	}
	return Query{}, false
}
