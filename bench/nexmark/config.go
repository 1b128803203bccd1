package nexmark

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// Reference constants (GeneratorConfig of the reference generator).
const (
	// ProportionDenominator is the length of the cycle of event types.
	ProportionDenominator = 50
	personProportion      = 1
	auctionProportion     = 3
	// FirstPersonID is the id of the first person.
	FirstPersonID = 1000
	// FirstAuctionID is the id of the first auction.
	FirstAuctionID = 1000
	// FirstCategoryID is the first of the NumCategories category ids.
	FirstCategoryID = 10
	// NumCategories is the number of auction categories.
	NumCategories = 5

	numActivePeople     = 1000
	numInFlightAuctions = 100
	personIDLead        = 10
	auctionIDLead       = 10
	hotAuctionRatio     = 2 // P(hot auction) = 1 - 1/2
	hotBiddersRatio     = 4 // P(hot bidder) = 1 - 1/4
	hotSellersRatio     = 4 // P(hot seller) = 1 - 1/4
	hotBatch            = 100
	hotChannelsRatio    = 2
	channelsNumber      = 10_000

	avgPersonByteSize  = 200
	avgAuctionByteSize = 500
	avgBidByteSize     = 100
)

// Kind selects the events a source emits.
type Kind int

// Event kinds.
const (
	Bids Kind = iota
	Auctions
	Persons
)

func (k Kind) String() string {
	switch k {
	case Bids:
		return "bid"
	case Auctions:
		return "auction"
	case Persons:
		return "person"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Config configures the generator. Zero fields take the defaults shown.
type Config struct {
	// Events is the number of event positions (0: unbounded).
	Events int64
	// Rate is the event-time rate in events per second: event e's time is
	// BaseTime + e·1e6/Rate µs (default 10,000,000, the reference's first
	// harness).
	Rate int64
	// OutOfOrderGroup is G: positions are permuted within groups of G
	// events (default 1: in order).
	OutOfOrderGroup int64
	// NumPartitions splits each batch (default GOMAXPROCS).
	NumPartitions int
	// MaxEventsPerTrigger bounds the positions of one trigger (0: none).
	MaxEventsPerTrigger int64
	// Seed seeds every random draw.
	Seed int64
	// BaseTime is the event time of event 0 (default 2026-01-01T00:00:00Z).
	BaseTime time.Time
	// TriggerInterval is the simulated processing time between two
	// triggers of a processing-time query (q12): Run fixes the query's
	// clock so that trigger k reads BaseTime + k·TriggerInterval
	// (default 1 s; see Generator.TriggerTime).
	TriggerInterval time.Duration
}

// DefaultBaseTime is the default BaseTime.
var DefaultBaseTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// WithDefaults returns c with its zero fields set to the defaults.
func (c Config) WithDefaults() Config {
	if c.Rate <= 0 {
		c.Rate = 10_000_000
	}
	if c.OutOfOrderGroup <= 0 {
		c.OutOfOrderGroup = 1
	}
	if c.NumPartitions <= 0 {
		c.NumPartitions = runtime.GOMAXPROCS(0)
	}
	if c.BaseTime.IsZero() {
		c.BaseTime = DefaultBaseTime
	}
	if c.TriggerInterval <= 0 {
		c.TriggerInterval = time.Second
	}
	return c
}

// Schemas of the three event kinds (field names as in the reference).
var (
	BidSchema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "channel", Type: arrow.BinaryTypes.String},
		{Name: "url", Type: arrow.BinaryTypes.String},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	AuctionSchema = arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "itemName", Type: arrow.BinaryTypes.String},
		{Name: "description", Type: arrow.BinaryTypes.String},
		{Name: "initialBid", Type: arrow.PrimitiveTypes.Int64},
		{Name: "reserve", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "expires", Type: columnar.Timestamp},
		{Name: "seller", Type: arrow.PrimitiveTypes.Int64},
		{Name: "category", Type: arrow.PrimitiveTypes.Int64},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	PersonSchema = arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "emailAddress", Type: arrow.BinaryTypes.String},
		{Name: "creditCard", Type: arrow.BinaryTypes.String},
		{Name: "city", Type: arrow.BinaryTypes.String},
		{Name: "state", Type: arrow.BinaryTypes.String},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
)

// Schema returns the schema of kind k.
func (k Kind) Schema() *arrow.Schema {
	switch k {
	case Auctions:
		return AuctionSchema
	case Persons:
		return PersonSchema
	}
	return BidSchema
}

// Generator computes events of one Config. It is safe for concurrent use;
// its tables (string pools, channel URLs) are built once per seed.
type Generator struct {
	cfg    Config
	seedK  uint64
	baseUs int64

	once   sync.Once
	tables *tables
}

// NewGenerator returns the generator of cfg (defaults applied).
func NewGenerator(cfg Config) *Generator {
	cfg = cfg.WithDefaults()
	return &Generator{cfg: cfg, seedK: mix(uint64(cfg.Seed) ^ 0x6E65786D61726B), baseUs: cfg.BaseTime.UnixMicro()}
}

// Config returns the generator's configuration, defaults applied.
func (g *Generator) Config() Config { return g.cfg }

func (g *Generator) tab() *tables {
	g.once.Do(func() { g.tables = buildTables(g.seedK) })
	return g.tables
}
