package nexmark

import "fmt"

// This file generates events one at a time as Go structs: the simple code
// path the oracle uses, independent of the columnar fill of generate.go
// (both follow the rules of model.go).

// Bid is one bid event.
type Bid struct {
	Auction, Bidder, Price int64
	Channel, URL           string
	DateTime               int64 // µs since the epoch
	Extra                  string
}

// Auction is one auction event.
type Auction struct {
	ID                    int64
	ItemName, Description string
	InitialBid, Reserve   int64
	DateTime, Expires     int64 // µs since the epoch
	Seller, Category      int64
	Extra                 string
}

// Person is one person event.
type Person struct {
	ID                                          int64
	Name, EmailAddress, CreditCard, City, State string
	DateTime                                    int64 // µs since the epoch
	Extra                                       string
}

// EventNumber is the event number at position p.
func (g *Generator) EventNumber(p int64) int64 { return eventAt(p, g.cfg.OutOfOrderGroup) }

// KindOf is the kind of event number e.
func KindOf(e int64) Kind { return kindOf(e) }

func (g *Generator) poolString(pool []byte, off int32, n int) string {
	return string(pool[off : int(off)+n])
}

// BidAt returns event number e, which must be a bid.
func (g *Generator) BidAt(e int64) Bid {
	t := g.tab()
	h0, h1, h2, h3 := g.draw(e, 0), g.draw(e, 1), g.draw(e, 2), g.draw(e, 3)
	var b Bid
	if h1&1 == 1 {
		b.Auction = hotAuction(e)
	} else {
		b.Auction = nextBase0AuctionID(e, lo32(h0))
	}
	b.Auction += FirstAuctionID
	if (h1>>1)&3 != 0 {
		b.Bidder = hotBidder(e)
	} else {
		b.Bidder = nextBase0PersonID(e, hi32(h0))
	}
	b.Bidder += FirstPersonID
	b.Price = price(h1)
	c := chooseChannel(h1>>3, lo32(h2))
	b.Channel = string(t.chanData[t.chanOff[c]:t.chanOff[c+1]])
	b.URL = string(t.urlData[t.urlOff[c]:t.urlOff[c+1]])
	b.DateTime = g.timestamp(e)
	b.Extra = g.poolString(t.letters, int32(below(hi32(h2), poolBase)), extraLen(32, avgBidByteSize, lo32(h3)))
	return b
}

// AuctionAt returns event number e, which must be an auction.
func (g *Generator) AuctionAt(e int64) Auction {
	t := g.tab()
	h0, h1, h2, h3 := g.draw(e, 0), g.draw(e, 1), g.draw(e, 2), g.draw(e, 3)
	h4, h5, h6 := g.draw(e, 4), g.draw(e, 5), g.draw(e, 6)
	var a Auction
	a.ID = lastBase0AuctionID(e) + FirstAuctionID
	if h1&3 != 0 {
		a.Seller = hotSeller(e)
	} else {
		a.Seller = nextBase0PersonID(e, lo32(h0))
	}
	a.Seller += FirstPersonID
	a.Category = FirstCategoryID + below(hi32(h0), NumCategories)
	a.InitialBid = price(h1)
	a.DateTime = g.timestamp(e)
	a.Expires = a.DateTime + g.auctionLength(e, h3)
	off, n := t.nextString(h4, 20)
	a.ItemName = g.poolString(t.text, off, int(n))
	off, n = t.nextString(h5, 100)
	a.Description = g.poolString(t.text, off, int(n))
	a.Reserve = a.InitialBid + price(h2)
	cur := 8 + len(a.ItemName) + len(a.Description) + 8*5
	a.Extra = g.poolString(t.letters, int32(below(hi32(h6), poolBase)), extraLen(cur, avgAuctionByteSize, lo32(h6)))
	return a
}

// PersonAt returns event number e, which must be a person.
func (g *Generator) PersonAt(e int64) Person {
	t := g.tab()
	h0, h1, h2, h3 := g.draw(e, 0), g.draw(e, 1), g.draw(e, 2), g.draw(e, 3)
	h4, h5, h6 := g.draw(e, 4), g.draw(e, 5), g.draw(e, 6)
	var p Person
	p.ID = lastBase0PersonID(e) + FirstPersonID
	p.Name = firstNames[below(lo32(h0), int64(len(firstNames)))] + " " + lastNames[below(hi32(h0), int64(len(lastNames)))]
	off, n := t.nextString(h1, 7)
	user := g.poolString(t.text, off, int(n))
	off, n = t.nextString(h2, 5)
	p.EmailAddress = user + "@" + g.poolString(t.text, off, int(n)) + ".com"
	p.CreditCard = fmt.Sprintf("%04d %04d %04d %04d", below(lo32(h3), 10000), below(hi32(h3), 10000), below(lo32(h4), 10000), below(hi32(h4), 10000))
	p.City = usCities[below(lo32(h5), int64(len(usCities)))]
	p.State = usStates[below(hi32(h5), int64(len(usStates)))]
	p.DateTime = g.timestamp(e)
	cur := 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State)
	p.Extra = g.poolString(t.letters, int32(below(hi32(h6), poolBase)), extraLen(cur, avgPersonByteSize, lo32(h6)))
	return p
}

// Count returns the number of events of kind k among positions
// [0, events): complete out-of-order groups hold the same event numbers as
// their positions, so only the last, partial group is counted one by one.
func (g *Generator) Count(k Kind, events int64) int64 {
	gs := g.cfg.OutOfOrderGroup
	full := events / gs * gs
	n := countInOrder(k, full)
	for p := full; p < events; p++ {
		if kindOf(eventAt(p, gs)) == k {
			n++
		}
	}
	return n
}

// countInOrder counts the events of kind k among event numbers [0, n).
func countInOrder(k Kind, n int64) int64 {
	lo, hi := int64(0), int64(personProportion) // kind's residues [lo, hi)
	switch k {
	case Auctions:
		lo, hi = personProportion, personProportion+auctionProportion
	case Bids:
		lo, hi = personProportion+auctionProportion, ProportionDenominator
	}
	c := n / ProportionDenominator * (hi - lo)
	r := n % ProportionDenominator
	c += max(0, min(r, hi)-lo)
	return c
}
