//! The one mechanism every wire struct is built on: named fields at fixed offsets, read and
//! written little-endian, and the length checks shared by `parse` and `emit`.
//!
//! Each struct file holds a private `offset` table of [`Field`]s named after the SDK members, and
//! a compile-time assertion that the table ends exactly at the struct's length. The accessors
//! here take the struct's whole `[u8; LEN]` array, so a field can never lie outside the bytes it
//! reads; the fallbacks below exist only to keep the code free of panicking operations and are
//! removed by the optimiser.

use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::guid::Guid;
use crate::wire::layout::Layout;

/// A member of a fixed-layout struct: its byte offset, and in the type, its width `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field<const N: usize> {
    offset: usize,
}

impl<const N: usize> Field<N> {
    /// The member that starts at `offset`.
    pub(crate) const fn at(offset: usize) -> Self {
        Self { offset }
    }

    /// The offset of the member's first byte.
    // Used only in `const _` layout assertions, which the dead-code lint of Rust 1.87 misses.
    #[allow(dead_code)]
    pub(crate) const fn start(self) -> usize {
        self.offset
    }

    /// The offset of the first byte after the member (for the layout assertions).
    #[allow(dead_code)]
    pub(crate) const fn end(self) -> usize {
        self.offset.saturating_add(N)
    }
}

/// Reads the fields of one struct's bytes.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    #[inline]
    pub(crate) const fn new<const LEN: usize>(bytes: &'a [u8; LEN]) -> Self {
        Self { bytes }
    }

    /// The field's bytes in place (`None` only where a field lay outside the struct, which the
    /// layout assertions rule out).
    #[inline]
    fn array<const N: usize>(&self, field: Field<N>) -> Option<&'a [u8; N]> {
        self.bytes
            .get(field.offset..)
            .and_then(|tail| tail.first_chunk::<N>())
    }

    #[inline]
    pub(crate) fn bytes<const N: usize>(&self, field: Field<N>) -> [u8; N] {
        self.array(field).copied().unwrap_or([0; N])
    }

    #[inline]
    pub(crate) fn u8(&self, field: Field<1>) -> u8 {
        let [byte] = self.bytes(field);
        byte
    }

    #[inline]
    pub(crate) fn u16(&self, field: Field<2>) -> u16 {
        u16::from_le_bytes(self.bytes(field))
    }

    #[inline]
    pub(crate) fn u32(&self, field: Field<4>) -> u32 {
        u32::from_le_bytes(self.bytes(field))
    }

    #[inline]
    pub(crate) fn u64(&self, field: Field<8>) -> u64 {
        u64::from_le_bytes(self.bytes(field))
    }

    #[inline]
    pub(crate) fn i64(&self, field: Field<8>) -> i64 {
        i64::from_le_bytes(self.bytes(field))
    }

    /// Sixteen raw bytes (a union kept as bytes), moved as one `u128`: four word loads, where
    /// a copy of a 16-byte array of unknown alignment is a call to `memcpy` at opt-level "z".
    #[inline]
    pub(crate) fn bytes16(&self, field: Field<16>) -> [u8; 16] {
        self.array(field)
            .map_or(0, |bytes| u128::from_le_bytes(*bytes))
            .to_le_bytes()
    }

    #[inline]
    pub(crate) fn guid(&self, field: Field<16>) -> Guid {
        Guid::from_bytes_le(self.bytes(field))
    }
}

/// Writes the fields of one struct's bytes.
pub(crate) struct Writer<'a> {
    bytes: &'a mut [u8],
}

impl<'a> Writer<'a> {
    #[inline]
    pub(crate) fn new<const LEN: usize>(bytes: &'a mut [u8; LEN]) -> Self {
        Self { bytes }
    }

    #[inline]
    pub(crate) fn bytes<const N: usize>(&mut self, field: Field<N>, value: [u8; N]) {
        if let Some(slot) = self
            .bytes
            .get_mut(field.offset..)
            .and_then(|tail| tail.first_chunk_mut::<N>())
        {
            *slot = value;
        }
    }

    #[inline]
    pub(crate) fn u8(&mut self, field: Field<1>, value: u8) {
        self.bytes(field, [value]);
    }

    #[inline]
    pub(crate) fn u16(&mut self, field: Field<2>, value: u16) {
        self.bytes(field, value.to_le_bytes());
    }

    #[inline]
    pub(crate) fn u32(&mut self, field: Field<4>, value: u32) {
        self.bytes(field, value.to_le_bytes());
    }

    #[inline]
    pub(crate) fn u64(&mut self, field: Field<8>, value: u64) {
        self.bytes(field, value.to_le_bytes());
    }

    #[inline]
    pub(crate) fn i64(&mut self, field: Field<8>, value: i64) {
        self.bytes(field, value.to_le_bytes());
    }

    /// Sixteen raw bytes, moved as one `u128` (see [`Reader::bytes16`]).
    #[inline]
    pub(crate) fn bytes16(&mut self, field: Field<16>, value: [u8; 16]) {
        self.bytes(field, u128::from_le_bytes(value).to_le_bytes());
    }

    #[inline]
    pub(crate) fn guid(&mut self, field: Field<16>, value: Guid) {
        self.bytes16(field, value.to_bytes_le());
    }
}

/// Splits the first `LEN` bytes off `input` for `layout`, or says how many were missing.
#[inline]
pub(crate) fn split_prefix<const LEN: usize>(
    layout: Layout,
    input: &[u8],
) -> Result<(&[u8; LEN], &[u8]), CodecError> {
    input
        .split_first_chunk::<LEN>()
        .ok_or(CodecError::Truncated {
            layout,
            needed: LEN,
            found: input.len(),
        })
}

/// A struct's `LEN` bytes, every one set by `write` (a struct's `write` method) over zeros.
#[inline]
pub(crate) fn encode<const LEN: usize>(write: impl FnOnce(&mut Writer<'_>)) -> [u8; LEN] {
    let mut bytes = [0; LEN];
    write(&mut Writer::new(&mut bytes));
    bytes
}

/// Encodes a struct of `LEN` bytes with `write` straight into the front of `out`, and returns
/// the rest of `out`; writes nothing when `out` is too small.
///
/// `write` must set every one of the `LEN` bytes, as each struct's `write` does (the fields tile
/// the struct; `tests/laws.rs` checks it over any earlier content of `out`). Writing in place,
/// rather than copying an encoded `[u8; LEN]`, keeps the struct's bytes off the stack.
#[inline]
pub(crate) fn emit_prefix<const LEN: usize>(
    layout: Layout,
    out: &mut [u8],
    write: impl FnOnce(&mut Writer<'_>),
) -> Result<&mut [u8], CodecError> {
    let found = out.len();
    let (slot, rest) = out
        .split_first_chunk_mut::<LEN>()
        .ok_or(CodecError::OutputTooSmall {
            layout,
            needed: LEN,
            found,
        })?;
    write(&mut Writer::new(slot));
    Ok(rest)
}

/// Where the members that `parse` checks lie in an event header: `EVENT_TRACE_HEADER`'s offsets
/// for the headers that begin with one, `SYSTEM_TRACE_HEADER`'s for system events.
#[derive(Clone, Copy)]
pub(crate) struct CheckedFields {
    pub(crate) size: Field<2>,
    pub(crate) header_type: Field<1>,
    pub(crate) marker_flags: Field<1>,
}

/// The checks `parse` makes on a header read from a trace buffer: marker flags 0xC0, one of the
/// two header types the struct is written with, and a `Size` that covers the fixed header. They
/// read the three members in place, before `parse` decodes the rest.
pub(crate) fn check_event_header(
    layout: Layout,
    read: &Reader<'_>,
    fields: CheckedFields,
    [expected_32, expected_64]: [HeaderType; 2],
) -> Result<(), CodecError> {
    let marker_flags = MarkerFlags(read.u8(fields.marker_flags));
    let header_type = HeaderType(read.u8(fields.header_type));
    let size = read.u16(fields.size);
    if !marker_flags.is_event_trace_header() {
        return Err(CodecError::NotATraceHeader {
            layout,
            found: marker_flags,
        });
    }
    if header_type != expected_32 && header_type != expected_64 {
        return Err(CodecError::WrongHeaderType {
            layout,
            expected_32,
            expected_64,
            found: header_type,
        });
    }
    let header_len = layout.byte_len();
    if usize::from(size) < header_len {
        return Err(CodecError::SizeBelowHeader {
            layout,
            header_len,
            size,
        });
    }
    Ok(())
}

/// Splits an event of `size` bytes (whose header has already been checked to fit in `size`) off
/// the front of `input`: returns its data after the fixed header, and the bytes after the event.
pub(crate) fn split_event(
    layout: Layout,
    input: &[u8],
    size: u16,
) -> Result<(&[u8], &[u8]), CodecError> {
    let (event, rest) =
        input
            .split_at_checked(usize::from(size))
            .ok_or(CodecError::SizeBeyondInput {
                layout,
                size,
                available: input.len(),
            })?;
    let data = event.get(layout.byte_len()..).unwrap_or_default();
    Ok((data, rest))
}

/// Test bytes shaped like the C-ABI vectors named `ascending` in `tests/data/`: byte `i` of the
/// struct is `0x11 + i`, so every field has distinct non-zero bytes and a misplaced offset shows.
#[cfg(test)]
pub(crate) fn ascending<const N: usize>() -> [u8; N] {
    core::array::from_fn(|index| (index as u8).wrapping_add(0x11))
}

/// The `to_bytes`, `emit` (and `parse`) entry points every fixed-layout type shares, written
/// once on top of the type's `LEN`, `LAYOUT`, `from_bytes` and `write` (which sets every byte).
///
/// `length_only` also gives the type a `parse` that checks nothing but the length (for the
/// structs that never appear in trace buffers); `emit` alone suits the wire headers, whose
/// `parse` makes their own checks.
macro_rules! fixed_layout_entry_points {
    ($type:ty, length_only) => {
        impl $type {
            /// Decodes the first [`Self::LEN`] bytes of `input` (any values) and returns the rest.
            ///
            /// # Errors
            /// [`CodecError::Truncated`](crate::CodecError::Truncated) when `input` is shorter than [`Self::LEN`].
            #[inline]
            pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), crate::wire::error::CodecError> {
                let (bytes, rest) =
                    crate::wire::field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
                Ok((Self::from_bytes(bytes), rest))
            }
        }
        crate::wire::field::fixed_layout_entry_points!($type, emit);
    };
    ($type:ty, emit) => {
        impl $type {
            /// Encodes every member; `from_bytes(&v.to_bytes()) == v` for every value `v`.
            #[inline]
            pub fn to_bytes(&self) -> [u8; Self::LEN] {
                crate::wire::field::encode(|write| self.write(write))
            }

            /// Writes the struct to the start of `out` and returns the rest of `out`.
            ///
            /// # Errors
            /// [`CodecError::OutputTooSmall`](crate::CodecError::OutputTooSmall) when `out` is shorter than
            /// [`Self::LEN`]; nothing is written then.
            #[inline]
            pub fn emit<'o>(
                &self,
                out: &'o mut [u8],
            ) -> Result<&'o mut [u8], crate::wire::error::CodecError> {
                crate::wire::field::emit_prefix::<{ Self::LEN }>(Self::LAYOUT, out, |write| {
                    self.write(write)
                })
            }
        }
    };
}

pub(crate) use fixed_layout_entry_points;
