//! `GUID` in the Windows mixed-endian layout, with `no_std` text formatting and parsing.

use crate::invariant::known;
use crate::wire::error::{GuidParseError, GuidTextExpectation};

/// A Windows `GUID`: `Data1` (u32), `Data2` (u16), `Data3` (u16) little-endian, then `Data4`'s
/// eight bytes as they are.
///
/// Text form `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, where the first three groups are `Data1`,
/// `Data2`, `Data3` as numbers and the last two are `Data4` byte by byte. [`Display`](core::fmt::Display)
/// writes lowercase; [`FromStr`](core::str::FromStr) takes either case, with or without braces.
///
/// ```
/// use etw_classic::Guid;
/// let guid: Guid = "{3D6FA8D0-FE05-11D0-9DDA-00C04FD7BA7C}".parse()?;
/// assert_eq!(guid.data1, 0x3d6fa8d0);
/// assert_eq!(guid.to_bytes_le()[..4], [0xd0, 0xa8, 0x6f, 0x3d]);
/// assert_eq!(format!("{guid}"), "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
/// # Ok::<(), etw_classic::GuidParseError>(())
/// ```
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Guid {
    /// `Data1`
    pub data1: u32,
    /// `Data2`
    pub data2: u16,
    /// `Data3`
    pub data3: u16,
    /// `Data4`
    pub data4: [u8; 8],
}

/// The text form: `x` stands for a hex digit.
const TEMPLATE: &[u8; 36] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
/// Length of the text form without braces.
const TEXT_LEN: usize = TEMPLATE.len();
/// Where the closing brace of a braced GUID belongs.
const BRACED_CLOSE_AT: usize = TEXT_LEN + 1;
/// Length of the braced text form.
const BRACED_LEN: usize = TEXT_LEN + 2;

impl Guid {
    /// Bytes in a `GUID`.
    pub const LEN: usize = 16;
    /// The all-zero GUID (`GUID_NULL`).
    pub const NIL: Self = Self::from_fields(0, 0, 0, [0; 8]);

    /// The GUID with the given members.
    pub const fn from_fields(data1: u32, data2: u16, data3: u16, data4: [u8; 8]) -> Self {
        Self {
            data1,
            data2,
            data3,
            data4,
        }
    }

    /// Decodes the 16 bytes of a `GUID` as Windows lays it out in memory.
    #[inline]
    pub const fn from_bytes_le(bytes: [u8; 16]) -> Self {
        let [a0, a1, a2, a3, b0, b1, c0, c1, d4 @ ..] = bytes;
        Self {
            data1: u32::from_le_bytes([a0, a1, a2, a3]),
            data2: u16::from_le_bytes([b0, b1]),
            data3: u16::from_le_bytes([c0, c1]),
            data4: d4,
        }
    }

    /// Encodes the GUID as Windows lays it out in memory.
    #[inline]
    pub const fn to_bytes_le(self) -> [u8; 16] {
        let [a0, a1, a2, a3] = self.data1.to_le_bytes();
        let [b0, b1] = self.data2.to_le_bytes();
        let [c0, c1] = self.data3.to_le_bytes();
        let [d0, d1, d2, d3, d4, d5, d6, d7] = self.data4;
        [
            a0, a1, a2, a3, b0, b1, c0, c1, d0, d1, d2, d3, d4, d5, d6, d7,
        ]
    }

    /// Whether this is the all-zero GUID.
    pub fn is_nil(self) -> bool {
        self == Self::NIL
    }

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, either case, optionally in `{}`.
    ///
    /// An error gives the byte position in `text` where the text departs from that form.
    pub fn parse_str(text: &str) -> Result<Self, GuidParseError> {
        let bytes = text.as_bytes();
        let (body, start, braced) = match bytes {
            [b'{', inner @ ..] => (inner, 1, true),
            _ => (bytes, 0, false),
        };
        // The text is big-endian throughout: Data1..Data3 read as numbers, Data4 byte by byte,
        // so the 32 digits in order are one 128-bit big-endian number.
        let mut value: u128 = 0;
        for (position, template) in TEMPLATE.iter().enumerate() {
            let found = body.get(position).copied();
            let at = position.saturating_add(start);
            if *template == b'-' {
                if found != Some(b'-') {
                    return Err(invalid(at, GuidTextExpectation::Hyphen, found));
                }
            } else {
                let digit = found
                    .and_then(|byte| char::from(byte).to_digit(16))
                    .ok_or(invalid(at, GuidTextExpectation::HexDigit, found))?;
                value = value.wrapping_shl(4) | u128::from(digit);
            }
        }
        // Every one of the first `TEXT_LEN` bytes was read above.
        let rest = known(body.get(TEXT_LEN..), &[]);
        match (braced, rest) {
            (false, []) | (true, [b'}']) => {}
            (false, [extra, ..]) => {
                return Err(invalid(TEXT_LEN, GuidTextExpectation::End, Some(*extra)))
            }
            (true, [b'}', extra, ..]) => {
                return Err(invalid(BRACED_LEN, GuidTextExpectation::End, Some(*extra)))
            }
            (true, rest) => {
                let found = rest.first().copied();
                return Err(invalid(
                    BRACED_CLOSE_AT,
                    GuidTextExpectation::ClosingBrace,
                    found,
                ));
            }
        }
        let [a0, a1, a2, a3, b0, b1, c0, c1, data4 @ ..] = value.to_be_bytes();
        Ok(Self::from_fields(
            u32::from_be_bytes([a0, a1, a2, a3]),
            u16::from_be_bytes([b0, b1]),
            u16::from_be_bytes([c0, c1]),
            data4,
        ))
    }
}

fn invalid(at: usize, expected: GuidTextExpectation, found: Option<u8>) -> GuidParseError {
    GuidParseError::new(at, expected, found)
}

impl core::str::FromStr for Guid {
    type Err = GuidParseError;

    fn from_str(text: &str) -> Result<Self, GuidParseError> {
        Self::parse_str(text)
    }
}

impl core::fmt::Display for Guid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let [d0, d1, d2, d3, d4, d5, d6, d7] = self.data4;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{d0:02x}{d1:02x}-{d2:02x}{d3:02x}{d4:02x}{d5:02x}{d6:02x}{d7:02x}",
            self.data1, self.data2, self.data3
        )
    }
}

impl core::fmt::Debug for Guid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Guid({self})")
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for Guid {
    fn format(&self, f: defmt::Formatter) {
        let [d0, d1, d2, d3, d4, d5, d6, d7] = self.data4;
        defmt::write!(
            f,
            "{=u32:08x}-{=u16:04x}-{=u16:04x}-{=u8:02x}{=u8:02x}-{=u8:02x}{=u8:02x}{=u8:02x}{=u8:02x}{=u8:02x}{=u8:02x}",
            self.data1, self.data2, self.data3, d0, d1, d2, d3, d4, d5, d6, d7
        )
    }
}
