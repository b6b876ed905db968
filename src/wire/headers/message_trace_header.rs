//! `MESSAGE_TRACE_HEADER`: the 8-byte header of message events (WPP software tracing,
//! `TraceMessage`), and the optional fields its `OptionFlags` announce after it.
//!
//! No PerfView sample trace holds a message event, so nothing here is checked on real bytes. The
//! layout is ntwmi.h's; the optional fields, their order and their widths are those
//! docs:TraceMessage lists and that the Windows Research Kernel's `WmiTraceMessageVa` (the
//! kernel's writer of these events, `traceapi.c`) writes, with no padding between them.

use crate::wire::codes::MarkerFlags;
use crate::wire::error::CodecError;
use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::guid::Guid;
use crate::wire::layout::Layout;

/// Byte offsets of the members, named after ntwmi.h.
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const SIZE: Field<0, 2> = Field::at(0x00); //                              Marker: USHORT Size
    pub(super) const RESERVED: Field<{ SIZE.end() }, 1> = Field::at(0x02); //             Marker: UCHAR Reserved
    pub(super) const VERSION: Field<{ RESERVED.end() }, 1> = Field::at(0x03); //          Marker: UCHAR Version
    pub(super) const MESSAGE_NUMBER: Field<{ VERSION.end() }, 2> = Field::at(0x04); //    Packet: USHORT MessageNumber
    pub(super) const OPTION_FLAGS: Field<{ MESSAGE_NUMBER.end() }, 2> = Field::at(0x06); // Packet: USHORT OptionFlags
}

const _: () = offset::OPTION_FLAGS.ends_at(MessageTraceHeader::LEN);

open_flags! {
    /// `OptionFlags` of a message header: the `TRACE_MESSAGE_*` flags a provider passed to
    /// `TraceMessage` as `MessageFlags` (evntrace.h, as in mingw-w64 and docs:TraceMessage),
    /// which say which [`MessageFields`] follow the header.
    ///
    /// ntwmi.h gives the two high bits other names: `TRACE_MESSAGE_USERMODE` (0x40, "message came
    /// from user mode") and `TRACE_MESSAGE_WOW` (0x80), the same values as `POINTER32` and
    /// `POINTER64`. `TRACE_MESSAGE_FLAG_MASK` is 0xFFFF: any bit is kept.
    pub struct TraceMessageFlags(u16) {
        /// `TRACE_MESSAGE_SEQUENCE` (0x01): a `u32` sequence number follows the header.
        SEQUENCE = 0x0001,
        /// `TRACE_MESSAGE_GUID` (0x02): the 16-byte message GUID follows (unless `COMPONENTID`
        /// is also set).
        GUID = 0x0002,
        /// `TRACE_MESSAGE_COMPONENTID` (0x04): a `u32` component id follows instead of the GUID.
        COMPONENTID = 0x0004,
        /// `TRACE_MESSAGE_TIMESTAMP` (0x08): an `i64` time stamp follows.
        TIMESTAMP = 0x0008,
        /// `TRACE_MESSAGE_PERFORMANCE_TIMESTAMP` (0x10): the time stamp is a performance counter
        /// value; no field of its own.
        PERFORMANCE_TIMESTAMP = 0x0010,
        /// `TRACE_MESSAGE_SYSTEMINFO` (0x20): the thread id and process id, a `u32` each, follow.
        SYSTEMINFO = 0x0020,
        /// `TRACE_MESSAGE_POINTER32` (0x40; ntwmi.h `TRACE_MESSAGE_USERMODE`): no field.
        POINTER32 = 0x0040,
        /// `TRACE_MESSAGE_POINTER64` (0x80; ntwmi.h `TRACE_MESSAGE_WOW`): no field.
        POINTER64 = 0x0080,
    }
}

impl TraceMessageFlags {
    /// ntwmi.h `TRACE_MESSAGE_USERMODE`, the same bit as [`TraceMessageFlags::POINTER32`].
    pub const USERMODE: Self = Self::POINTER32;
    /// ntwmi.h `TRACE_MESSAGE_WOW`, the same bit as [`TraceMessageFlags::POINTER64`].
    pub const WOW: Self = Self::POINTER64;
    /// The flags that announce a field: `SEQUENCE`, `GUID`, `COMPONENTID`, `TIMESTAMP`,
    /// `SYSTEMINFO`.
    pub const WITH_FIELDS: Self = Self(0x002F);
}

/// `MESSAGE_TRACE_HEADER` (ntwmi.h; not in the public SDK), 8 bytes: a "size first" header with no
/// `HeaderType` byte. A trace buffer's walk knows it by `TRACE_MESSAGE` (0x10) in byte 3; its
/// header type, [`HeaderType::MESSAGE`](crate::wire::HeaderType::MESSAGE) (0x0F), is the
/// enumeration value, never a stored byte.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 2 | `Marker.Size` | [`size`](Self::size): header + optional fields + arguments |
/// | 0x02 | 1 | `Marker.Reserved` | [`reserved`](Self::reserved) |
/// | 0x03 | 1 | `Marker.Version` | [`version`](Self::version): 0x90 |
/// | 0x04 | 2 | `Packet.MessageNumber` | [`message_number`](Self::message_number) |
/// | 0x06 | 2 | `Packet.OptionFlags` | [`option_flags`](Self::option_flags) |
///
/// ntwmi.h also documents the packing as `| Marker(8) | Reserved(8) | Size(16) |
/// MessageNumber(16) | Flags(16)` (`TRACE_MESSAGE 0x10000000`). After the header come the
/// [`MessageFields`] its `OptionFlags` announce, then the message's arguments up to `Size`.
///
/// How other readers take it: dissect.etl 3.14 knows the header by byte 3 == 0x90, reads the
/// sequence number, the GUID only when `COMPONENTID` is clear, the time stamp and the system
/// information each only if enough bytes are left, and gives up (`NotImplementedError`) on
/// `COMPONENTID`; airbus-cert/etl-parser matches the `u16` at 2 against 0x9000 and always reads a
/// GUID, a thread id and a process id, which is right only for `OptionFlags` 0x22.
///
/// ```
/// use etw_classic::wire::{MessageFields, MessageGuid, MessageTraceHeader, TraceMessageFlags};
/// // Size 0x1A: the header, a sequence number, a component id, a time stamp, 2 argument bytes.
/// let mut event = [0u8; 0x1A];
/// event[..8].copy_from_slice(&[0x1A, 0x00, 0x00, 0x90, 0x07, 0x00, 0x0D, 0x00]);
/// event[8..12].copy_from_slice(&5u32.to_le_bytes());
/// event[12..16].copy_from_slice(&0x42u32.to_le_bytes());
/// event[16..24].copy_from_slice(&1234i64.to_le_bytes());
/// let (header, data, _) = MessageTraceHeader::parse_event(&event)?;
/// assert_eq!(header.option_flags, TraceMessageFlags(0x0D));
/// let (fields, args) = header.split_fields(data)?;
/// assert_eq!(fields.sequence, Some(5));
/// assert_eq!(fields.message_guid, Some(MessageGuid::ComponentId(0x42)));
/// assert_eq!((fields.timestamp, fields.system_info), (Some(1234), None));
/// assert_eq!(args.len(), 2);
/// # Ok::<(), etw_classic::CodecError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MessageTraceHeader {
    /// `Size`: "Total Size of the message including header" (ntwmi.h).
    pub size: u16,
    /// `Reserved`: "Unused and reserved" (ntwmi.h). Kept as found.
    pub reserved: u8,
    /// `Version`: "The message structure type (TRACE_MESSAGE_FLAG)" (ntwmi.h), the marker's high
    /// byte: [`MessageTraceHeader::VERSION`], 0x90, in a trace buffer.
    pub version: MarkerFlags,
    /// `Packet.MessageNumber`: "The message Number, index of messages by GUID Or ComponentID"
    /// (ntwmi.h).
    pub message_number: u16,
    /// `Packet.OptionFlags`: "Flags associated with the message" (ntwmi.h), which announce the
    /// [`MessageFields`] after the header.
    pub option_flags: TraceMessageFlags,
}

impl MessageTraceHeader {
    /// Bytes in a `MESSAGE_TRACE_HEADER`.
    pub const LEN: usize = Layout::MessageTraceHeader.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::MessageTraceHeader;
    /// `TRACE_HEADER_FLAG | TRACE_MESSAGE` (0x90): the `Version` byte of a message header in a
    /// trace buffer (ntwmi.h `TRACE_HEADER_FLAG 0x80000000`, `TRACE_MESSAGE 0x10000000`).
    pub const VERSION: MarkerFlags = MarkerFlags(0x90);

    /// Decodes any 8 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            size: read.u16(offset::SIZE),
            reserved: read.u8(offset::RESERVED),
            version: MarkerFlags(read.u8(offset::VERSION)),
            message_number: read.u16(offset::MESSAGE_NUMBER),
            option_flags: TraceMessageFlags(read.u16(offset::OPTION_FLAGS)),
        }
    }

    /// Encodes the members into the 8 bytes `write` covers, setting every one of them.
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        write.u16(offset::SIZE, self.size);
        write.u8(offset::RESERVED, self.reserved);
        write.u8(offset::VERSION, self.version.0);
        write.u16(offset::MESSAGE_NUMBER, self.message_number);
        write.u16(offset::OPTION_FLAGS, self.option_flags.0);
    }

    /// The `Marker` view of bytes 0..4, little-endian: `Version << 24 | Reserved << 16 | Size`.
    pub const fn marker(&self) -> u32 {
        let [size_low, size_high] = self.size.to_le_bytes();
        u32::from_le_bytes([size_low, size_high, self.reserved, self.version.0])
    }

    /// The `Header` view of bytes 4..8 (the whole `WMI_TRACE_MESSAGE_PACKET`), little-endian:
    /// `OptionFlags << 16 | MessageNumber`.
    pub const fn header(&self) -> u32 {
        let [number_low, number_high] = self.message_number.to_le_bytes();
        let [flags_low, flags_high] = self.option_flags.0.to_le_bytes();
        u32::from_le_bytes([number_low, number_high, flags_low, flags_high])
    }

    /// Splits the [`MessageFields`] this header's `OptionFlags` announce off the front of `data`
    /// (the bytes after the header up to `Size`, as [`parse_event`](Self::parse_event) returns
    /// them), and returns them with the message arguments after them.
    ///
    /// # Errors
    /// [`CodecError::AnnouncedBeyondSize`] for `OptionFlags` when the fields do not fit in
    /// `data`.
    pub fn split_fields<'b>(
        &self,
        data: &'b [u8],
    ) -> Result<(MessageFields, &'b [u8]), CodecError> {
        MessageFields::parse(self.option_flags, data)
    }

    /// Reads the header at the start of `input` as a trace buffer holds it, and returns it with
    /// the bytes after the header.
    ///
    /// # Errors
    /// [`CodecError::Truncated`] for fewer than 8 bytes; [`CodecError::NotAMessageHeader`] when
    /// `Version` (byte 3) lacks `TRACE_HEADER_FLAG | TRACE_MESSAGE` (0x90), the two bits a
    /// trace buffer's walk knows a message header by; [`CodecError::SizeBelowHeader`] for a
    /// `Size` under 8.
    pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), CodecError> {
        let (bytes, rest) = field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
        let header = Self::from_bytes(bytes);
        if !header.version.contains(Self::VERSION) {
            return Err(CodecError::NotAMessageHeader {
                layout: Self::LAYOUT,
                found: header.version,
            });
        }
        if usize::from(header.size) < Self::LEN {
            return Err(CodecError::SizeBelowHeader {
                layout: Self::LAYOUT,
                header_len: Self::LEN,
                size: header.size,
            });
        }
        Ok((header, rest))
    }

    /// Reads one whole event: the header as [`parse`](Self::parse) does, then the `Size - 8`
    /// bytes after it (the optional fields, then the arguments:
    /// [`split_fields`](Self::split_fields) separates them). Returns the header, those bytes and
    /// the bytes after the event.
    ///
    /// # Errors
    /// Those of [`parse`](Self::parse), and [`CodecError::SizeBeyondInput`] when `Size` runs
    /// past the end of `input`.
    pub fn parse_event(input: &[u8]) -> Result<(Self, &[u8], &[u8]), CodecError> {
        let (header, _) = Self::parse(input)?;
        let (data, rest) = field::split_event(Self::LAYOUT, input, header.size)?;
        Ok((header, data, rest))
    }
}

field::fixed_layout_entry_points!(MessageTraceHeader, emit);

/// The second optional field of a message: the `MessageGuid` argument of `TraceMessage`, "the
/// class GUID or component ID that identifies the message" (docs:TraceMessage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MessageGuid {
    /// `TRACE_MESSAGE_GUID`: the event trace class GUID, 16 bytes.
    Guid(Guid),
    /// `TRACE_MESSAGE_COMPONENTID`: a component id, 4 bytes (the first `ULONG` of the
    /// `MessageGuid` argument, as `WmiTraceMessageVa` copies it).
    ComponentId(u32),
}

/// `TRACE_MESSAGE_SYSTEMINFO`: who logged the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MessageSystemInfo {
    /// The thread id, a `u32`.
    pub thread_id: u32,
    /// The process id, a `u32`.
    pub process_id: u32,
}

/// The optional fields between a message header and its arguments, each present when its
/// `OptionFlags` bit is set, in this order and packed (docs:TraceMessage: "The information is
/// included in the event data in the following order"; the Windows Research Kernel's
/// `WmiTraceMessageVa` writes them so, with the comment "the order in which these are added is
/// critical"):
///
/// | order | flag | field | bytes |
/// |---|---|---|---|
/// | 1 | `SEQUENCE` | [`sequence`](Self::sequence) | 4 |
/// | 2 | `COMPONENTID`, else `GUID` | [`message_guid`](Self::message_guid) | 4, else 16 |
/// | 3 | `TIMESTAMP` | [`timestamp`](Self::timestamp) | 8 |
/// | 4 | `SYSTEMINFO` | [`system_info`](Self::system_info): thread id, then process id | 4 + 4 |
///
/// "TRACE_MESSAGE_COMPONENTID and TRACE_MESSAGE_GUID are mutually exclusive" (docs:TraceMessage);
/// when both bits are set, the component id is read, as `WmiTraceMessageVa` writes it and the
/// consumer side of the same sources reads it ("Can't have both"). `PERFORMANCE_TIMESTAMP`,
/// `POINTER32` and `POINTER64` announce no field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MessageFields {
    /// `TRACE_MESSAGE_SEQUENCE`: the sequence number ("starts at one").
    pub sequence: Option<u32>,
    /// `TRACE_MESSAGE_COMPONENTID` or `TRACE_MESSAGE_GUID`: what identifies the message.
    pub message_guid: Option<MessageGuid>,
    /// `TRACE_MESSAGE_TIMESTAMP`: when the message was logged, in the session's clock (a
    /// performance counter value with `PERFORMANCE_TIMESTAMP`).
    pub timestamp: Option<i64>,
    /// `TRACE_MESSAGE_SYSTEMINFO`: the thread and process that logged it.
    pub system_info: Option<MessageSystemInfo>,
}

impl MessageFields {
    /// The most bytes the fields take: 4 + 16 + 8 + 8.
    pub const MAX_LEN: usize = 36;

    /// Bytes of fields `option_flags` announces.
    pub fn announced_len(option_flags: TraceMessageFlags) -> usize {
        let has = |flag| option_flags.contains(flag);
        let sequence: usize = if has(TraceMessageFlags::SEQUENCE) {
            4
        } else {
            0
        };
        let message_guid = if has(TraceMessageFlags::COMPONENTID) {
            4
        } else if has(TraceMessageFlags::GUID) {
            16
        } else {
            0
        };
        let timestamp = if has(TraceMessageFlags::TIMESTAMP) {
            8
        } else {
            0
        };
        let system_info = if has(TraceMessageFlags::SYSTEMINFO) {
            8
        } else {
            0
        };
        // At most 36: no overflow.
        sequence
            .wrapping_add(message_guid)
            .wrapping_add(timestamp)
            .wrapping_add(system_info)
    }

    /// Reads the fields `option_flags` announces from the front of `data` (the bytes after the
    /// header up to `Size`), and returns them with the arguments after them.
    ///
    /// # Errors
    /// [`CodecError::AnnouncedBeyondSize`] for `MESSAGE_TRACE_HEADER.OptionFlags` when the
    /// fields do not fit in `data`.
    pub fn parse(
        option_flags: TraceMessageFlags,
        data: &[u8],
    ) -> Result<(Self, &[u8]), CodecError> {
        let needed = Self::announced_len(option_flags);
        let beyond = CodecError::AnnouncedBeyondSize {
            layout: Layout::MessageTraceHeader,
            member: "OptionFlags",
            needed,
            available: data.len(),
        };
        let (mut fields, args) = data.split_at_checked(needed).ok_or(beyond)?;
        let has = |flag| option_flags.contains(flag);
        let mut parsed = Self::default();
        // `fields` holds exactly the announced bytes, so every `take` finds its bytes.
        if has(TraceMessageFlags::SEQUENCE) {
            parsed.sequence = Some(u32::from_le_bytes(take(&mut fields).ok_or(beyond)?));
        }
        if has(TraceMessageFlags::COMPONENTID) {
            let id = u32::from_le_bytes(take(&mut fields).ok_or(beyond)?);
            parsed.message_guid = Some(MessageGuid::ComponentId(id));
        } else if has(TraceMessageFlags::GUID) {
            let guid = Guid::from_bytes_le(take(&mut fields).ok_or(beyond)?);
            parsed.message_guid = Some(MessageGuid::Guid(guid));
        }
        if has(TraceMessageFlags::TIMESTAMP) {
            parsed.timestamp = Some(i64::from_le_bytes(take(&mut fields).ok_or(beyond)?));
        }
        if has(TraceMessageFlags::SYSTEMINFO) {
            let thread_id = u32::from_le_bytes(take(&mut fields).ok_or(beyond)?);
            let process_id = u32::from_le_bytes(take(&mut fields).ok_or(beyond)?);
            parsed.system_info = Some(MessageSystemInfo {
                thread_id,
                process_id,
            });
        }
        Ok((parsed, args))
    }

    /// The flags that announce exactly these fields (`COMPONENTID` or `GUID` by the kind of
    /// [`message_guid`](Self::message_guid)); an encoder sets them in `OptionFlags`.
    pub const fn option_flags(&self) -> TraceMessageFlags {
        let mut flags = TraceMessageFlags::EMPTY;
        if self.sequence.is_some() {
            flags = flags.with(TraceMessageFlags::SEQUENCE);
        }
        match self.message_guid {
            Some(MessageGuid::ComponentId(_)) => {
                flags = flags.with(TraceMessageFlags::COMPONENTID);
            }
            Some(MessageGuid::Guid(_)) => flags = flags.with(TraceMessageFlags::GUID),
            None => {}
        }
        if self.timestamp.is_some() {
            flags = flags.with(TraceMessageFlags::TIMESTAMP);
        }
        if self.system_info.is_some() {
            flags = flags.with(TraceMessageFlags::SYSTEMINFO);
        }
        flags
    }

    /// Bytes the fields take.
    pub fn len(&self) -> usize {
        Self::announced_len(self.option_flags())
    }

    /// Whether no field is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the present fields, in their order, to the start of `out` and returns the rest of
    /// `out`. Parsing them back with [`option_flags`](Self::option_flags) (or any flags that
    /// announce the same fields) gives `self`.
    ///
    /// # Errors
    /// [`CodecError::OutputTooSmall`] when `out` is shorter than [`len`](Self::len); nothing is
    /// written then.
    pub fn emit<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], CodecError> {
        let needed = self.len();
        let found = out.len();
        let (mut slot, rest) =
            out.split_at_mut_checked(needed)
                .ok_or(CodecError::OutputTooSmall {
                    layout: Layout::MessageTraceHeader,
                    needed,
                    found,
                })?;
        if let Some(sequence) = self.sequence {
            put(&mut slot, sequence.to_le_bytes());
        }
        match self.message_guid {
            Some(MessageGuid::ComponentId(id)) => put(&mut slot, id.to_le_bytes()),
            Some(MessageGuid::Guid(guid)) => put(&mut slot, guid.to_bytes_le()),
            None => {}
        }
        if let Some(timestamp) = self.timestamp {
            put(&mut slot, timestamp.to_le_bytes());
        }
        if let Some(info) = self.system_info {
            put(&mut slot, info.thread_id.to_le_bytes());
            put(&mut slot, info.process_id.to_le_bytes());
        }
        Ok(rest)
    }
}

/// The first `N` bytes of `bytes`, which then starts after them; `None` if there are fewer.
fn take<const N: usize>(bytes: &mut &[u8]) -> Option<[u8; N]> {
    let (first, rest) = bytes.split_first_chunk::<N>()?;
    *bytes = rest;
    Some(*first)
}

/// Writes `value` at the start of `out`, which then starts after it (nothing if it has no room,
/// which `emit` rules out by sizing `out` first).
fn put<const N: usize>(out: &mut &mut [u8], value: [u8; N]) {
    let slot = core::mem::take(out);
    // `emit` split off exactly the bytes of the fields it puts.
    debug_assert!(slot.len() >= N, "broken invariant: no room for a field");
    if let Some((first, rest)) = slot.split_first_chunk_mut::<N>() {
        *first = value;
        *out = rest;
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::wire::field::ascending;
    use proptest::prelude::*;
    use std::vec::Vec;

    #[test]
    fn members_lie_at_their_offsets() {
        let bytes: [u8; 8] = ascending();
        let header = MessageTraceHeader::from_bytes(&bytes);
        assert_eq!(
            header,
            MessageTraceHeader {
                size: 0x1211,
                reserved: 0x13,
                version: MarkerFlags(0x14),
                message_number: 0x1615,
                option_flags: TraceMessageFlags(0x1817),
            }
        );
        assert_eq!(header.to_bytes(), bytes);
        assert_eq!(
            (header.marker(), header.header()),
            (0x1413_1211, 0x1817_1615)
        );
    }

    #[test]
    fn parse_checks_the_version_byte_and_size() {
        let mut bytes = [0x0A, 0x00, 0x00, 0x90, 1, 0, 0, 0, 0xAA, 0xBB];
        let (header, data, rest) = MessageTraceHeader::parse_event(&bytes[..]).unwrap();
        assert_eq!(
            (header.size, data, rest.len()),
            (0x0A, &[0xAA, 0xBB][..], 0)
        );
        bytes[3] = 0xC0;
        assert_eq!(
            MessageTraceHeader::parse(&bytes),
            Err(CodecError::NotAMessageHeader {
                layout: Layout::MessageTraceHeader,
                found: MarkerFlags(0xC0)
            })
        );
        assert_eq!(
            std::format!("{}", MessageTraceHeader::parse(&bytes).unwrap_err()),
            "MESSAGE_TRACE_HEADER.Version (offset 0x03): expected \
             TRACE_HEADER_FLAG|TRACE_MESSAGE (0x90), found 0xc0"
        );
        bytes[3] = 0x90;
        bytes[0] = 7;
        assert_eq!(
            MessageTraceHeader::parse(&bytes),
            Err(CodecError::SizeBelowHeader {
                layout: Layout::MessageTraceHeader,
                header_len: 8,
                size: 7
            })
        );
        assert_eq!(
            MessageTraceHeader::parse(&bytes[..7]),
            Err(CodecError::Truncated {
                layout: Layout::MessageTraceHeader,
                needed: 8,
                found: 7
            })
        );
    }

    /// The fields of `flags` built by hand from the documented order, with the values 0x11..
    fn by_hand(flags: u16) -> Vec<u8> {
        let mut bytes = Vec::new();
        if flags & 0x01 != 0 {
            bytes.extend_from_slice(&0x0101_0101u32.to_le_bytes());
        }
        if flags & 0x04 != 0 {
            bytes.extend_from_slice(&0x0404_0404u32.to_le_bytes());
        } else if flags & 0x02 != 0 {
            bytes.extend_from_slice(&[0x22; 16]);
        }
        if flags & 0x08 != 0 {
            bytes.extend_from_slice(&0x0808_0808_0808_0808i64.to_le_bytes());
        }
        if flags & 0x20 != 0 {
            bytes.extend_from_slice(&0x2020_2020u32.to_le_bytes());
            bytes.extend_from_slice(&0x2121_2121u32.to_le_bytes());
        }
        bytes
    }

    /// Every combination of the eight flags (and so of the four fields): the fields read are
    /// the ones built by hand in the documented order, the arguments start right after them,
    /// `emit` writes the same bytes back, and one byte fewer is an error naming `OptionFlags`.
    #[test]
    fn every_flag_combination() {
        for flags in 0..=0xFFu16 {
            let fields_bytes = by_hand(flags);
            let mut data = fields_bytes.clone();
            data.extend_from_slice(b"args");
            let option_flags = TraceMessageFlags(flags);
            assert_eq!(
                MessageFields::announced_len(option_flags),
                fields_bytes.len()
            );
            let (fields, args) = MessageFields::parse(option_flags, &data).unwrap();
            assert_eq!(args, b"args", "{flags:#x}");
            assert_eq!(fields.sequence, (flags & 1 != 0).then_some(0x0101_0101));
            let expected_guid = if flags & 4 != 0 {
                Some(MessageGuid::ComponentId(0x0404_0404))
            } else if flags & 2 != 0 {
                Some(MessageGuid::Guid(Guid::from_bytes_le([0x22; 16])))
            } else {
                None
            };
            assert_eq!(fields.message_guid, expected_guid, "{flags:#x}");
            assert_eq!(
                fields.timestamp,
                (flags & 8 != 0).then_some(0x0808_0808_0808_0808)
            );
            assert_eq!(
                fields.system_info,
                (flags & 0x20 != 0).then_some(MessageSystemInfo {
                    thread_id: 0x2020_2020,
                    process_id: 0x2121_2121
                })
            );
            assert_eq!(fields.len(), fields_bytes.len());
            let mut out = std::vec![0xEE; fields_bytes.len() + 3];
            let rest = fields.emit(&mut out).unwrap();
            assert_eq!(rest.len(), 3);
            assert_eq!(out[..fields_bytes.len()], fields_bytes[..]);
            assert_eq!(
                MessageFields::parse(fields.option_flags(), &fields_bytes),
                Ok((fields, &[][..]))
            );
            if !fields_bytes.is_empty() {
                let short = &fields_bytes[..fields_bytes.len() - 1];
                assert_eq!(
                    MessageFields::parse(option_flags, short),
                    Err(CodecError::AnnouncedBeyondSize {
                        layout: Layout::MessageTraceHeader,
                        member: "OptionFlags",
                        needed: fields_bytes.len(),
                        available: fields_bytes.len() - 1
                    })
                );
                let mut small = std::vec![0xEE; fields_bytes.len() - 1];
                assert!(matches!(
                    fields.emit(&mut small),
                    Err(CodecError::OutputTooSmall { .. })
                ));
                assert!(small.iter().all(|&byte| byte == 0xEE));
            }
        }
    }

    proptest! {
        #[test]
        fn fields_round_trip_over_any_bytes(
            flags in any::<u16>(),
            data in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let option_flags = TraceMessageFlags(flags);
            let announced = MessageFields::announced_len(option_flags);
            match MessageFields::parse(option_flags, &data) {
                Ok((fields, args)) => {
                    prop_assert!(announced <= data.len());
                    prop_assert_eq!(args, &data[announced..]);
                    let mut out = std::vec![0; announced];
                    prop_assert!(fields.emit(&mut out).unwrap().is_empty());
                    prop_assert_eq!(&out[..], &data[..announced]);
                }
                Err(error) => {
                    prop_assert!(announced > data.len());
                    prop_assert_eq!(error.layout(), Layout::MessageTraceHeader);
                }
            }
        }
    }
}
