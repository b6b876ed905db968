//! Classic providers described once, and their events written from typed values.
//!
//! ```text
//!  ProviderDescription (GUID, name)
//!    └ ClassDescription (GUID, name, version)          event_class! writes, from one list:
//!        └ EventTypeDescription (number, name)           the class's description, and
//!            └ [FieldSchema] in data order  ◄────────── a structure per event type whose
//!                 │                                      fields are FieldValues (TypedEvent)
//!                 ▼                                              │ trace(): laid out in place
//!  PayloadDecoder reads the data with the same schemas  ◄─ Provider/Session write the event
//! ```
//!
//! Each event type's description also becomes, when the crate is built, the `TRACE_EVENT_INFO`
//! a `MetaData/EventInfo` event carries ([`event_info!`](crate::event_info),
//! [`trace_event_infos`]: the trace describes its own events), and the `.mof` a Windows
//! machine compiles ([`write_mof`]).
//!
//! A description is `const` data: checked when the crate is built (names, duplicates, types
//! and lengths, [`ProviderDescription::check`]), and the fields of each event type are the
//! [`FieldSchema`](crate::payload::FieldSchema)s the decoder reads events with, so a reader
//! decodes a typed event with the code that decodes any other.
//!
//! This module sits above `write` and `payload`: it describes events with the payload layer's
//! schema type and writes them through the write layer's provider and session. Neither of
//! those names it.

pub(crate) mod description;
pub(crate) mod event_info;
pub(crate) mod in_band;
pub mod mof;
pub(crate) mod typed;
pub(crate) mod value;

pub use description::{
    ClassDescription, DescriptionError, EventTypeDescription, Named, ProviderDescription,
    MAX_EVENT_DATA_LEN,
};
pub use event_info::{event_info_bytes, EventInfoParts, EventInfoWriteError};
pub use in_band::{trace_event_info, trace_event_infos};
pub use mof::write_mof;
pub use typed::{field, TypedError, TypedEvent};
pub use value::{Counted, Counted16, FieldValue, FileTime, Pointer, Utf16, ValueErrorKind};
