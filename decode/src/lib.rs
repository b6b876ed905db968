//! The meaning of ETW events without Windows: every source of schemas, yielding one owned
//! schema description ([`EventSchema`]) whose fields are the `no_std` core's
//! [`FieldSchema`](etw_classic::payload::FieldSchema), so that one decoder
//! ([`PayloadDecoder`](etw_classic::payload::PayloadDecoder)) walks every event's data.
//!
//! | module | reads |
//! |---|---|
//! | [`schema`] | the owned schema every source yields: provider, event, task, opcode, level and keyword names, fields, value maps, where it came from |
//! | [`kernel`] | the kernel's built-in classes as schemas |
//!
//! This crate needs the standard library (text, memory); it only wraps the core.

#![forbid(unsafe_code)]
#![deny(missing_docs, missing_debug_implementations)]

pub mod kernel;
pub mod schema;

pub use schema::{EventSchema, MapKind, Name, SchemaOrigin, SchemaSource, ValueMap};
