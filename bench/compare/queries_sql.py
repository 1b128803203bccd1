"""SQL text of the Nexmark queries over `bids`, `persons` and `auctions`
relations, shared by the DuckDB batch runs (duckdb_nexmark.py). Column
names as bench/nexmark."""

# The event kinds a query reads ("bid" is the export directory itself,
# the others its person/ and auction/ subdirectories); bids alone when
# absent.
INPUTS = {"q3": ("person", "auction"), "q4": ("auction", "bid"), "q8": ("person", "auction")}

# Millrace's WatermarkDelay, window sizes and q5's slide, in microseconds
# (the exported timestamps' unit): the windowed queries compute in integer
# µs (epoch_us) so that window bounds are those of bench/nexmark exactly.
DELAY_US = 4_000_000
SIZE_US = 10_000_000
SLIDE_US = 2_000_000


def _floor(x, unit):
    """SQL: x (µs) floored to a multiple of unit (x may be negative)."""
    return f"({x} - ((({x}) % {unit}) + {unit}) % {unit})"


def _closed_by(*max_exprs):
    """SQL: the final watermark (µs) of sources whose latest event times are
    the given scalar subqueries: min over them − WatermarkDelay, floored to
    the millisecond as Millrace keeps it (bench/nexmark's closedBy)."""
    lo = max_exprs[0] if len(max_exprs) == 1 else f"least({', '.join(max_exprs)})"
    return _floor(f"{lo} - {DELAY_US}", 1000)

# Each query's output rows; the runner wraps them in an aggregate that reads
# every output value (count + sum of a hash of the row), DuckDB's blackhole.
QUERIES = {
    "q0": "SELECT auction, bidder, price, dateTime, extra FROM bids",
    "q1": "SELECT auction, bidder, price * 0.908 AS price, dateTime, extra FROM bids",
    "q2": "SELECT auction, price FROM bids WHERE auction % 123 = 0",
    # Sellers in OR, ID, CA and their auctions in category 10: a join
    # (DuckDB sees all rows at once; the streams' inner join has the same
    # final output).
    "q3": """
        SELECT P.name, P.city, P.state, A.id
        FROM auctions A INNER JOIN persons P ON A.seller = P.id
        WHERE A.category = 10 AND P.state IN ('OR', 'ID', 'CA')""",
    # Sessions per bidder, 10 s gap, closed by the final watermark
    # max(dateTime) - 4 s (the streaming engines' Append output).
    "q11": """
        WITH s AS (
          SELECT bidder, dateTime,
                 CASE WHEN dateTime - lag(dateTime) OVER (PARTITION BY bidder ORDER BY dateTime)
                           < INTERVAL 10 SECOND THEN 0 ELSE 1 END AS new_session
          FROM bids),
        g AS (
          SELECT bidder, dateTime,
                 sum(new_session) OVER (PARTITION BY bidder ORDER BY dateTime
                                        ROWS UNBOUNDED PRECEDING) AS session
          FROM s)
        SELECT bidder, count(*) AS bid_count, min(dateTime) AS starttime,
               max(dateTime) + INTERVAL 10 SECOND AS endtime
        FROM g GROUP BY bidder, session
        HAVING max(dateTime) + INTERVAL 10 SECOND
               <= (SELECT max(dateTime) - INTERVAL 4 SECOND FROM bids)""",
    # Average closing price per category over the auctions the final
    # watermark closed (expires <= min of the latest auction dateTime,
    # auction expires and bid dateTime, − 4 s): an auction's closing price
    # is the maximum price of its bids in [dateTime, expires]; auctions
    # without such a bid have none (inner join). Millrace's last Complete
    # table.
    "q4": f"""
        WITH wm AS (
          SELECT {_closed_by("(SELECT epoch_us(max(dateTime)) FROM auctions)",
                             "(SELECT epoch_us(max(expires)) FROM auctions)",
                             "(SELECT epoch_us(max(dateTime)) FROM bids)")} AS x),
        closing AS (
          SELECT A.id, A.category, max(B.price) AS final
          FROM auctions A JOIN bids B
            ON A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
          WHERE epoch_us(A.expires) <= (SELECT x FROM wm)
          GROUP BY A.id, A.category)
        SELECT category, avg(final) AS avg_price FROM closing GROUP BY category""",
    # Hot items: bid counts per (10 s window sliding by 2 s, auction), the
    # auctions whose count is their window's maximum, windows closed by
    # the final watermark. Each bid lies in the SIZE/SLIDE windows starting
    # at floor(t, SLIDE) − k·SLIDE.
    "q5": f"""
        WITH wm AS (SELECT {_closed_by("(SELECT epoch_us(max(dateTime)) FROM bids)")} AS x),
        counts AS (
          SELECT {_floor("epoch_us(dateTime)", SLIDE_US)} - k * {SLIDE_US} AS w, auction, count(*) AS num
          FROM bids, range({SIZE_US // SLIDE_US}) r(k)
          GROUP BY ALL),
        closed AS (SELECT * FROM counts WHERE w + {SIZE_US} <= (SELECT x FROM wm)),
        maxes AS (SELECT w, max(num) AS max_num FROM closed GROUP BY w)
        SELECT C.auction, C.num, make_timestamp(C.w) AS starttime,
               make_timestamp(C.w + {SIZE_US}) AS endtime
        FROM closed C JOIN maxes M ON C.w = M.w AND C.num = M.max_num""",
    # q5's window stage alone: bid counts per (sliding window, auction),
    # windows closed by the final watermark.
    "q5-window": f"""
        WITH wm AS (SELECT {_closed_by("(SELECT epoch_us(max(dateTime)) FROM bids)")} AS x),
        counts AS (
          SELECT {_floor("epoch_us(dateTime)", SLIDE_US)} - k * {SLIDE_US} AS w, auction, count(*) AS num
          FROM bids, range({SIZE_US // SLIDE_US}) r(k)
          GROUP BY ALL)
        SELECT make_timestamp(w) AS starttime, make_timestamp(w + {SIZE_US}) AS endtime, auction, num
        FROM counts WHERE w + {SIZE_US} <= (SELECT x FROM wm)""",
    # q7's window stage alone: the highest price per tumbling window,
    # windows closed by the final watermark.
    "q7-window": f"""
        WITH wm AS (SELECT {_closed_by("(SELECT epoch_us(max(dateTime)) FROM bids)")} AS x),
        maxes AS (
          SELECT {_floor("epoch_us(dateTime)", SIZE_US)} AS w, max(price) AS max_price
          FROM bids GROUP BY ALL)
        SELECT make_timestamp(w) AS starttime, make_timestamp(w + {SIZE_US}) AS endtime, max_price
        FROM maxes WHERE w + {SIZE_US} <= (SELECT x FROM wm)""",
    # Highest bid: the bids whose price is their 10 s tumbling window's
    # maximum, windows closed by the final watermark.
    "q7": f"""
        WITH wm AS (SELECT {_closed_by("(SELECT epoch_us(max(dateTime)) FROM bids)")} AS x),
        b AS (
          SELECT auction, price, bidder, dateTime, extra,
                 {_floor("epoch_us(dateTime)", SIZE_US)} AS w
          FROM bids),
        closed AS (SELECT * FROM b WHERE w + {SIZE_US} <= (SELECT x FROM wm)),
        maxes AS (SELECT w, max(price) AS max_price FROM closed GROUP BY w)
        SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra
        FROM closed B JOIN maxes M ON B.w = M.w AND B.price = M.max_price""",
    # New users: persons (distinct per 10 s tumbling window, id, name)
    # who sold (distinct per window, seller) in the window they joined,
    # windows closed by the final watermark (the smaller of the persons'
    # and the auctions').
    "q8": f"""
        WITH wm AS (
          SELECT {_closed_by("(SELECT epoch_us(max(dateTime)) FROM persons)",
                             "(SELECT epoch_us(max(dateTime)) FROM auctions)")} AS x),
        p AS (SELECT DISTINCT {_floor("epoch_us(dateTime)", SIZE_US)} AS w, id, name FROM persons),
        a AS (SELECT DISTINCT {_floor("epoch_us(dateTime)", SIZE_US)} AS w, seller FROM auctions)
        SELECT p.id, p.name, make_timestamp(p.w) AS starttime,
               make_timestamp(p.w + {SIZE_US}) AS endtime
        FROM p JOIN a ON p.w = a.w AND p.id = a.seller
        WHERE p.w + {SIZE_US} <= (SELECT x FROM wm)""",
    # A batch engine has no processing time: all the events are processed
    # at one instant, so every bid falls into the same 10 s window and q12
    # is a count per bidder (the same work as one window of the stream).
    "q12": """
        SELECT bidder, count(*) AS bid_count,
               time_bucket(INTERVAL 10 SECOND, now()::TIMESTAMP) AS starttime
        FROM bids GROUP BY bidder""",
}
