// Starts kinesalite (npm) on 127.0.0.1 at a port the system picks and
// prints "port N" once it listens. argv[2] is the kinesalite package
// directory. When MILLRACE_KINESIS_CLOCK names a file, Date.now is shifted
// by the milliseconds that file holds (read at every call), so that a test
// can put records "25 hours ago" and then let the server's 24-hour
// retention trim them: kinesalite dates records and trims by Date.now.
'use strict'
const fs = require('fs')
const path = require('path')
const clock = process.env.MILLRACE_KINESIS_CLOCK
if (clock) {
  const realNow = Date.now
  Date.now = function() {
    let off = 0
    try { off = Number(fs.readFileSync(clock, 'utf8')) || 0 } catch (e) { /* no file: no shift */ }
    return realNow() + off
  }
}
const pkg = process.argv[2]

// kinesalite 3.3.3 leaves GetShardIterator AT_TIMESTAMP unanswered when no
// record of the shard arrived at or after the timestamp (the lookup's
// empty result never calls back). Kinesis answers with an iterator that
// yields the records arriving later: the same as LATEST, since the
// timestamp is not in the future. The action is replaced in the require
// cache before kinesalite's index loads it.
const db = require(path.join(pkg, 'db'))
const gsiPath = require.resolve(path.join(pkg, 'actions', 'getShardIterator.js'))
const getShardIterator = require(gsiPath)
require.cache[gsiPath].exports = function(store, data, cb) {
  if (data.ShardIteratorType != 'AT_TIMESTAMP' || data.Timestamp == null) return getShardIterator(store, data, cb)
  let shardIx
  try {
    shardIx = db.resolveShardId(data.ShardId).shardIx
  } catch (e) {
    return getShardIterator(store, data, cb)
  }
  store.getStream(data.StreamName, function(err) {
    if (err) return getShardIterator(store, data, cb)
    let found = false
    store.getStreamDb(data.StreamName)
      .createReadStream({gt: db.shardIxToHex(shardIx), lt: db.shardIxToHex(shardIx + 1)})
      .on('data', function(item) {
        if (item.value.ApproximateArrivalTimestamp >= data.Timestamp) found = true
      })
      .on('error', function(e) { cb(e) })
      .on('end', function() {
        if (found) return getShardIterator(store, data, cb)
        getShardIterator(store, Object.assign({}, data, {ShardIteratorType: 'LATEST', Timestamp: undefined}), cb)
      })
  })
}

// kinesalite throws from a request's 'error' event (its index.js:
// req.on('error', function(err) { throw err })), so a client that went
// away mid-request (the tests SIGKILL the engine at random moments) took
// the whole server down ("Error: aborted", ECONNRESET), and every later
// request was refused. Kinesis shrugs such clients off, and so does this
// server: that error is logged and dropped; any other still ends it.
process.on('uncaughtException', function(err) {
  if (err && (err.code === 'ECONNRESET' || err.message === 'aborted')) {
    console.error('kinesalite: a client went away mid-request: ' + err.message)
    return
  }
  console.error(err && err.stack || err)
  process.exit(1)
})

const kinesalite = require(pkg)
// No CREATING/UPDATING delays: tests wait for ACTIVE anyway, and a
// reshard takes effect at once. shardLimit is the account's shard cap.
const server = kinesalite({createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 1000})
server.listen(0, '127.0.0.1', function() {
  console.log('port ' + server.address().port)
})
