//! The consumer's view of one trace buffer: its header, its events, and each classic event
//! delivered as an `EVENT_TRACE`.

use core::iter::FusedIterator;

use crate::invariant::usize_from_u32;
use crate::read::error::{BufferPosition, ReadError, ReadErrorKind};
use crate::read::events::{Event, EventKind, Events};
use crate::wire::file::wmi_buffer_header::WmiBufferHeader;
use crate::wire::guid::Guid;
use crate::wire::headers::event_instance_guid_header::EventInstanceGuidHeader;
use crate::wire::layout::Bitness;
use crate::wire::records::event_trace::EventTrace;

/// One uncompressed trace buffer: its [`WmiBufferHeader`] and the bytes of its events.
///
/// ```
/// use etw_classic::TraceBuffer;
///
/// // A buffer whose events end right after its header (Offset 0x48), 0xFF-filled after that.
/// let mut bytes = [0xFFu8; 512];
/// bytes[..0x48].fill(0);
/// bytes[0x30] = 0x48;
/// let buffer = TraceBuffer::parse(&bytes)?;
/// assert_eq!(buffer.events().count(), 0);
/// # Ok::<(), etw_classic::ReadError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TraceBuffer<'a> {
    /// The buffer's header.
    pub header: WmiBufferHeader,
    /// The events' bytes: from the end of the header to `Offset`.
    events: &'a [u8],
    /// Where the buffer lies in an .etl file, named in the errors of its events.
    buffer: Option<BufferPosition>,
}

impl<'a> TraceBuffer<'a> {
    /// Reads a buffer as it is in memory or in an .etl file: the 0x48-byte header, then events
    /// up to the header's `Offset` ("Offset when flushing", where the events end).
    ///
    /// # Errors
    /// - [`ReadErrorKind::Codec`] ([`CodecError::Truncated`](crate::wire::CodecError::Truncated))
    ///   when `buffer` is shorter than the header;
    /// - [`ReadErrorKind::CompressedBuffer`] when `BufferFlag` has `ETW_BUFFER_FLAG_COMPRESSED`
    ///   (decompress the events and use [`from_parts`](Self::from_parts));
    /// - [`ReadErrorKind::BufferOffsetOutOfRange`] when `Offset` is below 0x48 or past the end of
    ///   `buffer`.
    pub fn parse(buffer: &'a [u8]) -> Result<Self, ReadError> {
        let (header, _) = WmiBufferHeader::parse(buffer)?;
        if header.is_compressed() {
            return Err(ReadErrorKind::CompressedBuffer {
                buffer_flag: header.buffer_flag,
            }
            .into());
        }
        let out_of_range = ReadErrorKind::BufferOffsetOutOfRange {
            offset: header.offset,
            min: WmiBufferHeader::LEN,
            max: buffer.len(),
        };
        let events = buffer
            .get(WmiBufferHeader::LEN..usize_from_u32(header.offset))
            .ok_or(out_of_range)?;
        Ok(Self {
            header,
            events,
            buffer: None,
        })
    }

    /// A buffer from a header and the bytes of its events, for events that were not stored
    /// right after the header (a decompressed buffer, for one).
    pub const fn from_parts(header: WmiBufferHeader, events: &'a [u8]) -> Self {
        Self {
            header,
            events,
            buffer: None,
        }
    }

    /// The same buffer, known to be the one at `buffer` in an .etl file: the errors of its
    /// events name it.
    pub const fn in_buffer(self, buffer: BufferPosition) -> Self {
        Self {
            buffer: Some(buffer),
            ..self
        }
    }

    /// Where the buffer lies in an .etl file, when known.
    pub const fn position(&self) -> Option<BufferPosition> {
        self.buffer
    }

    /// The bytes of the events, from the end of the header.
    pub const fn event_bytes(&self) -> &'a [u8] {
        self.events
    }

    /// Every event of the buffer, of any header type; [`Event::offset`] counts from the end of
    /// the buffer header.
    pub const fn events(&self) -> Events<'a> {
        Events::in_buffer(self.events, self.buffer)
    }

    /// The classic events of the buffer (`FULL_HEADER32/64` and `INSTANCE32/64`), each
    /// delivered as the `EVENT_TRACE` a consumer of `bitness` receives; other events are
    /// skipped. A malformed event ends the walk with its error, as [`Events`] does.
    pub const fn classic_events(&self, bitness: Bitness) -> ClassicEvents<'a> {
        ClassicEvents {
            events: self.events(),
            header: self.header,
            bitness,
        }
    }

    /// Delivers one event of this buffer as an `EVENT_TRACE` in the `bitness` layout; `None`
    /// for events that are not classic ones.
    ///
    /// - `Header`: the event's 0x30-byte `EVENT_TRACE_HEADER`, as stored.
    /// - `InstanceId`, `ParentInstanceId`, `ParentGuid`: from an instance event's
    ///   `EVENT_INSTANCE_GUID_HEADER`; zero for a full-header event.
    /// - `MofData`: the consumer receives a pointer; here it is the offset of the event data
    ///   from the start of the buffer (header included), and [`DeliveredEvent::data`] is the
    ///   slice itself. `MofLength`: `Size` minus the header.
    /// - `BufferContext`: the buffer header's `ClientContext`.
    ///
    /// # Errors
    /// - [`ReadErrorKind::Event`] with [`CodecError::PointerTooWide`](crate::wire::CodecError::PointerTooWide) when a 32-bit `MofData` cannot hold the data's offset (only
    ///   in buffers over 4 GiB);
    /// - [`ReadErrorKind::EventDataOutOfRange`] when the data's offset does not fit a `u64` or
    ///   its length a `u32`, which only an `event` built by hand can claim.
    pub fn deliver(
        &self,
        event: &Event<'a>,
        bitness: Bitness,
    ) -> Option<Result<DeliveredEvent<'a>, ReadError>> {
        deliver(&self.header, self.buffer, event, bitness)
    }
}

/// [`TraceBuffer::deliver`], for an event of the buffer whose header is `header`.
fn deliver<'a>(
    header: &WmiBufferHeader,
    buffer: Option<BufferPosition>,
    event: &Event<'a>,
    bitness: Bitness,
) -> Option<Result<DeliveredEvent<'a>, ReadError>> {
    let (instance, data, header_len) = match event.kind() {
        EventKind::Full { header, data } => (
            EventInstanceGuidHeader {
                header,
                instance_id: 0,
                parent_instance_id: 0,
                parent_guid: Guid::NIL,
            },
            data,
            crate::wire::headers::event_trace_header::EventTraceHeader::LEN,
        ),
        EventKind::Instance { header, data } => (header, data, EventInstanceGuidHeader::LEN),
        // Only the classic headers are delivered as an `EVENT_TRACE`.
        _ => return None,
    };
    // For an event of a walk, the data's offset lies within the buffer and its length is below
    // 64 KiB; an `Event` built by hand (its fields are public) may claim more than `MofData` and
    // `MofLength` hold.
    let mof_data = WmiBufferHeader::LEN
        .checked_add(header_len)
        .and_then(|headers| event.offset.checked_add(headers))
        .and_then(|data_offset| u64::try_from(data_offset).ok());
    let (Some(mof_data), Ok(mof_length)) = (mof_data, u32::try_from(data.len())) else {
        let kind = ReadErrorKind::EventDataOutOfRange {
            offset: event.offset,
            data_len: data.len(),
        };
        return Some(Err(ReadError::new(buffer, kind)));
    };
    Some(
        EventTrace::new(
            bitness,
            instance,
            mof_data,
            mof_length,
            header.client_context,
        )
        .map(|event_trace| DeliveredEvent {
            event_trace,
            data,
            offset: event.offset,
        })
        .map_err(|error| {
            let offset = event.offset;
            ReadError::new(buffer, ReadErrorKind::Event { offset, error })
        }),
    )
}

/// A classic event as a consumer receives it: the `EVENT_TRACE` and its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct DeliveredEvent<'a> {
    /// The `EVENT_TRACE`, `MofData` holding the data's offset from the start of the buffer.
    pub event_trace: EventTrace,
    /// The event data (`MofLength` bytes).
    pub data: &'a [u8],
    /// Where the event starts, from the end of the buffer header (as [`Event::offset`]).
    pub offset: usize,
}

/// The iterator of [`TraceBuffer::classic_events`].
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClassicEvents<'a> {
    events: Events<'a>,
    header: WmiBufferHeader,
    bitness: Bitness,
}

impl<'a> Iterator for ClassicEvents<'a> {
    type Item = Result<DeliveredEvent<'a>, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.events.next()? {
                Ok(event) => {
                    if let Some(delivered) =
                        deliver(&self.header, self.events.buffer(), &event, self.bitness)
                    {
                        return Some(delivered);
                    }
                }
                Err(error) => return Some(Err(error)),
            }
        }
    }
}

impl FusedIterator for ClassicEvents<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_built_event_past_any_buffer_is_an_error() {
        let mut bytes = [0u8; 0x48 + 0x38];
        bytes[0x30] = 0x48 + 0x38;
        bytes[0x48..0x4C].copy_from_slice(&[0x38, 0x00, 0x14, 0xC0]);
        let buffer = TraceBuffer::parse(&bytes).unwrap();
        let walked = buffer.events().next().unwrap().unwrap();
        let delivered = buffer.deliver(&walked, Bitness::Bits64).unwrap().unwrap();
        assert_eq!(delivered.event_trace.mof_data(), 0x48 + 0x30);
        assert_eq!(delivered.data.len(), 8);

        let far = Event {
            offset: usize::MAX - 0x40,
            ..walked
        };
        assert_eq!(
            buffer.deliver(&far, Bitness::Bits64),
            Some(Err(ReadError::new(
                None,
                ReadErrorKind::EventDataOutOfRange {
                    offset: usize::MAX - 0x40,
                    data_len: 8
                }
            )))
        );
    }
}
