"""SQL text of the Nexmark queries over `bids`, `persons` and `auctions`
relations, shared by the DuckDB batch runs (duckdb_nexmark.py). Column
names as bench/nexmark."""

# The export subdirectories (event kinds other than bids) a query reads.
INPUTS = {"q3": ("person", "auction")}

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
    # A batch engine has no processing time: all the events are processed
    # at one instant, so every bid falls into the same 10 s window and q12
    # is a count per bidder (the same work as one window of the stream).
    "q12": """
        SELECT bidder, count(*) AS bid_count,
               time_bucket(INTERVAL 10 SECOND, now()::TIMESTAMP) AS starttime
        FROM bids GROUP BY bidder""",
}
