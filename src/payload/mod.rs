//! What an event's data means: its fields, named and typed, decoded in place.
//!
//! ```text
//!  a source of schemas                 one schema description        the walk over the data
//!  TraceLogging metadata (item 11) ─┐
//!  TRACE_EVENT_INFO, manifests,     ├─► [FieldSchema] in preorder ─► PayloadDecoder ─► Item:
//!  MOF classes, kernel tables      ─┘   (types, counts, lengths,       (name, Value) in order,
//!                                        structures, maps)             arrays and structures
//!                                                                      opened and closed
//! ```
//! Every source yields the same [`FieldSchema`] slice, and one decoder walks any event's data
//! with it, borrowing text and bytes from the data. Nothing allocates and no input panics:
//! counts and lengths are checked against the bytes left before anything is sized from them,
//! structures nest at most [`MAX_STRUCT_DEPTH`] levels, and the first value that does not fit
//! ends the walk with an error naming the field and the offset, the values before it kept.
//!
//! The sources that need text or memory (manifests, MOF text, manifests reassembled from the
//! stream, a registry of schemas) build on this module from outside the `no_std` core.

pub(crate) mod decoder;
pub(crate) mod event_info;
pub(crate) mod event_source;
pub mod kernel;
pub(crate) mod schema;
pub(crate) mod tracelogging;
pub(crate) mod types;
pub(crate) mod value;

pub use decoder::{
    last_reference, Item, ItemKind, NamedPayloadError, PayloadDecoder, PayloadError,
    PayloadErrorKind,
};
pub use event_info::{
    DecodingSource, EventInfo, EventInfoError, EventInfoErrorKind, EventMapInfo, InfoStructure,
    KeywordNames, MapEntries, MapEntry, MapFlags, MapInput, Properties, PropertyFlags,
    PropertyInfo, PropertyType, TemplateFlags, Utf16Name, EVENT_INFO_TYPE, EVENT_MAP_ENTRY_LEN,
    EVENT_MAP_INFO_LEN, EVENT_MAP_INFO_TYPE, EVENT_PROPERTY_INFO_LEN, MAP_VALUETYPE_STRING,
    METADATA_GUID, TRACE_EVENT_INFO_LEN,
};
pub use event_source::{
    is_manifest_data, EnvelopeError, EnvelopeErrorKind, ManifestEnvelope, ManifestFormat,
    MANIFEST_EVENT_ID, MANIFEST_OPCODE, MANIFEST_TASK,
};
pub use schema::{check_fields, Count, FieldSchema, Length, SchemaError, MAX_STRUCT_DEPTH};
pub use tracelogging::{MetadataError, MetadataErrorKind, TraceLoggingEvent, TraceLoggingFields};
pub use types::{InType, OutType, TRACELOGGING_UNKNOWN_OUT_TYPE};
pub use value::Value;
