//! The meaning of ETW events without Windows: every source of schemas, yielding one owned
//! schema description ([`EventSchema`]) whose fields are the `no_std` core's
//! [`FieldSchema`](etw_classic::payload::FieldSchema), so that one decoder
//! ([`PayloadDecoder`](etw_classic::payload::PayloadDecoder)) walks every event's data.
//!
//! | module | reads |
//! |---|---|
//! | [`buffers`] | the buffers of a file decompressed on every core, handed out in file order |
//! | [`event`] | the decoded event every output writes from: position, header, time, names, fields |
//! | [`headers`] | the JSON form of the headers (every member under its SDK name), described to a sink |
//! | [`sink`] | where an event goes: the JSON data model as calls, JSON text written straight, a `serde_json` value |
//! | [`event_info`] | `MetaData/EventInfo` and `EventMapInfo` events (`TRACE_EVENT_INFO`, `EVENT_MAP_INFO`) as schemas under their keys and value maps |
//! | [`event_source`] | EventSource manifests written into the stream: `ManifestData` chunks put back together per provider, process and thread, with memory bounded |
//! | [`facts`] | what an event's header says of it: provider or kernel group, ids, descriptor, bitness, payload, TraceLogging metadata |
//! | [`filter`] | which events pass: provider, event, process, kind, ids, time range, as `etwc etl` and the Python module take them |
//! | [`registry`] | the schemas known for a trace, and each event's names and fields |
//! | [`render`] | how a value is shown (the rules every output shares) and an event's fields as JSON |
//! | [`report`] | what a reading reports besides its events: the errors met, within bounds |
//! | [`schema`] | the owned schema every source yields: provider, event, task, opcode, level and keyword names, fields, value maps, where it came from |
//! | [`manifest`] | instrumentation manifests (`.man` XML), given by the user or written into the stream by EventSource |
//! | [`mof`] | classic MOF text: provider, event and event type classes with their qualifiers |
//! | [`kernel`] | the kernel's built-in classes as schemas |
//! | `arrow` | (feature `arrow`) decoded events as Arrow columns: `EventColumns`, the `events` table of Parquet and Python |
//!
//! This crate needs the standard library (text, memory); it only wraps the core.

#![forbid(unsafe_code)]
#![deny(missing_docs, missing_debug_implementations)]

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod buffers;
pub mod event;
pub mod event_info;
pub mod event_source;
pub mod facts;
pub mod filter;
pub mod headers;
pub mod kernel;
pub mod manifest;
pub mod mof;
pub mod registry;
pub mod render;
pub mod report;
pub mod schema;
pub mod sink;

#[cfg(feature = "arrow")]
pub use arrow::EventColumns;
pub use event::DecodedEvent;
pub use registry::{
    Checked, Decoded, Description, FoundSchema, Identified, Registry, SchemaFile, Undecoded,
};
pub use schema::{EventSchema, MapKind, Name, SchemaKey, SchemaOrigin, SchemaSource, ValueMap};
