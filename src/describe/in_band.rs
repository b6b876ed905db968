//! The trace's own description of its events: one `MetaData/EventInfo` event per event type,
//! written at the start of the trace from `TRACE_EVENT_INFO` bytes built at compile time.
//!
//! The event is what merged traces carry for each event type (PAYLOADS.md §4; net.4.5.2.x64,
//! buffer 18, offset 51000): a classic event of the `MetaData` class
//! ([`METADATA_GUID`](crate::payload::METADATA_GUID)), `Class.Type` 32
//! ([`EVENT_INFO_TYPE`](crate::payload::EVENT_INFO_TYPE)), `Class.Level` 0 and
//! `Class.Version` 0, whose data is the `TRACE_EVENT_INFO`. TraceEvent registers it by that
//! class GUID and type (`SymbolTraceEventParser.MetaDataEventInfo`); samply's etw-reader by
//! that GUID, type 32, version 0 and level 0 (`custom_schemas::EventInfo`).

use crate::payload::event_info::{EVENT_INFO_TYPE, METADATA_GUID};
use crate::wire::class::Class;
use crate::wire::codes::{EventType, Level};
use crate::write::error::TraceError;
use crate::write::event::{EventData, Traced};
use crate::write::provider::{Provider, TraceContext};
use crate::write::session::Session;

/// The `TRACE_EVENT_INFO` of an event type of a class made by
/// [`event_class!`](crate::event_class), as a `&'static [u8]` built when the crate is built
/// ([`event_info_bytes`](crate::describe::event_info_bytes)): in flash, no RAM. The build
/// stops when the description does not make one (a class version above 255).
///
/// `event_info!(PROVIDER, Type)` takes the provider's
/// [`ProviderDescription`](crate::describe::ProviderDescription) constant and the event type's
/// structure (with `'static` for a lifetime it has).
///
/// ```
/// use etw_classic::describe::{ProviderDescription, TypedEvent};
/// use etw_classic::payload::EventInfo;
/// use etw_classic::Guid;
///
/// etw_classic::event_class! {
///     pub const STAGE = (Guid::from_fields(1, 2, 3, [4; 8]), "Stage", version 1);
///     pub struct StageStart<'a> = (1, "Start") { pub name: &'a str => "Name" }
///     pub struct StageEnd = (2, "End") { pub status: i32 => "Status" }
/// }
/// const BOOT: ProviderDescription = ProviderDescription::new(Guid::from_fields(5, 6, 7, [8; 8]), "Boot", &[STAGE]);
/// const DESCRIPTIONS: [&[u8]; 2] = [
///     etw_classic::event_info!(BOOT, StageStart<'static>),
///     etw_classic::event_info!(BOOT, StageEnd),
/// ];
/// let info = EventInfo::parse(DESCRIPTIONS[1])?;
/// assert_eq!(info.descriptor.opcode, 2);
/// # Ok::<(), etw_classic::payload::EventInfoError>(())
/// ```
#[macro_export]
macro_rules! event_info {
    ($provider:path, $event:ty) => {{
        const LEN: usize = <$event as $crate::describe::TypedEvent>::CLASS.event_info_len(
            $provider.name(),
            &<$event as $crate::describe::TypedEvent>::EVENT_TYPE,
        );
        const BYTES: [u8; LEN] = match $crate::describe::event_info_bytes::<LEN>(
            &$provider,
            <$event as $crate::describe::TypedEvent>::CLASS,
            &<$event as $crate::describe::TypedEvent>::EVENT_TYPE,
        ) {
            ::core::option::Option::Some(bytes) => bytes,
            ::core::option::Option::None => ::core::panic!(
                "the event type's description does not make a TRACE_EVENT_INFO (a class version above 255?)"
            ),
        };
        const SLICE: &[u8] = &BYTES;
        SLICE
    }};
}

/// Writes one `MetaData/EventInfo` event for each of `infos` (each a `TRACE_EVENT_INFO`, as
/// [`event_info!`](crate::event_info) makes them) to `session` through `provider`, in order,
/// as [`trace_event_info`] writes one. Called once, before the events they describe, so that
/// a reader that reads in time order (TraceEvent) has the descriptions first.
///
/// Returns how many were written; an event the session filters out (a session at
/// [`Level::NONE`]) is not counted.
///
/// # Errors
/// The first [`TraceError`] the session gives (a description larger than a buffer, no free
/// buffer); the ones before it are written.
pub fn trace_event_infos<
    const CLASSES: usize,
    const BUFFER_SIZE: usize,
    const BUFFER_COUNT: usize,
>(
    provider: &Provider<CLASSES>,
    session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
    infos: &[&[u8]],
    context: &mut impl TraceContext,
) -> Result<usize, TraceError> {
    let mut written = 0usize;
    for info in infos {
        if let Traced::Written { .. } = trace_event_info(provider, session, info, context)? {
            written = written.saturating_add(1);
        }
    }
    Ok(written)
}

/// Writes one `MetaData/EventInfo` event whose data is `info` (a `TRACE_EVENT_INFO`) to
/// `session` through `provider`: a `FULL_HEADER32`/`FULL_HEADER64` header by the provider's
/// bitness, `Guid` [`METADATA_GUID`], `Class` type 32, level 0 and version 0 (what Windows
/// writes, and the key samply looks the event up by), stamped from `context`, and the bytes
/// copied from where they are (flash) into the buffer. Level 0 is taken by any session that
/// is on.
///
/// # Errors
/// What [`Provider::trace_event`] gives for an event of this size.
pub fn trace_event_info<
    const CLASSES: usize,
    const BUFFER_SIZE: usize,
    const BUFFER_COUNT: usize,
>(
    provider: &Provider<CLASSES>,
    session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
    info: &[u8],
    context: &mut impl TraceContext,
) -> Result<Traced, TraceError> {
    let class = Class::new(EventType(EVENT_INFO_TYPE), Level::NONE, 0);
    provider.trace_event_in_place(
        session,
        class,
        &METADATA_GUID,
        info.len(),
        EventData::Inline(info),
        context,
    )
}
