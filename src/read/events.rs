//! Walking the events of one trace buffer: recognise each header from its first four bytes,
//! check its `Size` against the bytes there, and hand back a zero-copy view.

use core::iter::FusedIterator;

use crate::read::error::{BufferPosition, ReadError, ReadErrorKind};
use crate::wire::codes::{HeaderFamily, HeaderType, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::file::wmi_buffer_header::DEFAULT_TRACE_ALIGNMENT;
use crate::wire::headers::compact_trace_header::CompactTraceHeader;
use crate::wire::headers::event_header::EventHeader;
use crate::wire::headers::event_header_extended::ExtendedAndUserData;
use crate::wire::headers::event_instance_guid_header::EventInstanceGuidHeader;
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::headers::message_trace_header::{MessageFields, MessageTraceHeader};
use crate::wire::headers::perfinfo_trace_header::PerfInfoTraceHeader;
use crate::wire::headers::system_trace_header::SystemTraceHeader;
use crate::wire::headers::version_first::ExtraWords;

/// The `u32` that stands where a header would start once a buffer's events have ended.
const END_OF_EVENTS: u32 = 0xFFFF_FFFF;

/// Where `Size` sits in a version-first header (`SYSTEM`, `COMPACT`, `PERFINFO`).
const VERSION_FIRST_SIZE_AT: usize = 4;

/// The bytes a version-first header needs for its `Size` to be read: up to the end of `Size`.
const VERSION_FIRST_SIZE_END: usize = VERSION_FIRST_SIZE_AT + 2;

/// The smallest `Size` any event may have: the four marker bytes. A smaller `Size` (0 in
/// particular) could never advance a walk.
const MIN_EVENT_SIZE: usize = 4;

/// How far ahead of each event the walk reads one byte.
///
/// Each next offset depends on the `Size` just read, so the walk's loads form a chain, and
/// hardware prefetchers do not follow strides that change with every event: without help, every
/// event of a large buffer waits for a cache miss. Safe Rust has no prefetch instruction, but a
/// load whose value only goes to [`core::hint::black_box`] is one the walk never waits for, and it
/// brings its cache line in. At 1 KiB, four or more events ahead for typical sizes, a walk of
/// 1 MiB of instance events takes about 20% less time on x86-64 (`cargo bench --bench codec`).
/// On a core without a data cache it is one wasted load per event.
const READ_AHEAD: usize = 1024;

/// The events of one trace buffer, in order: an iterator of [`Event`]s over the bytes that
/// follow the buffer's [`WmiBufferHeader`](crate::wire::WmiBufferHeader), up to the end of the buffer
/// (or any shorter length the caller chooses).
///
/// Each event is recognised from its first four bytes, read as a little-endian `u32`:
/// - 0xFFFFFFFF marks the end of the events: iteration ends, without an error. So does a tail
///   of fewer than four bytes.
/// - Otherwise `TRACE_HEADER_FLAG` (0x80 in byte 3) must be set, or the walk stops with
///   [`ReadErrorKind::NotAnEventHeader`].
/// - With `TRACE_MESSAGE` (0x10 in byte 3) it is a message (WPP) header, `Size` a `u16` at 0;
///   the event is reported as [`HeaderType::MESSAGE`].
/// - Otherwise byte 2 is the [`HeaderType`], and its [`family`](HeaderType::family) says where
///   `Size` is: a `u16` at 0 for size-first headers, at 4 for version-first ones (`SYSTEM`,
///   `COMPACT`, `PERFINFO`). A type without a known family (one no document names) is
///   [`ReadErrorKind::UnknownEventHeaderType`].
///
/// `Size` must cover the type's fixed header (and at least four bytes), else
/// [`ReadErrorKind::EventSizeBelowHeader`], and must not run past the end of the bytes, else
/// [`ReadErrorKind::EventSizeBeyondBuffer`]. The next event starts at the event's offset plus `Size`
/// rounded up to [`DEFAULT_TRACE_ALIGNMENT`].
///
/// An error is yielded once, with the offset where it was found, and then the iterator returns
/// `None` for ever. Offsets strictly increase, so a walk takes at most `len / 8 + 1` steps.
///
/// ```
/// use etw_classic::{Events, EventKind, HeaderType};
///
/// // One 0x30-byte FULL_HEADER64 event with 4 bytes of data, padding, then the end mark.
/// let mut buffer = [0xFFu8; 0x40];
/// buffer[..4].copy_from_slice(&[0x34, 0x00, 0x14, 0xC0]);
/// buffer[0x04..0x34].fill(0);
///
/// let mut events = Events::new(&buffer);
/// let event = events.next().unwrap()?;
/// assert_eq!((event.offset, event.header_type, event.size), (0, HeaderType::FULL_HEADER64, 0x34));
/// assert!(matches!(event.kind(), EventKind::Full { data, .. } if data.len() == 4));
/// assert!(events.next().is_none());
/// # Ok::<(), etw_classic::ReadError>(())
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Events<'a> {
    bytes: &'a [u8],
    /// Where the next event is looked for; `None` once the walk has ended.
    next: Option<usize>,
    /// The buffer the bytes belong to, named in errors.
    buffer: Option<BufferPosition>,
}

impl<'a> Events<'a> {
    /// The events in `bytes`, the first one at offset 0.
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self::in_buffer(bytes, None)
    }

    /// The events in `bytes`, the events of the buffer at `buffer` in an .etl file: errors
    /// name that buffer.
    pub const fn in_buffer(bytes: &'a [u8], buffer: Option<BufferPosition>) -> Self {
        Self {
            bytes,
            next: Some(0),
            buffer,
        }
    }

    /// The events in `bytes` from `offset` on (an offset [`Event::offset`] or
    /// [`offset`](Self::offset) gave), to resume a walk whose iterator was dropped: the events
    /// and errors are those the first walk would have given from there, with the same offsets.
    pub const fn resume_at(bytes: &'a [u8], buffer: Option<BufferPosition>, offset: usize) -> Self {
        Self {
            bytes,
            next: Some(offset),
            buffer,
        }
    }

    /// Where the next event is looked for, from the start of the bytes; `None` once the walk has
    /// ended (at the end mark, the end of the bytes, or after an error).
    pub const fn offset(&self) -> Option<usize> {
        self.next
    }

    /// The buffer the events belong to, when known.
    pub const fn buffer(&self) -> Option<BufferPosition> {
        self.buffer
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Result<Event<'a>, ReadError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let offset = self.next.take()?;
        let rest = self.bytes.get(offset..)?;
        let item = read_event(rest, offset)?;
        if let Ok(event) = &item {
            // The event's `size` bytes lie within `bytes` from `offset`, and rounding up to the
            // alignment adds at most 7: the sum stays below `isize::MAX + 8`.
            #[allow(clippy::arithmetic_side_effects)]
            let next = offset + usize::from(event.size).next_multiple_of(DEFAULT_TRACE_ALIGNMENT);
            self.next = Some(next);
            // A load nothing waits for, so that the bytes are in the cache before the walk
            // reaches them (see READ_AHEAD); none within READ_AHEAD of the end.
            if let Some(byte) = rest.get(READ_AHEAD) {
                core::hint::black_box(*byte);
            }
        }
        Some(item.map_err(|kind| ReadError::new(self.buffer, kind)))
    }
}

impl FusedIterator for Events<'_> {}

/// Where the raw timestamp (an `i64`) sits in each header kind that has one at a fixed offset.
mod timestamp_at {
    /// `EVENT_TRACE_HEADER.TimeStamp` (evntrace.h; LAYOUTS.md), also in
    /// `EVENT_INSTANCE_GUID_HEADER`, which starts with the same 0x30 bytes.
    pub(super) const FULL_OR_INSTANCE: usize = 0x10;
    /// `SYSTEM_TRACE_HEADER.SystemTime` and the `COMPACT` header's `SystemTime` (ntwmi.h;
    /// EVENT-HEADERS.md §3).
    pub(super) const SYSTEM_OR_COMPACT: usize = 0x10;
    /// `PERFINFO_TRACE_HEADER.SystemTime` (ntwmi.h, the `PERFINFO_TIMESTAMP` union right after
    /// the packet; EVENT-HEADERS.md §3).
    pub(super) const PERFINFO: usize = 0x08;
    /// `EVENT_HEADER.TimeStamp` (evntcons.h, MS-DTYP 2.3.2; EVENT-HEADERS.md §1).
    pub(super) const EVENT_HEADER: usize = 0x10;
    /// `MESSAGE_TRACE_HEADER.Packet.OptionFlags`, a `u16` (ntwmi.h; EVENT-HEADERS.md §4).
    pub(super) const MESSAGE_OPTION_FLAGS: usize = 0x06;
    /// Where a message's optional fields start: right after its 8-byte header.
    pub(super) const MESSAGE_FIELDS: usize = 0x08;
}

/// The `TRACE_MESSAGE_*` option flags (evntrace.h) that decide where a message's time stamp is.
mod message_option {
    /// `TRACE_MESSAGE_SEQUENCE`: a `u32` sequence number comes first.
    pub(super) const SEQUENCE: u16 = 0x01;
    /// `TRACE_MESSAGE_GUID`: then the 16-byte message GUID.
    pub(super) const GUID: u16 = 0x02;
    /// `TRACE_MESSAGE_COMPONENTID`: or, instead of the GUID, a `u32` component id.
    pub(super) const COMPONENT_ID: u16 = 0x04;
    /// `TRACE_MESSAGE_TIMESTAMP`: then the `i64` time stamp.
    pub(super) const TIMESTAMP: u16 = 0x08;
}

impl Event<'_> {
    /// The event's raw timestamp: the value its header holds, in the session's clock (convert
    /// it with [`TraceClock`](crate::read::TraceClock)), read straight from the bytes at the
    /// offset its [`header_type`](Self::header_type) puts it, without decoding the header.
    ///
    /// | header type | field | offset | source |
    /// |---|---|---|---|
    /// | `FULL_HEADER32/64`, `INSTANCE32/64` | `TimeStamp` | 0x10 | evntrace.h `EVENT_TRACE_HEADER` (LAYOUTS.md) |
    /// | `SYSTEM32/64`, `COMPACT32/64` | `SystemTime` | 0x10 | ntwmi.h (EVENT-HEADERS.md §3) |
    /// | `PERFINFO32/64` | `SystemTime` | 0x08 | ntwmi.h `PERFINFO_TRACE_HEADER` (EVENT-HEADERS.md §3) |
    /// | `EVENT_HEADER32/64` | `TimeStamp` | 0x10 | evntcons.h, MS-DTYP 2.3.2 (EVENT-HEADERS.md §1) |
    /// | `MESSAGE` | time stamp, when `OptionFlags` (`u16` @0x06) has `TRACE_MESSAGE_TIMESTAMP` (0x08) | 8, + 4 with `TRACE_MESSAGE_SEQUENCE` (0x01), + 16 with `TRACE_MESSAGE_GUID` (0x02) or + 4 with `TRACE_MESSAGE_COMPONENTID` (0x04) | docs:TraceMessage field order, packed (EVENT-HEADERS.md §4) |
    ///
    /// `None` for the kinds without a documented timestamp (`TIMED`, `ERROR`, `WNODE_HEADER`,
    /// unknown types), for a message without `TRACE_MESSAGE_TIMESTAMP` or with both
    /// `TRACE_MESSAGE_GUID` and `TRACE_MESSAGE_COMPONENTID` (which docs:TraceMessage says are
    /// exclusive, so no layout is documented), and when the event's bytes end before the
    /// timestamp does (only for an `Event` built by hand, or a message whose `Size` leaves no
    /// room for it).
    ///
    /// A message's time stamp is "raw clock" unless its flags say otherwise: with
    /// `TRACE_MESSAGE_PERFORMANCE_TIMESTAMP` (0x10) it is a QPC value, which the flags alone
    /// do not let this method tell from the session's clock; no sample trace holds a message.
    ///
    /// ```
    /// use etw_classic::Events;
    ///
    /// // A PERFINFO64 event (Version 2, HookId 0x1403): SystemTime at 0x08.
    /// let mut event = [0u8; 0x18];
    /// event[..8].copy_from_slice(&[0x02, 0x00, 0x11, 0xC0, 0x18, 0x00, 0x03, 0x14]);
    /// event[8..16].copy_from_slice(&5_464_961_724_402i64.to_le_bytes());
    /// let event = Events::new(&event).next().unwrap()?;
    /// assert_eq!(event.timestamp(), Some(5_464_961_724_402));
    /// # Ok::<(), etw_classic::ReadError>(())
    /// ```
    #[inline]
    pub fn timestamp(&self) -> Option<i64> {
        let at = match self.header_type {
            HeaderType::FULL_HEADER32
            | HeaderType::FULL_HEADER64
            | HeaderType::INSTANCE32
            | HeaderType::INSTANCE64 => timestamp_at::FULL_OR_INSTANCE,
            HeaderType::SYSTEM32
            | HeaderType::SYSTEM64
            | HeaderType::COMPACT32
            | HeaderType::COMPACT64 => timestamp_at::SYSTEM_OR_COMPACT,
            HeaderType::PERFINFO32 | HeaderType::PERFINFO64 => timestamp_at::PERFINFO,
            HeaderType::EVENT_HEADER32 | HeaderType::EVENT_HEADER64 => timestamp_at::EVENT_HEADER,
            HeaderType::MESSAGE => self.message_timestamp_offset()?,
            _ => return None,
        };
        let raw = self.bytes.get(at..)?.first_chunk::<8>()?;
        Some(i64::from_le_bytes(*raw))
    }

    /// Where a message's time stamp starts, from its `OptionFlags`; `None` when it has none or
    /// the flags name no documented layout.
    fn message_timestamp_offset(&self) -> Option<usize> {
        let flags = self
            .bytes
            .get(timestamp_at::MESSAGE_OPTION_FLAGS..)?
            .first_chunk::<2>()?;
        let flags = u16::from_le_bytes(*flags);
        let has = |flag: u16| flags & flag != 0;
        if !has(message_option::TIMESTAMP)
            || (has(message_option::GUID) && has(message_option::COMPONENT_ID))
        {
            return None;
        }
        let sequence = if has(message_option::SEQUENCE) { 4 } else { 0 };
        let source = if has(message_option::GUID) {
            16
        } else if has(message_option::COMPONENT_ID) {
            4
        } else {
            0
        };
        // At most 8 + 4 + 16.
        #[allow(clippy::arithmetic_side_effects)]
        Some(timestamp_at::MESSAGE_FIELDS + sequence + source)
    }
}

/// Recognises the event at the start of `rest` (which is at `offset`); `None` at the end of the
/// events.
#[inline]
fn read_event(rest: &[u8], offset: usize) -> Option<Result<Event<'_>, ReadErrorKind>> {
    let marker = *rest.first_chunk::<4>()?;
    let found = u32::from_le_bytes(marker);
    if found == END_OF_EVENTS {
        return None;
    }
    Some(recognise(rest, offset, marker, found))
}

#[inline]
fn recognise(
    rest: &[u8],
    offset: usize,
    marker: [u8; 4],
    found: u32,
) -> Result<Event<'_>, ReadErrorKind> {
    let [_, _, type_byte, flags_byte] = marker;
    let marker_flags = MarkerFlags(flags_byte);
    if !marker_flags.contains(MarkerFlags::TRACE_HEADER_FLAG) {
        return Err(ReadErrorKind::NotAnEventHeader { offset, found });
    }
    let (header_type, family) = if marker_flags.contains(MarkerFlags::TRACE_MESSAGE) {
        (HeaderType::MESSAGE, HeaderFamily::SizeFirst)
    } else {
        let header_type = HeaderType(type_byte);
        let family = header_type
            .family()
            .ok_or(ReadErrorKind::UnknownEventHeaderType {
                offset,
                header_type,
            })?;
        (header_type, family)
    };
    let size = match family {
        // The marker's first two bytes: no second read on the walk's critical path.
        HeaderFamily::SizeFirst => {
            let [low, high, _, _] = marker;
            u16::from_le_bytes([low, high])
        }
        HeaderFamily::VersionFirst => rest
            .get(VERSION_FIRST_SIZE_AT..)
            .and_then(|tail| tail.first_chunk::<2>())
            .map(|raw| u16::from_le_bytes(*raw))
            .ok_or(ReadErrorKind::EventHeaderTruncated {
                offset,
                header_type,
                needed: VERSION_FIRST_SIZE_END,
                available: rest.len(),
            })?,
    };
    let min_size = match header_type.fixed_len() {
        Some(fixed_len) => fixed_len.max(MIN_EVENT_SIZE),
        // A type with a `Size` but no fixed header (`ERROR`): the marker bytes are all it needs.
        None => MIN_EVENT_SIZE,
    };
    if usize::from(size) < min_size {
        return Err(ReadErrorKind::EventSizeBelowHeader {
            offset,
            header_type,
            min_size,
            size,
        });
    }
    let bytes = rest
        .get(..usize::from(size))
        .ok_or(ReadErrorKind::EventSizeBeyondBuffer {
            offset,
            header_type,
            size,
            available: rest.len(),
        })?;
    Ok(Event {
        offset,
        header_type,
        marker_flags,
        size,
        bytes,
    })
}

/// One event of a trace buffer, borrowed from the buffer's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct Event<'a> {
    /// Where the event starts, from the start of the bytes given to [`Events::new`].
    pub offset: usize,
    /// The header type: byte 2, or [`HeaderType::MESSAGE`] for a message header (whose byte 2 is
    /// reserved).
    pub header_type: HeaderType,
    /// Byte 3 (`MarkerFlags`, or `Flags` in a version-first header).
    pub marker_flags: MarkerFlags,
    /// `Size`: header plus data, without the alignment padding after it.
    pub size: u16,
    /// The whole event, header and data: exactly `size` bytes.
    pub bytes: &'a [u8],
}

impl<'a> Event<'a> {
    /// The event decoded as far as this crate knows its header: the classic full and instance
    /// headers, the `EVENT_HEADER` with its extended data items and user data, the kernel's
    /// system, compact and perfinfo headers with their extra words, the message header with its
    /// optional fields, each with the data after them; the bytes of the kinds with no public
    /// layout; and a [`Malformed`](EventKind::Malformed) event when the fields a header announces
    /// do not fit in its `Size`.
    ///
    /// The choice follows [`header_type`](Self::header_type) alone; the header is decoded as
    /// `from_bytes` does, without the marker-flags check of `parse`. Nothing is decoded before
    /// this is called, so a walk that does not ask pays nothing for it.
    #[inline]
    pub fn kind(&self) -> EventKind<'a> {
        match self.header_type {
            HeaderType::FULL_HEADER32 | HeaderType::FULL_HEADER64 => {
                if let Some((header, data)) = self.bytes.split_first_chunk() {
                    return EventKind::Full {
                        header: EventTraceHeader::from_bytes(header),
                        data,
                    };
                }
            }
            HeaderType::INSTANCE32 | HeaderType::INSTANCE64 => {
                if let Some((header, data)) = self.bytes.split_first_chunk() {
                    return EventKind::Instance {
                        header: EventInstanceGuidHeader::from_bytes(header),
                        data,
                    };
                }
            }
            HeaderType::EVENT_HEADER32 | HeaderType::EVENT_HEADER64 => {
                if let Some((header, body)) = self.bytes.split_first_chunk() {
                    let header = EventHeader::from_bytes(header);
                    return EventKind::EventHeader {
                        header,
                        body: ExtendedAndUserData::new(header.flags, body),
                    };
                }
            }
            HeaderType::SYSTEM32 | HeaderType::SYSTEM64 => {
                match version_first(
                    self.bytes,
                    SystemTraceHeader::from_bytes,
                    SystemTraceHeader::split_extra_words,
                ) {
                    Some((header, Ok((extra, data)))) => {
                        return EventKind::System {
                            header,
                            extra,
                            data,
                        }
                    }
                    Some((_, Err(error))) => return self.malformed(error),
                    None => {}
                }
            }
            HeaderType::COMPACT32 | HeaderType::COMPACT64 => {
                match version_first(
                    self.bytes,
                    CompactTraceHeader::from_bytes,
                    CompactTraceHeader::split_extra_words,
                ) {
                    Some((header, Ok((extra, data)))) => {
                        return EventKind::Compact {
                            header,
                            extra,
                            data,
                        }
                    }
                    Some((_, Err(error))) => return self.malformed(error),
                    None => {}
                }
            }
            HeaderType::PERFINFO32 | HeaderType::PERFINFO64 => {
                match version_first(
                    self.bytes,
                    PerfInfoTraceHeader::from_bytes,
                    PerfInfoTraceHeader::split_extra_words,
                ) {
                    Some((header, Ok((extra, data)))) => {
                        return EventKind::PerfInfo {
                            header,
                            extra,
                            data,
                        }
                    }
                    Some((_, Err(error))) => return self.malformed(error),
                    None => {}
                }
            }
            HeaderType::MESSAGE => {
                if let Some((header, data)) = self.bytes.split_first_chunk() {
                    let header = MessageTraceHeader::from_bytes(header);
                    return match header.split_fields(data) {
                        Ok((fields, args)) => EventKind::Message {
                            header,
                            fields,
                            args,
                        },
                        Err(error) => self.malformed(error),
                    };
                }
            }
            HeaderType::TIMED | HeaderType::ERROR | HeaderType::WNODE_HEADER => {
                return EventKind::Opaque {
                    header_type: self.header_type,
                    bytes: self.bytes,
                };
            }
            _ => {}
        }
        EventKind::Other {
            header_type: self.header_type,
            bytes: self.bytes,
        }
    }

    /// The event as [`EventKind::Malformed`], with the error that makes it so.
    fn malformed(&self, error: CodecError) -> EventKind<'a> {
        EventKind::Malformed {
            header_type: self.header_type,
            bytes: self.bytes,
            error,
        }
    }
}

/// The extra words after a version-first header and the event data after them, or why the
/// words do not fit.
type ExtraAndData<'a> = Result<(ExtraWords<'a>, &'a [u8]), CodecError>;

/// A version-first header of `LEN` bytes at the start of `bytes`, decoded by `decode`, and the
/// rest of the event split by `split` into the extra words its `Version` announces and the
/// event data; `None` when `bytes` is shorter than the header.
#[inline]
fn version_first<'a, Header, const LEN: usize>(
    bytes: &'a [u8],
    decode: fn(&[u8; LEN]) -> Header,
    split: fn(&Header, &'a [u8]) -> ExtraAndData<'a>,
) -> Option<(Header, ExtraAndData<'a>)> {
    let (header, body) = bytes.split_first_chunk::<LEN>()?;
    let header = decode(header);
    let split = split(&header, body);
    Some((header, split))
}

/// An [`Event`] decoded by its header type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EventKind<'a> {
    /// `FULL_HEADER32`/`FULL_HEADER64`: an `EVENT_TRACE_HEADER` (from `TraceEvent`) and the
    /// `Size - 0x30` bytes of data after it.
    Full {
        /// The header.
        header: EventTraceHeader,
        /// The event data.
        data: &'a [u8],
    },
    /// `INSTANCE32`/`INSTANCE64`: an `EVENT_INSTANCE_GUID_HEADER` (from `TraceEventInstance`)
    /// and the `Size - 0x48` bytes of data after it.
    Instance {
        /// The header.
        header: EventInstanceGuidHeader,
        /// The event data.
        data: &'a [u8],
    },
    /// `EVENT_HEADER32`/`EVENT_HEADER64`: an `EVENT_HEADER` (manifest-based and TraceLogging
    /// events) and the `Size - 0x50` bytes after it: the extended data items when its flags
    /// have `EXTENDED_INFO`, then the user data.
    ///
    /// The items are not read by the walk: [`ExtendedAndUserData::items`] reads them one by
    /// one and [`ExtendedAndUserData::split`] checks them all and finds the user data; a
    /// malformed item is an error there, naming the item and its offset in the event.
    EventHeader {
        /// The header.
        header: EventHeader,
        /// The extended data items and the user data.
        body: ExtendedAndUserData<'a>,
    },
    /// `SYSTEM32`/`SYSTEM64`: a `SYSTEM_TRACE_HEADER` (a kernel event with thread, process and
    /// CPU times), the [`ExtraWords`] its `Version` announces (none in any sample trace), and the
    /// event data after them, up to `Size`.
    System {
        /// The header.
        header: SystemTraceHeader,
        /// The PEBS index and PMC counters after the header (usually none).
        extra: ExtraWords<'a>,
        /// The event data.
        data: &'a [u8],
    },
    /// `COMPACT32`/`COMPACT64`: the compact system header (no CPU times), its [`ExtraWords`],
    /// and the event data.
    Compact {
        /// The header.
        header: CompactTraceHeader,
        /// The PEBS index and PMC counters after the header (usually none).
        extra: ExtraWords<'a>,
        /// The event data.
        data: &'a [u8],
    },
    /// `PERFINFO32`/`PERFINFO64`: a `PERFINFO_TRACE_HEADER` (a kernel event with only a
    /// timestamp), its [`ExtraWords`], and the event data.
    PerfInfo {
        /// The header.
        header: PerfInfoTraceHeader,
        /// The PEBS index and PMC counters after the header (usually none).
        extra: ExtraWords<'a>,
        /// The event data.
        data: &'a [u8],
    },
    /// `MESSAGE` (a WPP `TraceMessage` event, known by `TRACE_MESSAGE` in byte 3): a
    /// `MESSAGE_TRACE_HEADER`, the [`MessageFields`] its `OptionFlags` announce, and the
    /// message's arguments up to `Size`.
    ///
    /// Every marker with `TRACE_MESSAGE` is a message to the walk, including ntwmi.h's
    /// `TRACE_HEADER_ULONG32_TIME` (byte 3 = 0xB0), which no public source describes further;
    /// `header.version` keeps that byte.
    Message {
        /// The header.
        header: MessageTraceHeader,
        /// The sequence number, message GUID or component id, time stamp and thread and process
        /// ids, as far as `OptionFlags` announces them.
        fields: MessageFields,
        /// The message's arguments.
        args: &'a [u8],
    },
    /// `TIMED`, `ERROR` and `WNODE_HEADER`: kinds ntwmi.h names ("Not used", "Error while
    /// logging event") but no public source lays out. Framed size first; the whole event, header
    /// included, undecoded.
    Opaque {
        /// The event's header type.
        header_type: HeaderType,
        /// The whole event.
        bytes: &'a [u8],
    },
    /// A header whose announced fields do not fit in its `Size`: a system, compact or perfinfo
    /// header whose `Version` announces more extra words, or a message header whose
    /// `OptionFlags` announce more fields, than the bytes after the header hold. The whole
    /// event, and the error that says which member announced how much.
    Malformed {
        /// The event's header type.
        header_type: HeaderType,
        /// The whole event.
        bytes: &'a [u8],
        /// What does not fit ([`CodecError::AnnouncedBeyondSize`]).
        error: CodecError,
    },
    /// Header types this crate does not decode: those no document names (a walk stops at them
    /// with [`ReadErrorKind::UnknownEventHeaderType`], so only an [`Event`] built by hand has
    /// one), and any event built by hand whose bytes are shorter than its header. The whole event,
    /// header included.
    Other {
        /// The event's header type.
        header_type: HeaderType,
        /// The whole event.
        bytes: &'a [u8],
    },
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::wire::class::Class;
    use crate::wire::guid::Guid;
    use crate::wire::unions::{GuidOrPtr, TimesOrFlags};
    use proptest::prelude::*;
    use std::vec::Vec;

    fn full_header64(size: u16) -> EventTraceHeader {
        EventTraceHeader {
            size,
            header_type: HeaderType::FULL_HEADER64,
            marker_flags: MarkerFlags::EVENT_TRACE_HEADER,
            class: Class::from_roll_up(0x0002_0401),
            thread_id: 0x1234,
            process_id: 0x42,
            timestamp: 133_000_000_000_000_000,
            guid: GuidOrPtr::from_guid(Guid::from_fields(1, 2, 3, [4; 8])),
            times: TimesOrFlags::from_times(3, 5),
        }
    }

    fn instance32(size: u16) -> EventInstanceGuidHeader {
        let mut header = full_header64(size);
        header.header_type = HeaderType::INSTANCE32;
        EventInstanceGuidHeader {
            header,
            instance_id: 7,
            parent_instance_id: 6,
            parent_guid: Guid::from_fields(9, 8, 7, [6; 8]),
        }
    }

    /// A `SYSTEM64` header: Version 2, HeaderType 0x02, Flags 0xC0, Size at 4, HookId at 6, then
    /// zeros up to 0x20 (ThreadId, ProcessId, SystemTime, KernelTime, UserTime).
    fn system64(size: u16) -> [u8; 0x20] {
        let mut header = [0; 0x20];
        header[..4].copy_from_slice(&[0x02, 0x00, 0x02, 0xC0]);
        header[4..6].copy_from_slice(&size.to_le_bytes());
        header[6..8].copy_from_slice(&0x0050u16.to_le_bytes());
        header
    }

    /// Appends `event` and pads with `pad` to the next multiple of 8.
    fn push(buffer: &mut Vec<u8>, event: &[u8], pad: u8) {
        buffer.extend_from_slice(event);
        while !buffer.len().is_multiple_of(8) {
            buffer.push(pad);
        }
    }

    fn all(bytes: &[u8]) -> Vec<Result<Event<'_>, ReadError>> {
        Events::new(bytes).collect()
    }

    #[test]
    fn walks_full_instance_and_system_events_to_the_end_mark() {
        let mut buffer = Vec::new();
        // 0x00: FULL_HEADER64 with 5 bytes of data (Size 0x35), garbage padding to 0x38.
        let mut full = full_header64(0x35).to_bytes().to_vec();
        full.extend_from_slice(b"data!");
        push(&mut buffer, &full, 0xAB);
        // 0x38: INSTANCE32 with 2 bytes of data (Size 0x4A), garbage padding to 0x88.
        let mut instance = instance32(0x4A).to_bytes().to_vec();
        instance.extend_from_slice(&[0x11, 0x22]);
        push(&mut buffer, &instance, 0xCD);
        // 0x88: SYSTEM64 with 4 bytes of data (Size 0x24), garbage padding to 0xB0.
        let mut system = system64(0x24).to_vec();
        system.extend_from_slice(&[1, 2, 3, 4]);
        push(&mut buffer, &system, 0x5A);
        // 0xB0: the end mark, then 0xFF fill.
        buffer.extend_from_slice(&[0xFF; 0x50]);

        let events: Vec<Event<'_>> = all(&buffer).into_iter().map(Result::unwrap).collect();
        let summary: Vec<(usize, HeaderType, u16)> = events
            .iter()
            .map(|event| (event.offset, event.header_type, event.size))
            .collect();
        assert_eq!(
            summary,
            [
                (0x00, HeaderType::FULL_HEADER64, 0x35),
                (0x38, HeaderType::INSTANCE32, 0x4A),
                (0x88, HeaderType::SYSTEM64, 0x24),
            ]
        );
        assert_eq!(
            events[0].kind(),
            EventKind::Full {
                header: full_header64(0x35),
                data: b"data!"
            }
        );
        assert_eq!(
            events[1].kind(),
            EventKind::Instance {
                header: instance32(0x4A),
                data: &[0x11, 0x22]
            }
        );
        let EventKind::System {
            header,
            extra,
            data,
        } = events[2].kind()
        else {
            panic!("{:?}", events[2].kind())
        };
        assert_eq!(header.to_bytes(), system[..0x20]);
        assert_eq!(
            (header.version, header.hook_id, header.size),
            (2, 0x0050, 0x24)
        );
        assert!(extra.is_empty());
        assert_eq!(data, [1, 2, 3, 4]);
        assert_eq!(events[2].marker_flags, MarkerFlags::EVENT_TRACE_HEADER);
    }

    /// One event of each kernel, message and opaque kind, then a perfinfo event whose
    /// `Version` announces more words than its `Size` holds.
    #[test]
    fn decodes_kernel_message_and_opaque_kinds() {
        let mut buffer = Vec::new();
        // 0x00: PERFINFO32, Version 2 | PEBS | 1 PMC counter, Size 0x23: 16 bytes of words and 3
        // bytes of data.
        let mut perfinfo = std::vec![0x02, 0x81, 0x10, 0xC0, 0x23, 0x00, 0x10, 0x0F];
        perfinfo.extend_from_slice(&77i64.to_le_bytes());
        perfinfo.extend_from_slice(&5u64.to_le_bytes());
        perfinfo.extend_from_slice(&6u64.to_le_bytes());
        perfinfo.extend_from_slice(&[7, 8, 9]);
        push(&mut buffer, &perfinfo, 0);
        // 0x28: COMPACT64, Version 2, Size 0x19: one byte of data.
        let mut compact = std::vec![0x02, 0x00, 0x04, 0xC0, 0x19, 0x00, 0x20, 0x05];
        compact.extend_from_slice(&[0x11; 4]);
        compact.extend_from_slice(&[0x22; 4]);
        compact.extend_from_slice(&99i64.to_le_bytes());
        compact.push(0xAB);
        push(&mut buffer, &compact, 0);
        // 0x48: a message with a sequence number and system information, Size 0x16.
        let mut message = std::vec![0x16, 0x00, 0x00, 0x90, 0x03, 0x00, 0x21, 0x00];
        message.extend_from_slice(&4u32.to_le_bytes());
        message.extend_from_slice(&10u32.to_le_bytes());
        message.extend_from_slice(&20u32.to_le_bytes());
        message.extend_from_slice(b"hi");
        push(&mut buffer, &message, 0);
        // 0x60: TIMED and WNODE_HEADER, framed size first with nothing known after the marker.
        push(&mut buffer, &[0x06, 0x00, 0x0C, 0xC0, 1, 2], 0);
        push(&mut buffer, &[0x04, 0x00, 0x0E, 0xC0], 0);
        // 0x70: PERFINFO64 announcing 7 counters (56 bytes) in a Size of 0x18 (8 after it).
        let mut short = std::vec![0x02, 0x07, 0x11, 0xC0, 0x18, 0x00, 0x10, 0x0F];
        short.extend_from_slice(&[0; 16]);
        push(&mut buffer, &short, 0);
        buffer.extend_from_slice(&[0xFF; 8]);

        let events: Vec<Event<'_>> = all(&buffer).into_iter().map(Result::unwrap).collect();
        let offsets: Vec<usize> = events.iter().map(|event| event.offset).collect();
        assert_eq!(offsets, [0x00, 0x28, 0x48, 0x60, 0x68, 0x70]);

        let EventKind::PerfInfo {
            header,
            extra,
            data,
        } = events[0].kind()
        else {
            panic!("{:?}", events[0].kind())
        };
        assert_eq!((header.version, header.system_time), (0x8102, 77));
        assert_eq!(header.hook_type(), 0x10);
        assert_eq!(extra.pebs_index(), Some(5));
        assert!(extra.pmc_counters().eq([6]));
        assert_eq!(data, [7, 8, 9]);

        let EventKind::Compact {
            header,
            extra,
            data,
        } = events[1].kind()
        else {
            panic!("{:?}", events[1].kind())
        };
        assert_eq!(header.header_type, HeaderType::COMPACT64);
        assert_eq!(
            (header.thread_id, header.process_id, header.system_time),
            (0x1111_1111, 0x2222_2222, 99)
        );
        assert!(extra.is_empty());
        assert_eq!(data, [0xAB]);

        let EventKind::Message {
            header,
            fields,
            args,
        } = events[2].kind()
        else {
            panic!("{:?}", events[2].kind())
        };
        assert_eq!((header.message_number, header.option_flags.0), (3, 0x21));
        assert_eq!(fields.sequence, Some(4));
        assert_eq!(
            fields
                .system_info
                .map(|info| (info.thread_id, info.process_id)),
            Some((10, 20))
        );
        assert_eq!(args, b"hi");

        assert_eq!(
            events[3].kind(),
            EventKind::Opaque {
                header_type: HeaderType::TIMED,
                bytes: &[0x06, 0x00, 0x0C, 0xC0, 1, 2]
            }
        );
        assert_eq!(
            events[4].kind(),
            EventKind::Opaque {
                header_type: HeaderType::WNODE_HEADER,
                bytes: &[0x04, 0x00, 0x0E, 0xC0]
            }
        );
        assert_eq!(
            events[5].kind(),
            EventKind::Malformed {
                header_type: HeaderType::PERFINFO64,
                bytes: &short,
                error: CodecError::AnnouncedBeyondSize {
                    layout: crate::wire::layout::Layout::PerfInfoTraceHeader,
                    member: "Version",
                    needed: 56,
                    available: 8
                }
            }
        );
    }

    /// An `EVENT_HEADER64` event with one `TS_ID` item (size 0x10, last) and 3 bytes of user
    /// data, then one whose item runs past its `Size`: the walk takes both, and only asking for
    /// the second one's items reports the fault.
    #[test]
    fn event_header_events_keep_their_items_for_later() {
        use crate::wire::codes::EventHeaderFlags;
        use crate::wire::codes::Level;
        use crate::wire::error::CodecError;
        use crate::wire::error::ExtendedItemFault;
        use crate::wire::headers::event_header::EventDescriptor;
        use crate::wire::headers::event_header_extended::ExtendedPayload;

        let header = EventHeader {
            size: 0x50 + 0x10 + 3,
            header_type: HeaderType::EVENT_HEADER64,
            marker_flags: MarkerFlags::EVENT_TRACE_HEADER,
            flags: EventHeaderFlags::EXTENDED_INFO,
            thread_id: 0x1234,
            process_id: 0x42,
            timestamp: 5_464_961_724_402,
            provider_id: Guid::from_fields(1, 2, 3, [4; 8]),
            event_descriptor: EventDescriptor {
                id: 7,
                level: Level::INFORMATION,
                keyword: 0x000F_0000_0000_0003,
                ..EventDescriptor::default()
            },
            ..EventHeader::default()
        };
        let mut buffer = header.to_bytes().to_vec();
        buffer.extend_from_slice(&[0x10, 0, 0x03, 0, 0, 0, 4, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
        buffer.extend_from_slice(b"abc");
        push(&mut buffer, &[], 0xEE);
        let mut broken = header;
        broken.size = 0x50 + 8;
        buffer.extend_from_slice(&broken.to_bytes());
        buffer.extend_from_slice(&[0x10, 0, 0x03, 0, 0, 0, 4, 0]);
        buffer.extend_from_slice(&[0xFF; 8]);

        let events: Vec<Event<'_>> = all(&buffer).into_iter().map(Result::unwrap).collect();
        assert_eq!(events.len(), 2);
        let EventKind::EventHeader {
            header: first,
            body,
        } = events[0].kind()
        else {
            panic!("{:?}", events[0].kind())
        };
        assert_eq!(first, header);
        assert_eq!(body.bytes, &buffer[0x50..0x63]);
        let (items, user_data) = body.split().unwrap();
        assert_eq!(user_data, b"abc");
        let item = items.iter().next().unwrap();
        assert_eq!(item.payload(), Ok(ExtendedPayload::TerminalSessionId(9)));

        let EventKind::EventHeader {
            header: second,
            body,
        } = events[1].kind()
        else {
            panic!("{:?}", events[1].kind())
        };
        assert_eq!(second, broken);
        assert_eq!(
            body.user_data(),
            Err(CodecError::ExtendedItem {
                index: 0,
                offset: 0x50,
                fault: ExtendedItemFault::ItemBeyondEvent {
                    item_size: 0x10,
                    available: 8
                }
            })
        );
    }

    #[test]
    fn an_event_may_fill_the_bytes_exactly() {
        let mut bytes = full_header64(0x33).to_bytes().to_vec();
        bytes.extend_from_slice(&[7, 8, 9]);
        let mut events = Events::new(&bytes);
        let event = events.next().unwrap().unwrap();
        assert_eq!(event.bytes, &bytes[..]);
        assert_eq!(events.next(), None);
        assert_eq!(events.offset(), None);
    }

    #[test]
    fn a_short_or_0xff_tail_ends_the_walk_cleanly() {
        assert!(all(&[]).is_empty());
        assert!(all(&[0x12, 0x34, 0x56]).is_empty());
        assert!(all(&[0xFF; 4]).is_empty());
        let mut bytes = full_header64(0x30).to_bytes().to_vec();
        bytes.extend_from_slice(&[0xC0, 0x14, 0x00]);
        assert_eq!(all(&bytes).len(), 1);
    }

    #[test]
    fn size_past_the_end_is_an_error_then_the_walk_stops() {
        let mut bytes = [0xEE; 0x40];
        bytes[..0x30].copy_from_slice(&full_header64(0x30).to_bytes());
        bytes[0x30..0x34].copy_from_slice(&[0x31, 0x00, 0x14, 0xC0]); // Size 0x31 at 0x30
        let mut events = Events::new(&bytes[..0x40]);
        assert!(events.next().unwrap().is_ok());
        assert_eq!(
            events.next(),
            Some(Err(ReadErrorKind::EventSizeBeyondBuffer {
                offset: 0x30,
                header_type: HeaderType::FULL_HEADER64,
                size: 0x31,
                available: 0x10
            }
            .into()))
        );
        assert_eq!(events.next(), None);
        assert_eq!(events.next(), None);

        // One byte past the end of a single event.
        let bytes = full_header64(0x31).to_bytes();
        let mut events = Events::new(&bytes);
        assert_eq!(
            events.next(),
            Some(Err(ReadErrorKind::EventSizeBeyondBuffer {
                offset: 0,
                header_type: HeaderType::FULL_HEADER64,
                size: 0x31,
                available: 0x30
            }
            .into()))
        );
        assert_eq!(events.next(), None);
    }

    #[test]
    fn size_zero_is_an_error_not_a_loop() {
        let mut events = Events::new(&[0x00, 0x00, 0x14, 0xC0, 0, 0, 0, 0]);
        assert_eq!(
            events.next(),
            Some(Err(ReadErrorKind::EventSizeBelowHeader {
                offset: 0,
                header_type: HeaderType::FULL_HEADER64,
                min_size: 0x30,
                size: 0
            }
            .into()))
        );
        assert_eq!(events.next(), None);

        // A type without a fixed length still needs the four marker bytes.
        let mut events = Events::new(&[0x00, 0x00, 0x0D, 0xC0, 0, 0, 0, 0]);
        assert!(matches!(
            events.next(),
            Some(Err(ReadError {
                buffer: None,
                kind: ReadErrorKind::EventSizeBelowHeader {
                    header_type: HeaderType::ERROR,
                    min_size: 4,
                    ..
                }
            }))
        ));
        assert_eq!(events.next(), None);
    }

    #[test]
    fn unknown_markers_and_types_are_errors() {
        assert_eq!(
            all(&[0x30, 0x00, 0x14, 0x40, 0, 0, 0, 0]),
            [Err(ReadErrorKind::NotAnEventHeader {
                offset: 0,
                found: 0x4014_0030
            }
            .into())]
        );
        assert_eq!(
            all(&[0x30, 0x00, 0x16, 0xC0, 0, 0, 0, 0]),
            [Err(ReadErrorKind::UnknownEventHeaderType {
                offset: 0,
                header_type: HeaderType(0x16)
            }
            .into())]
        );
        assert_eq!(
            all(&[0x02, 0x00, 0x02, 0xC0, 0x20]),
            [Err(ReadErrorKind::EventHeaderTruncated {
                offset: 0,
                header_type: HeaderType::SYSTEM64,
                needed: 6,
                available: 5
            }
            .into())]
        );
    }

    #[test]
    fn a_message_header_is_size_first_whatever_its_byte_2() {
        let mut bytes = [0xFF; 0x18];
        bytes[..4].copy_from_slice(&[0x0C, 0x00, 0x00, 0x90]);
        let events = all(&bytes);
        let [Ok(event)] = events.as_slice() else {
            panic!("{events:?}")
        };
        assert_eq!(
            (event.header_type, event.size, event.marker_flags),
            (HeaderType::MESSAGE, 0x0C, MarkerFlags(0x90))
        );
    }

    #[test]
    fn errors_say_what_was_expected_and_where() {
        let error = ReadErrorKind::EventSizeBeyondBuffer {
            offset: 0x30,
            header_type: HeaderType::FULL_HEADER64,
            size: 0x11,
            available: 0x10,
        };
        assert_eq!(
            std::format!("{error}"),
            "FULL_HEADER64 event at offset 0x30: expected a Size of at most the 16 bytes left, \
             found 17"
        );
    }

    /// Events of the header types the walk knows, each with `extra` bytes of data after its fixed
    /// header and `pad` in its padding; returns the buffer and each event's (offset, type, size).
    fn build(events: &[(usize, u8, u8)]) -> (Vec<u8>, Vec<(usize, HeaderType, u16)>) {
        const TYPES: [HeaderType; 6] = [
            HeaderType::FULL_HEADER32,
            HeaderType::FULL_HEADER64,
            HeaderType::INSTANCE64,
            HeaderType::SYSTEM32,
            HeaderType::PERFINFO64,
            HeaderType::EVENT_HEADER64,
        ];
        let mut buffer = Vec::new();
        let mut expected = Vec::new();
        for &(which, extra, pad) in events {
            let header_type = TYPES[which % TYPES.len()];
            let size = header_type.fixed_len().unwrap() + usize::from(extra);
            let size = u16::try_from(size).unwrap();
            let mut event = std::vec![0x5Au8; usize::from(size)];
            event[2..4].copy_from_slice(&[header_type.0, 0xC0]);
            let size_at = match header_type.family().unwrap() {
                HeaderFamily::SizeFirst => 0,
                HeaderFamily::VersionFirst => 4,
            };
            event[size_at..size_at + 2].copy_from_slice(&size.to_le_bytes());
            expected.push((buffer.len(), header_type, size));
            push(&mut buffer, &event, pad);
        }
        (buffer, expected)
    }

    /// The laws of a walk over any bytes: no panic, offsets strictly increasing and 8-aligned,
    /// every event inside the bytes, at most `len / 8 + 2` steps.
    fn check_walk(bytes: &[u8]) -> Result<(), TestCaseError> {
        let mut previous: Option<usize> = None;
        let mut steps = 0usize;
        for item in Events::new(bytes) {
            steps += 1;
            prop_assert!(steps <= bytes.len() / 8 + 2);
            let offset = match item {
                Ok(event) => {
                    let end = event.offset + usize::from(event.size);
                    prop_assert!(end <= bytes.len());
                    prop_assert_eq!(event.bytes, &bytes[event.offset..end]);
                    prop_assert!(event.size >= 4);
                    event.offset
                }
                Err(ReadError {
                    buffer: None,
                    kind:
                        ReadErrorKind::NotAnEventHeader { offset, .. }
                        | ReadErrorKind::UnknownEventHeaderType { offset, .. }
                        | ReadErrorKind::EventHeaderTruncated { offset, .. }
                        | ReadErrorKind::EventSizeBelowHeader { offset, .. }
                        | ReadErrorKind::EventSizeBeyondBuffer { offset, .. },
                }) => offset,
                Err(other) => return Err(TestCaseError::fail(std::format!("{other:?}"))),
            };
            prop_assert!(offset < bytes.len());
            prop_assert_eq!(offset % 8, 0);
            prop_assert!(previous.is_none_or(|previous| offset > previous));
            previous = Some(offset);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn built_buffers_walk_back_to_their_events(
            events in proptest::collection::vec((0..6usize, any::<u8>(), any::<u8>()), 0..12),
            end_mark in any::<bool>(),
            mutations in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        ) {
            let (mut buffer, expected) = build(&events);
            if end_mark {
                buffer.extend_from_slice(&[0xFF; 12]);
            }
            let walked: Vec<(usize, HeaderType, u16)> = Events::new(&buffer)
                .map(|item| item.map(|event| (event.offset, event.header_type, event.size)))
                .collect::<Result<_, _>>()
                .unwrap();
            prop_assert_eq!(walked, expected);
            for (at, byte) in mutations {
                if !buffer.is_empty() {
                    let len = buffer.len();
                    buffer[at % len] = byte;
                }
            }
            check_walk(&buffer)?;
        }

        // Offsets and termination do not depend on the host's byte order, and under Miri this
        // one property takes minutes: it runs natively, and the fuzz targets cover it too.
        #[test]
        #[cfg_attr(miri, ignore)]
        fn walks_any_bytes_without_panicking_or_looping(
            bytes in proptest::collection::vec(
                prop_oneof![any::<u8>(), Just(0xC0u8), Just(0x14u8), Just(0x02u8), Just(0x00u8)],
                0..600,
            )
        ) {
            check_walk(&bytes)?;
        }
    }
}
