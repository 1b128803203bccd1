package lake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
)

// Protocol is the protocol action: the reader and writer versions (and, for
// version 3/7, the table features) a client must implement.
type Protocol struct {
	MinReaderVersion int      `json:"minReaderVersion"`
	MinWriterVersion int      `json:"minWriterVersion"`
	ReaderFeatures   []string `json:"readerFeatures,omitempty"`
	WriterFeatures   []string `json:"writerFeatures,omitempty"`
}

// Format names the data file format of a table (always parquet).
type Format struct {
	Provider string    `json:"provider"`
	Options  StringMap `json:"options"`
}

// Metadata is the metaData action: table id, schema and partitioning.
type Metadata struct {
	ID               string    `json:"id"`
	Name             string    `json:"name,omitempty"`
	Description      string    `json:"description,omitempty"`
	Format           Format    `json:"format"`
	SchemaString     string    `json:"schemaString"`
	PartitionColumns []string  `json:"partitionColumns"`
	Configuration    StringMap `json:"configuration"`
	CreatedTime      *int64    `json:"createdTime,omitempty"`
}

// DeletionVector is the descriptor of a deletion vector attached to a data
// file: where the set of its deleted rows is stored (dv.go).
type DeletionVector struct {
	StorageType    string `json:"storageType"`
	PathOrInlineDv string `json:"pathOrInlineDv"`
	Offset         *int32 `json:"offset,omitempty"`
	SizeInBytes    int32  `json:"sizeInBytes"`
	Cardinality    int64  `json:"cardinality"`
}

// AddFile is the add action: a data file that is part of the table.
type AddFile struct {
	// Path is URI-encoded and relative to the table root (or absolute).
	Path             string          `json:"path"`
	PartitionValues  PartitionValues `json:"partitionValues"`
	Size             int64           `json:"size"`
	ModificationTime int64           `json:"modificationTime"`
	DataChange       bool            `json:"dataChange"`
	Stats            string          `json:"stats,omitempty"`
	Tags             StringMap       `json:"tags,omitempty"`
	DeletionVector   *DeletionVector `json:"deletionVector,omitempty"`
}

// RemoveFile is the remove action: a file no longer part of the table.
type RemoveFile struct {
	Path                 string          `json:"path"`
	DeletionTimestamp    *int64          `json:"deletionTimestamp,omitempty"`
	DataChange           bool            `json:"dataChange"`
	ExtendedFileMetadata bool            `json:"extendedFileMetadata,omitempty"`
	PartitionValues      PartitionValues `json:"partitionValues,omitempty"`
	Size                 *int64          `json:"size,omitempty"`
	DeletionVector       *DeletionVector `json:"deletionVector,omitempty"`
}

// Txn is the txn (SetTransaction) action: the last version an application
// (a streaming query) committed, for idempotent writes.
type Txn struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated *int64 `json:"lastUpdated,omitempty"`
}

// CommitInfo is the commitInfo action: provenance of a commit. Fields other
// engines write are kept in Extra when reading.
type CommitInfo struct {
	Timestamp           int64          `json:"timestamp"`
	Operation           string         `json:"operation"`
	OperationParameters map[string]any `json:"operationParameters,omitempty"`
	ReadVersion         *int64         `json:"readVersion,omitempty"`
	IsolationLevel      string         `json:"isolationLevel,omitempty"`
	IsBlindAppend       *bool          `json:"isBlindAppend,omitempty"`
	OperationMetrics    map[string]any `json:"operationMetrics,omitempty"`
	EngineInfo          string         `json:"engineInfo,omitempty"`
	TxnID               string         `json:"txnId,omitempty"`
}

// UnmarshalJSON decodes commitInfo leniently: it is free-form provenance,
// so fields of unexpected types are dropped instead of failing the commit.
func (c *CommitInfo) UnmarshalJSON(b []byte) error {
	type plain CommitInfo
	if err := json.Unmarshal(b, (*plain)(c)); err == nil {
		return nil
	}
	var loose struct {
		Timestamp int64  `json:"timestamp"`
		Operation string `json:"operation"`
	}
	_ = json.Unmarshal(b, &loose)
	*c = CommitInfo{Timestamp: loose.Timestamp, Operation: loose.Operation}
	return nil
}

// Action is one line of a commit; exactly one field is set.
type Action struct {
	Protocol   *Protocol   `json:"protocol,omitempty"`
	MetaData   *Metadata   `json:"metaData,omitempty"`
	Add        *AddFile    `json:"add,omitempty"`
	Remove     *RemoveFile `json:"remove,omitempty"`
	Txn        *Txn        `json:"txn,omitempty"`
	CommitInfo *CommitInfo `json:"commitInfo,omitempty"`
	// CDC, DomainMetadata and checkpoint metadata are recognised only so a
	// reader can tell them from malformed lines.
	CDC            json.RawMessage `json:"cdc,omitempty"`
	DomainMetadata json.RawMessage `json:"domainMetadata,omitempty"`
}

// StringMap is a string map of the log. It also decodes the
// [{"key":…,"value":…}] form Arrow uses for map columns of checkpoints.
type StringMap map[string]string

// UnmarshalJSON accepts an object or a list of key/value entries; null
// values decode as "".
func (m *StringMap) UnmarshalJSON(b []byte) error {
	pm, err := decodeMap(b)
	if err != nil {
		return err
	}
	*m = StringMap(pm)
	return nil
}

// PartitionValues maps partition column names to their serialized values.
// A null value is "" (the protocol treats an empty string as null) and is
// written as JSON null.
type PartitionValues map[string]string

// UnmarshalJSON accepts an object or a list of key/value entries.
func (m *PartitionValues) UnmarshalJSON(b []byte) error {
	pm, err := decodeMap(b)
	if err != nil {
		return err
	}
	*m = PartitionValues(pm)
	return nil
}

// MarshalJSON writes "" as null.
func (m PartitionValues) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("{}"), nil
	}
	o := make(map[string]*string, len(m))
	for k, v := range m {
		if v == "" {
			o[k] = nil
			continue
		}
		v := v
		o[k] = &v
	}
	return json.Marshal(o)
}

func decodeMap(b []byte) (map[string]string, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	out := map[string]string{}
	if b[0] == '[' {
		var kv []struct {
			Key   string  `json:"key"`
			Value *string `json:"value"`
		}
		if err := json.Unmarshal(b, &kv); err != nil {
			return nil, err
		}
		for _, e := range kv {
			if e.Value != nil {
				out[e.Key] = *e.Value
			} else {
				out[e.Key] = ""
			}
		}
		return out, nil
	}
	var o map[string]*string
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	for k, v := range o {
		if v != nil {
			out[k] = *v
		} else {
			out[k] = ""
		}
	}
	return out, nil
}

// ParseActions decodes newline-delimited actions. name is used in errors.
func ParseActions(name string, data []byte) ([]Action, error) {
	var out []Action
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var a Action
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, fmt.Errorf("lake: %s line %d: %w", name, line, err)
		}
		out = append(out, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lake: %s: %w", name, err)
	}
	return out, nil
}

// EncodeActions encodes actions as newline-delimited JSON.
func EncodeActions(actions []Action) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range actions {
		if err := enc.Encode(&actions[i]); err != nil {
			return nil, fmt.Errorf("lake: encode action %d: %w", i, err)
		}
	}
	return buf.Bytes(), nil
}
