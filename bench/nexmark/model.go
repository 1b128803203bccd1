package nexmark

import (
	"math"
	"math/bits"
	"strconv"
)

// This file holds the reference generator's rules as pure functions of an
// event number, shared by the columnar generator (generate.go) and the row
// generator of the oracle (events.go).

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// draw is random field f of event e: splitmix64 of (seed, e, f).
func (g *Generator) draw(e int64, f uint64) uint64 {
	return mix(g.seedK + uint64(e)*0x9E3779B97F4A7C15 + f*0xD1B54A32D192ED03)
}

// below maps 32 random bits to [0, n) (Lemire's multiply-shift; n < 2^32).
func below(x uint32, n int64) int64 { return int64((uint64(x) * uint64(n)) >> 32) }

// below64 maps 64 random bits to [0, n).
func below64(x uint64, n int64) int64 {
	hi, _ := bits.Mul64(x, uint64(n))
	return int64(hi)
}

func lo32(h uint64) uint32 { return uint32(h) }
func hi32(h uint64) uint32 { return uint32(h >> 32) }

// unit maps the top 53 bits of h to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) * 0x1p-53 }

// price is the reference's nextPrice: round(10^(U*6) * 100), log-uniform
// in [100, 10^8].
//
// exp(U·6·ln10) is split as exp(a)·exp(b): a from the top 12 bits of U
// (a table), b < 6·ln10/4096 from the rest (a degree-5 polynomial, relative
// error below 1e-15), the accuracy of math.Exp at a fraction of its cost.
func price(h uint64) int64 {
	k := h >> 11
	b := float64(k&(1<<41-1)) * (0x1p-53 * 6 * math.Ln10)
	e := 1 + b*(1+b*(1.0/2+b*(1.0/6+b*(1.0/24+b*(1.0/120)))))
	// x is in [100, 1e8]: x+0.5 is exact there, so truncating it is
	// math.Round (half away from zero) without its bit fiddling.
	return int64(priceTable[k>>41]*e + 0.5)
}

// priceTable[i] is 100·exp(i/4096·6·ln10).
var priceTable = func() (t [4096]float64) {
	for i := range t {
		t[i] = 100 * math.Exp(float64(i)/4096*6*math.Ln10)
	}
	return t
}()

// eventAt is the event number at position p for out-of-order group size gs.
func eventAt(p, gs int64) int64 {
	if gs <= 1 {
		return p
	}
	return (p/gs)*gs + (p*953)%gs
}

// timestamp is event e's time in µs since the epoch.
func (g *Generator) timestamp(e int64) int64 {
	hi, lo := bits.Mul64(uint64(e), 1_000_000)
	q, _ := bits.Div64(hi, lo, uint64(g.cfg.Rate))
	return g.baseUs + int64(q)
}

// kindOf is the kind of event e.
func kindOf(e int64) Kind {
	switch r := e % ProportionDenominator; {
	case r < personProportion:
		return Persons
	case r < personProportion+auctionProportion:
		return Auctions
	}
	return Bids
}

// lastBase0PersonID is the base-0 id of the last person created at or
// before event e.
func lastBase0PersonID(e int64) int64 {
	epoch, off := e/ProportionDenominator, e%ProportionDenominator
	if off >= personProportion {
		off = personProportion - 1
	}
	return epoch*personProportion + off
}

// lastBase0AuctionID is the base-0 id of the last auction created at or
// before event e.
func lastBase0AuctionID(e int64) int64 {
	epoch, off := e/ProportionDenominator, e%ProportionDenominator
	switch {
	case off < personProportion:
		epoch--
		off = auctionProportion - 1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// nextBase0PersonID picks an active person (or one of a few ahead).
func nextBase0PersonID(e int64, r uint32) int64 {
	num := lastBase0PersonID(e) + 1
	active := min(num, numActivePeople)
	return num - active + below(r, active+personIDLead)
}

// nextBase0AuctionID picks an auction likely in flight (or a few ahead).
func nextBase0AuctionID(e int64, r uint32) int64 {
	maxA := lastBase0AuctionID(e)
	minA := max(maxA-numInFlightAuctions, 0)
	return minA + below(r, maxA-minA+1+auctionIDLead)
}

// hotAuction is the hot auction (base 0) at event e.
func hotAuction(e int64) int64 { return (lastBase0AuctionID(e) / hotBatch) * hotBatch }

// hotBidder is the hot bidder (base 0) at event e.
func hotBidder(e int64) int64 { return (lastBase0PersonID(e)/hotBatch)*hotBatch + 1 }

// hotSeller is the hot seller (base 0) at event e.
func hotSeller(e int64) int64 { return (lastBase0PersonID(e) / hotBatch) * hotBatch }

// auctionLength is the reference's nextAuctionLength in µs: uniform in
// [1, 2·horizon], horizon the time until the auction numInFlightAuctions
// ahead is created.
func (g *Generator) auctionLength(e int64, h uint64) int64 {
	const ahead = numInFlightAuctions * ProportionDenominator / auctionProportion
	horizon := g.timestamp(e+ahead) - g.timestamp(e)
	return 1 + below64(h, max(horizon*2, 1))
}

// extraLen is the reference's nextExtra length: the remainder to the
// average size ±20 %.
func extraLen(current, avg int, r uint32) int {
	if current > avg {
		return 0
	}
	d := avg - current
	delta := int(math.Floor(float64(d)*0.2 + 0.5))
	if delta == 0 {
		return d
	}
	return d - delta + int(below(r, int64(2*delta)))
}

// Fixed lists of the reference generator.
var (
	usStates    = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	usCities    = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	firstNames  = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	lastNames   = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	hotChannels = []string{"Google", "Facebook", "Baidu", "Apple"}
)

const (
	// poolBase is the range of pool offsets a string may start at; the
	// pools are longer by poolTail so any string fits.
	poolBase = 1 << 16
	poolTail = 1024
	// maxChannelLen and maxURLLen bound the channel and url strings (the
	// block sizes gather copies).
	maxChannelLen = 16
	maxURLLen     = 96
)

// tables are the per-seed strings: pools of random text and the channels.
type tables struct {
	letters []byte // a–z
	text    []byte // a–z and ' ' with probability 1/13
	// channels and urls indexed by channel choice: 0–3 the hot channels,
	// 4+i "channel-i".
	chanData, urlData []byte
	chanOff, urlOff   []int32
}

// chooseChannel is the reference's channel choice as an index into the
// tables: hot with probability 1/2.
func chooseChannel(hotBits uint64, r uint32) int {
	if hotBits&1 == 1 {
		return int(hotBits>>1) & 3
	}
	return len(hotChannels) + int(below(r, channelsNumber))
}

func buildTables(seedK uint64) *tables {
	state := seedK ^ 0x7461626C6573
	next := func() uint64 { state += 0x9E3779B97F4A7C15; return mix(state) }
	t := &tables{letters: make([]byte, poolBase+poolTail), text: make([]byte, poolBase+poolTail)}
	for i := range t.letters {
		h := next()
		t.letters[i] = 'a' + byte(below(lo32(h), 26))
		if below(hi32(h), 13) == 0 {
			t.text[i] = ' '
		} else {
			t.text[i] = 'a' + byte(below(hi32(h)^lo32(h), 26))
		}
	}
	// nextString(random, 5, '_'): 3 or 4 characters, '_' with p 1/13.
	part := func(b []byte) []byte {
		n := 3 + int(next()&1)
		for range n {
			h := next()
			if below(lo32(h), 13) == 0 {
				b = append(b, '_')
			} else {
				b = append(b, 'a'+byte(below(hi32(h), 26)))
			}
		}
		return b
	}
	baseURL := func(b []byte) []byte {
		b = append(b, "https://www.nexmark.com/"...)
		b = part(b)
		b = append(b, '/')
		b = part(b)
		b = append(b, '/')
		b = part(b)
		return append(b, "/item.htm?query=1"...)
	}
	t.chanOff = append(t.chanOff, 0)
	t.urlOff = append(t.urlOff, 0)
	for i := range len(hotChannels) + channelsNumber {
		if i < len(hotChannels) {
			t.chanData = append(t.chanData, hotChannels[i]...)
			t.urlData = baseURL(t.urlData)
		} else {
			c := i - len(hotChannels)
			t.chanData = append(t.chanData, "channel-"...)
			t.chanData = strconv.AppendInt(t.chanData, int64(c), 10)
			t.urlData = baseURL(t.urlData)
			if next()&1 == 1 {
				t.urlData = append(t.urlData, "&channel_id="...)
				r := int64(int32(bits.Reverse32(uint32(c))))
				if r < 0 && r != math.MinInt32 { // Java's Math.abs(MIN_VALUE) stays negative
					r = -r
				}
				t.urlData = strconv.AppendInt(t.urlData, r, 10)
			}
		}
		t.chanOff = append(t.chanOff, int32(len(t.chanData)))
		t.urlOff = append(t.urlOff, int32(len(t.urlData)))
		if len(t.chanData)-int(t.chanOff[i]) > maxChannelLen || len(t.urlData)-int(t.urlOff[i]) > maxURLLen {
			panic("nexmark: channel or url longer than the copy chunk") // a bug in this file, not an input error
		}
	}
	// Slack so that fixed-size block copies from any start stay in bounds.
	t.chanData = append(t.chanData, make([]byte, 128)...)
	t.urlData = append(t.urlData, make([]byte, 128)...)
	return t
}

// nextString is the reference's nextString(maxLength) as a span of the
// text pool: 3 + nextInt(maxLength−3) characters, then trimmed of spaces.
func (t *tables) nextString(h uint64, maxLength int64) (off, n int32) {
	n = int32(3 + below(lo32(h), maxLength-3))
	off = int32(below(hi32(h), poolBase))
	for n > 0 && t.text[off] == ' ' {
		off++
		n--
	}
	for n > 0 && t.text[off+n-1] == ' ' {
		n--
	}
	return off, n
}
