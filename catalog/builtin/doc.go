// Package builtin registers Millrace's connectors as SQL table formats
// (package catalog): import it for its effect,
//
//	import _ "github.com/millrace/millrace/catalog/builtin"
//
// and CREATE TABLE … USING kafka, kinesis, delta, parquet, json, csv, rate,
// socket or jdbc work.
// Options are Spark's, keys case-insensitive; an option a format does not
// know is an error (Spark ignores it), so that a misspelt key does not go
// unnoticed:
//
//	kafka   kafka.bootstrap.servers (required); subscribe or subscribePattern
//	        to read, topic to write; startingOffsets, maxOffsetsPerTrigger,
//	        minOffsetsPerTrigger, maxTriggerDelay, failOnDataLoss. The schema
//	        is Kafka's (key, value, topic, partition, offset, timestamp,
//	        headers); with a column list (a Millrace extension: Spark's
//	        Kafka source refuses one), each record's value is a JSON document
//	        decoded into those columns, which are the table's. INSERT INTO
//	        writes the value column (string or binary, required) and key
//	        (optional), as Spark's Kafka sink. TLS and SASL with the Kafka
//	        client's names (kafka_security.go): kafka.security.protocol,
//	        kafka.sasl.mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512),
//	        kafka.sasl.jaas.config (Plain/ScramLoginModule with username and
//	        password), kafka.ssl.truststore.location/.certificates and
//	        kafka.ssl.keystore.location/.certificate.chain/.key, PEM only.
//	        Secret values never appear in errors (sql.SecretOption).
//	kinesis streamName (required); startingPosition (TRIM_HORIZON, LATEST,
//	        AT_TIMESTAMP), startingTimestamp (RFC 3339), maxRecordsPerTrigger,
//	        failOnDataLoss, region, endpointUrl (a Kinesis-API server).
//	        Credentials from the standard AWS chain. The schema is the
//	        Kinesis source's; read only.
//	delta   LOCATION or path (required); startingVersion, skipChangeCommits.
//	        The column list is optional: the table's own schema is used.
//	        PARTITIONED BY applies when INSERT INTO creates the table.
//	parquet LOCATION or path (a directory or s3://bucket/prefix, required);
//	        maxFilesPerTrigger, maxFileAge (Spark's time string: 7d, 12h,
//	        30m), pathGlobFilter. Read only; a column list is required.
//	json    as parquet, and written as JSON lines by INSERT INTO.
//	csv     as json; header, sep (or delimiter).
//	rate    rowsPerSecond, rampUpTime, numPartitions; Spark's rate schema
//	        (timestamp, value); read only.
//	socket  host, port (required), includeTimestamp; Spark's socket schema
//	        (value, timestamp); read only, for tests and demos: it cannot
//	        replay (package sources/socket).
//	jdbc    url (jdbc:postgresql://host:port/database, required), dbtable
//	        (required), user, password, batchsize; keyColumns (a Millrace
//	        extension, comma separated: the upsert keys of output mode
//	        update); createTableIfMissing (default true, as Spark's JDBC
//	        writer creates a missing table). Written only (INSERT INTO),
//	        exactly once, by package sinks/postgres; PostgreSQL is the one
//	        JDBC database.
package builtin

import "github.com/millrace/millrace/catalog"

func init() {
	catalog.Register("kafka", openKafka)
	catalog.Register("delta", openDelta)
	catalog.Register("parquet", openFiles)
	catalog.Register("json", openFiles)
	catalog.Register("csv", openFiles)
	catalog.Register("rate", openRate)
	catalog.Register("socket", openSocket)
	catalog.Register("kinesis", openKinesis)
	catalog.Register("jdbc", openJDBC)
}
