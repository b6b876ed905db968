//! The values a field's bytes decode to, borrowed from the event's data.

use crate::wire::{Guid, Sid, SystemTime, Utf16Str};

/// One decoded value, borrowing text and bytes from the event's data. Which variant a field
/// gives follows from its in-type alone ([`InType`](crate::payload::InType)); its out-type is
/// the hint for showing it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value<'d> {
    /// `NULL`: no value.
    Null,
    /// `INT8`.
    I8(i8),
    /// `UINT8`.
    U8(u8),
    /// `INT16`.
    I16(i16),
    /// `UINT16`.
    U16(u16),
    /// `INT32`.
    I32(i32),
    /// `UINT32`.
    U32(u32),
    /// `INT64`.
    I64(i64),
    /// `UINT64`.
    U64(u64),
    /// `FLOAT`.
    F32(f32),
    /// `DOUBLE`.
    F64(f64),
    /// `BOOLEAN`: the 4-byte `BOOL` as stored (0 is false, anything else true).
    Bool(u32),
    /// `GUID`.
    Guid(Guid),
    /// `POINTER` and `SIZET`, widened from the event's pointer size.
    Pointer(u64),
    /// `FILETIME`: 100 ns intervals since 1601-01-01 UTC, as stored.
    FileTime(u64),
    /// `SYSTEMTIME`, every member as stored.
    SystemTime(SystemTime),
    /// `SID`; also the SID of a `WBEM_SID` that has one.
    Sid(Sid<'d>),
    /// A `WBEM_SID` whose first `u32` is 0: no SID.
    NoSid,
    /// UTF-16 text, without its terminating NUL (the counted and NUL-terminated kinds alike).
    Utf16(Utf16Str<'d>),
    /// 8-bit text, without its terminating NUL; its encoding is the out-type's (UTF-8 for
    /// [`OutType::UTF8`](crate::payload::OutType::UTF8) and TraceLogging, the writer's code
    /// page otherwise).
    Ansi(&'d [u8]),
    /// `BINARY`, the counted binary types and `HEXDUMP`: the bytes, without their count.
    Binary(&'d [u8]),
    /// `HEXINT32`.
    HexInt32(u32),
    /// `HEXINT64`.
    HexInt64(u64),
    /// `UNICODE_CHAR`: one UTF-16 code unit.
    Char16(u16),
    /// `ANSI_CHAR`: one 8-bit character.
    Char8(u8),
}

impl Value<'_> {
    /// The value as an unsigned integer, for the integer types (a signed value is taken as
    /// its two's complement bits, widened): what a count or length taken from this field is.
    pub fn as_u64(&self) -> Option<u64> {
        Some(match *self {
            Self::I8(v) => u64::from_ne_bytes(i64::from(v).to_ne_bytes()),
            Self::U8(v) => u64::from(v),
            Self::I16(v) => u64::from_ne_bytes(i64::from(v).to_ne_bytes()),
            Self::U16(v) => u64::from(v),
            Self::I32(v) => u64::from_ne_bytes(i64::from(v).to_ne_bytes()),
            Self::U32(v) | Self::HexInt32(v) => u64::from(v),
            Self::I64(v) => u64::from_ne_bytes(v.to_ne_bytes()),
            Self::U64(v) | Self::HexInt64(v) | Self::Pointer(v) => v,
            _ => return None,
        })
    }
}
