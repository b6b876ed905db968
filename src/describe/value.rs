//! The Rust values a typed payload is written from, each the value of one MOF type, and how
//! each is laid out in an event's data.
//!
//! The layout is MOF's for a classic event (Microsoft, "Event Tracing MOF Qualifiers";
//! PAYLOADS.md §5): the properties one after the other in `WmiDataId` order, with no padding
//! between them; integers, floats and the 4-byte `BOOLEAN` little-endian; a `GUID` as Windows
//! lays it out in memory (`Data1` to `Data3` little-endian); a `pointer` 4 or 8 bytes by the
//! event's pointer size; a string `NullTerminated` (the characters, then a NUL) or `Counted`
//! (a `u16` byte length, then the characters); `format("w")` UTF-16LE, else 8-bit; a fixed
//! array of bytes (`MAX(n)`) those `n` bytes.

use crate::payload::schema::Length;
use crate::payload::types::InType;
use crate::wire::guid::Guid;
use crate::wire::layout::Bitness;

/// Why a value cannot be written as its field says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ValueErrorKind {
    /// A NUL-terminated string holds a NUL: a reader would end it there.
    InteriorNul {
        /// Where the NUL is, in bytes (8-bit) or UTF-16 code units.
        at: usize,
    },
    /// A counted string longer than its `u16` byte count can say.
    TooLong {
        /// Its bytes.
        len: usize,
    },
    /// A pointer above `u32::MAX` in an event of 32-bit pointers.
    PointerTooWide {
        /// The pointer.
        value: u64,
    },
}

impl core::fmt::Display for ValueErrorKind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::InteriorNul { at } => write!(
                f,
                "a NUL-terminated string holds a NUL at character {at}: a reader would end it there"
            ),
            Self::TooLong { len } => write!(
                f,
                "a counted string of {len} bytes: its u16 count holds at most 65535"
            ),
            Self::PointerTooWide { value } => write!(
                f,
                "the pointer {value:#x} does not fit the 4 bytes of a 32-bit event"
            ),
        }
    }
}

/// A value of one MOF type: its in-type (and length) in the field's [`FieldSchema`], and its
/// bytes in the event's data.
///
/// | Rust value | in-type | bytes |
/// |---|---|---|
/// | `i8` `u8` `i16` `u16` `i32` `u32` `i64` `u64` | `INT8` ... `UINT64` | 1 to 8, little-endian |
/// | `f32` `f64` | `FLOAT` `DOUBLE` | 4, 8 |
/// | `bool` | `BOOLEAN` | 4: 1 or 0 |
/// | [`Guid`] | `GUID` | 16 |
/// | [`Pointer`] | `POINTER` | 4 or 8 by the provider's [`Bitness`] |
/// | [`FileTime`] | `FILETIME` | 8 |
/// | `&str` | `ANSI_STRING` | the bytes, then a NUL |
/// | [`Utf16`] | `UNICODE_STRING` | UTF-16LE, then a NUL (two bytes) |
/// | [`Counted`] | `COUNTED_ANSI_STRING` | a `u16` byte count, then the bytes |
/// | [`Counted16`] | `COUNTED_STRING` | a `u16` byte count, then UTF-16LE |
/// | `[u8; N]` | `BINARY`, length `N` | the `N` bytes |
///
/// An 8-bit string is written as the `&str`'s UTF-8 bytes; readers take 8-bit MOF strings in
/// their code page, so text beyond ASCII shows as such only in readers that take UTF-8.
///
/// [`FieldSchema`]: crate::payload::FieldSchema
pub trait FieldValue {
    /// The in-type of the field this value is written to.
    const IN_TYPE: InType;
    /// The field's length: [`Length::Natural`] but for `[u8; N]`.
    const LENGTH: Length = Length::Natural;

    /// The bytes the value takes in an event of `bitness`, or why it cannot be written.
    ///
    /// # Errors
    /// A NUL inside a NUL-terminated string, a counted string too long for its count, a
    /// pointer too wide for a 32-bit event.
    fn data_len(&self, bitness: Bitness) -> Result<usize, ValueErrorKind>;

    /// Writes the value at the start of `out` and returns the rest; `None` when `out` is
    /// shorter than [`data_len`](Self::data_len) said (not reached when `out` was sized by
    /// it, as the typed write does).
    fn write_to<'o>(&self, out: &'o mut [u8], bitness: Bitness) -> Option<&'o mut [u8]>;
}

/// Writes `bytes` at the start of `out`, returns the rest.
#[inline(always)]
fn put<const N: usize>(out: &mut [u8], bytes: [u8; N]) -> Option<&mut [u8]> {
    let (head, rest) = out.split_first_chunk_mut::<N>()?;
    *head = bytes;
    Some(rest)
}

macro_rules! fixed_value {
    ($($ty:ty => $in_type:ident, $len:literal;)*) => {$(
        impl FieldValue for $ty {
            const IN_TYPE: InType = InType::$in_type;
            #[inline(always)]
            fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
                Ok($len)
            }
            #[inline(always)]
            fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
                put::<$len>(out, self.to_le_bytes())
            }
        }
    )*};
}

fixed_value! {
    i8 => INT8, 1;
    u8 => UINT8, 1;
    i16 => INT16, 2;
    u16 => UINT16, 2;
    i32 => INT32, 4;
    u32 => UINT32, 4;
    i64 => INT64, 8;
    u64 => UINT64, 8;
    f32 => FLOAT, 4;
    f64 => DOUBLE, 8;
}

impl FieldValue for bool {
    const IN_TYPE: InType = InType::BOOLEAN;
    #[inline(always)]
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        Ok(4)
    }
    #[inline(always)]
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        put(out, u32::from(*self).to_le_bytes())
    }
}

impl FieldValue for Guid {
    const IN_TYPE: InType = InType::GUID;
    #[inline(always)]
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        Ok(Guid::LEN)
    }
    #[inline(always)]
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        put(out, self.to_bytes_le())
    }
}

/// A pointer-sized value (`POINTER`, MOF's `pointer` qualifier): 4 bytes in an event of a
/// 32-bit provider, 8 in one of a 64-bit provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Pointer(pub u64);

impl Pointer {
    /// The address of `pointer`.
    pub fn from_ptr<T: ?Sized>(pointer: *const T) -> Self {
        Self::from(pointer.cast::<u8>().addr())
    }
}

impl From<usize> for Pointer {
    fn from(address: usize) -> Self {
        // `usize` has at most 64 bits on every target Rust supports.
        Self(u64::try_from(address).unwrap_or(u64::MAX))
    }
}

impl FieldValue for Pointer {
    const IN_TYPE: InType = InType::POINTER;
    #[inline(always)]
    fn data_len(&self, bitness: Bitness) -> Result<usize, ValueErrorKind> {
        match bitness {
            Bitness::Bits32 if self.0 > u64::from(u32::MAX) => {
                Err(ValueErrorKind::PointerTooWide { value: self.0 })
            }
            Bitness::Bits32 => Ok(4),
            Bitness::Bits64 => Ok(8),
        }
    }
    #[inline(always)]
    fn write_to<'o>(&self, out: &'o mut [u8], bitness: Bitness) -> Option<&'o mut [u8]> {
        let [a, b, c, d, e, f, g, h] = self.0.to_le_bytes();
        match bitness {
            Bitness::Bits32 => put(out, [a, b, c, d]),
            Bitness::Bits64 => put(out, [a, b, c, d, e, f, g, h]),
        }
    }
}

/// A `FILETIME` (`FILETIME`): 100-nanosecond intervals since 1601-01-01 UTC, 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FileTime(pub u64);

impl FieldValue for FileTime {
    const IN_TYPE: InType = InType::FILETIME;
    #[inline(always)]
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        Ok(8)
    }
    #[inline(always)]
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        put(out, self.0.to_le_bytes())
    }
}

/// Where the first NUL of `bytes` is.
#[inline(always)]
fn nul_in(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&byte| byte == 0)
}

/// Copies `bytes` to the start of `out`, returns the rest.
#[inline(always)]
fn put_bytes<'o>(out: &'o mut [u8], bytes: &[u8]) -> Option<&'o mut [u8]> {
    let (head, rest) = out.split_at_mut_checked(bytes.len())?;
    for (to, from) in head.iter_mut().zip(bytes) {
        *to = *from;
    }
    Some(rest)
}

/// Writes `text` as UTF-16LE at the start of `out`, returns the rest.
#[inline]
fn put_utf16<'o>(out: &'o mut [u8], text: &str) -> Option<&'o mut [u8]> {
    let mut rest = out;
    for unit in text.encode_utf16() {
        rest = put(rest, unit.to_le_bytes())?;
    }
    Some(rest)
}

/// Bytes of `text` in UTF-16 (two a code unit), and where its first NUL is, in code units.
fn utf16_len(text: &str) -> (usize, Option<usize>) {
    // A `&str` is at most `isize::MAX` bytes, and each byte gives at most one code unit of
    // two bytes: the sums and the product fit (saturating all the same).
    let mut units = 0usize;
    let mut nul = None;
    for unit in text.encode_utf16() {
        if unit == 0 && nul.is_none() {
            nul = Some(units);
        }
        units = units.saturating_add(1);
    }
    (units.saturating_mul(2), nul)
}

/// An 8-bit NUL-terminated string (`ANSI_STRING`; MOF `string`, `StringTermination`
/// `NullTerminated`): the bytes, then a NUL.
impl FieldValue for &str {
    const IN_TYPE: InType = InType::ANSI_STRING;
    #[inline(always)]
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        match nul_in(self.as_bytes()) {
            Some(at) => Err(ValueErrorKind::InteriorNul { at }),
            None => Ok(self.len().saturating_add(1)),
        }
    }
    #[inline(always)]
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        put(put_bytes(out, self.as_bytes())?, [0])
    }
}

/// A UTF-16 NUL-terminated string (`UNICODE_STRING`; MOF `string` with `format("w")`): the
/// text encoded as UTF-16LE as it is written, then a NUL of two bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Utf16<'a>(pub &'a str);

impl FieldValue for Utf16<'_> {
    const IN_TYPE: InType = InType::UNICODE_STRING;
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        match utf16_len(self.0) {
            (_, Some(at)) => Err(ValueErrorKind::InteriorNul { at }),
            (len, None) => Ok(len.saturating_add(2)),
        }
    }
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        put(put_utf16(out, self.0)?, [0, 0])
    }
}

/// An 8-bit counted string (`COUNTED_ANSI_STRING`; MOF `StringTermination("Counted")`): a
/// `u16` byte count, then the bytes (a NUL among them is text like any other).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Counted<'a>(pub &'a str);

impl FieldValue for Counted<'_> {
    const IN_TYPE: InType = InType::COUNTED_ANSI_STRING;
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        let len = self.0.len();
        match u16::try_from(len) {
            Ok(_) => Ok(len.saturating_add(2)),
            Err(_) => Err(ValueErrorKind::TooLong { len }),
        }
    }
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        let count = u16::try_from(self.0.len()).ok()?;
        put_bytes(put(out, count.to_le_bytes())?, self.0.as_bytes())
    }
}

/// A UTF-16 counted string (`COUNTED_STRING`; MOF `StringTermination("Counted")` with
/// `format("w")`): a `u16` byte count, then the text as UTF-16LE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Counted16<'a>(pub &'a str);

impl FieldValue for Counted16<'_> {
    const IN_TYPE: InType = InType::COUNTED_STRING;
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        let (len, _) = utf16_len(self.0);
        match u16::try_from(len) {
            Ok(_) => Ok(len.saturating_add(2)),
            Err(_) => Err(ValueErrorKind::TooLong { len }),
        }
    }
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        let (len, _) = utf16_len(self.0);
        let count = u16::try_from(len).ok()?;
        put_utf16(put(out, count.to_le_bytes())?, self.0)
    }
}

/// `N` bytes (`BINARY` of length `N`; MOF `uint8` with `MAX(N)`). `N` must fit a `u16` and
/// not be 0: another `N` gives a field the description check refuses.
impl<const N: usize> FieldValue for [u8; N] {
    const IN_TYPE: InType = InType::BINARY;
    const LENGTH: Length = match u16_of(N) {
        Some(len) => Length::Fixed(len),
        None => Length::Natural,
    };
    #[inline(always)]
    fn data_len(&self, _: Bitness) -> Result<usize, ValueErrorKind> {
        Ok(N)
    }
    #[inline(always)]
    fn write_to<'o>(&self, out: &'o mut [u8], _: Bitness) -> Option<&'o mut [u8]> {
        put(out, *self)
    }
}

/// `n` as a `u16`, if it fits (`TryFrom` is not `const`).
const fn u16_of(n: usize) -> Option<u16> {
    let bytes = n.to_le_bytes();
    let Some((&low, rest)) = bytes.split_first() else {
        return None;
    };
    let Some((&high, mut rest)) = rest.split_first() else {
        return Some(u16::from_le_bytes([low, 0]));
    };
    while let Some((&byte, after)) = rest.split_first() {
        if byte != 0 {
            return None;
        }
        rest = after;
    }
    Some(u16::from_le_bytes([low, high]))
}
