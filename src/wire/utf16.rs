//! UTF-16 text borrowed from a trace, read without allocating: the logger and log file names
//! after a `TRACE_LOGFILE_HEADER`, and the time zone names inside it.

use core::iter::FusedIterator;

use crate::invariant::known;

/// A run of UTF-16 code units borrowed from a trace, without its terminating NUL.
///
/// It borrows either little-endian bytes (text in an event's data) or decoded `u16`s (a name
/// array of a struct); both compare and print the same way. Nothing is checked: unpaired
/// surrogates are kept, [`units`](Self::units) gives them back, and [`chars`](Self::chars)
/// shows them as U+FFFD.
///
/// ```
/// use etw_classic::wire::Utf16Str;
/// let bytes = [b'E', 0, b'T', 0, b'W', 0, 0, 0, 0xAA];
/// let (name, rest) = Utf16Str::split_nul_terminated(&bytes);
/// assert!(name == "ETW");
/// assert_eq!(rest, Some(&[0xAA][..]));
/// let mut text = [0u8; 8];
/// let mut at = 0;
/// for c in name.chars() {
///     at += c.encode_utf8(&mut text[at..]).len();
/// }
/// assert_eq!(&text[..at], b"ETW");
/// ```
#[derive(Clone, Copy)]
pub struct Utf16Str<'a> {
    source: Source<'a>,
}

#[derive(Clone, Copy)]
enum Source<'a> {
    /// Little-endian code units; always an even number of bytes.
    Bytes(&'a [u8]),
    /// Code units.
    Units(&'a [u16]),
}

impl<'a> Utf16Str<'a> {
    /// The text of little-endian code units; a last odd byte is left out.
    pub fn from_le_bytes(bytes: &'a [u8]) -> Self {
        let even = bytes.len() & !1;
        Self {
            // At most the length.
            source: Source::Bytes(known(bytes.get(..even), &[])),
        }
    }

    /// The text of `units`, all of them (NULs included).
    pub const fn from_units(units: &'a [u16]) -> Self {
        Self {
            source: Source::Units(units),
        }
    }

    /// The text of `units` up to their first NUL, or all of them when there is none.
    pub fn from_units_until_nul(units: &'a [u16]) -> Self {
        let end = units
            .iter()
            .position(|unit| *unit == 0)
            .unwrap_or(units.len());
        // A position in `units`, or their length.
        Self::from_units(known(units.get(..end), units))
    }

    /// Splits a NUL-terminated little-endian UTF-16 string off the front of `bytes`: the text
    /// before the NUL and `Some` of the bytes after it, or, when no NUL code unit is found, all
    /// of `bytes` as text (less a last odd byte) and `None`.
    pub fn split_nul_terminated(bytes: &'a [u8]) -> (Self, Option<&'a [u8]>) {
        let nul = bytes
            .chunks_exact(2)
            .position(|pair| pair == [0, 0])
            .and_then(|index| index.checked_mul(2));
        match nul.and_then(|end| bytes.split_at_checked(end)) {
            Some((text, after)) => (
                Self::from_le_bytes(text),
                // `after` starts with the two bytes of the NUL.
                Some(known(after.get(2..), &[])),
            ),
            None => (Self::from_le_bytes(bytes), None),
        }
    }

    /// The number of UTF-16 code units.
    pub fn len(&self) -> usize {
        match self.source {
            Source::Bytes(bytes) => bytes.len() / 2,
            Source::Units(units) => units.len(),
        }
    }

    /// Whether there is no code unit.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The code units, as stored.
    pub fn units(&self) -> Utf16Units<'a> {
        Utf16Units {
            source: match self.source {
                Source::Bytes(bytes) => UnitSource::Bytes(bytes.chunks_exact(2)),
                Source::Units(units) => UnitSource::Units(units.iter()),
            },
        }
    }

    /// The characters, with U+FFFD for each unpaired surrogate.
    pub fn chars(&self) -> impl Iterator<Item = char> + 'a {
        char::decode_utf16(self.units())
            .map(|decoded| decoded.unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    /// The characters, with an error for each unpaired surrogate.
    pub fn decode(&self) -> core::char::DecodeUtf16<Utf16Units<'a>> {
        char::decode_utf16(self.units())
    }

    /// Whether the text is well-formed UTF-16 (no unpaired surrogate).
    pub fn is_well_formed(&self) -> bool {
        self.decode().all(|decoded| decoded.is_ok())
    }
}

impl PartialEq for Utf16Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.units().eq(other.units())
    }
}

impl Eq for Utf16Str<'_> {}

impl PartialEq<str> for Utf16Str<'_> {
    /// Exact comparison of the code units with the UTF-16 encoding of `other`.
    fn eq(&self, other: &str) -> bool {
        self.units().eq(other.encode_utf16())
    }
}

impl PartialEq<&str> for Utf16Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl core::fmt::Display for Utf16Str<'_> {
    /// The text, with U+FFFD for each unpaired surrogate.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::fmt::Write;
        self.chars().try_for_each(|c| f.write_char(c))
    }
}

impl core::fmt::Debug for Utf16Str<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::fmt::Write;
        f.write_char('"')?;
        for decoded in self.decode() {
            match decoded {
                Ok(c) => c.escape_debug().try_for_each(|e| f.write_char(e))?,
                Err(error) => write!(f, "\\u{{{:x}}}", error.unpaired_surrogate())?,
            }
        }
        f.write_char('"')
    }
}

#[cfg(feature = "defmt")]
#[cfg_attr(docsrs, doc(cfg(feature = "defmt")))]
impl defmt::Format for Utf16Str<'_> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "\"");
        for c in self.chars() {
            defmt::write!(f, "{=char}", c);
        }
        defmt::write!(f, "\"");
    }
}

/// The code units of a [`Utf16Str`], from [`Utf16Str::units`].
#[derive(Clone, Debug)]
pub struct Utf16Units<'a> {
    source: UnitSource<'a>,
}

#[derive(Clone, Debug)]
enum UnitSource<'a> {
    Bytes(core::slice::ChunksExact<'a, u8>),
    Units(core::slice::Iter<'a, u16>),
}

impl Iterator for Utf16Units<'_> {
    type Item = u16;

    fn next(&mut self) -> Option<u16> {
        match &mut self.source {
            UnitSource::Bytes(pairs) => pairs.next().map(|pair| match *pair {
                [low, high] => u16::from_le_bytes([low, high]),
                _ => 0,
            }),
            UnitSource::Units(units) => units.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.source {
            UnitSource::Bytes(pairs) => pairs.size_hint(),
            UnitSource::Units(units) => units.size_hint(),
        }
    }
}

impl ExactSizeIterator for Utf16Units<'_> {}

impl FusedIterator for Utf16Units<'_> {}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::ToString;

    #[test]
    fn splits_at_the_first_nul_unit_not_byte() {
        // "Ā" is 0x0100: a zero byte that is not a NUL unit.
        let bytes = [0x00, 0x01, b'x', 0, 0, 0, b'y', 0, 0, 0];
        let (first, rest) = Utf16Str::split_nul_terminated(&bytes);
        assert!(first == "Āx");
        let (second, rest) = Utf16Str::split_nul_terminated(rest.unwrap());
        assert!(second == "y");
        assert_eq!(rest, Some(&[][..]));
    }

    #[test]
    fn without_a_nul_the_text_runs_to_the_end() {
        let (text, rest) = Utf16Str::split_nul_terminated(&[b'a', 0, b'b']);
        assert!(text == "a");
        assert_eq!(rest, None);
        let (empty, rest) = Utf16Str::split_nul_terminated(&[]);
        assert!(empty.is_empty());
        assert_eq!(rest, None);
        assert!(!text.is_empty());
    }

    #[test]
    fn units_know_how_many_are_left() {
        let from_bytes = Utf16Str::split_nul_terminated(&[b'a', 0, b'b', 0, b'c', 0]).0;
        let mut units = from_bytes.units();
        assert_eq!((units.len(), units.size_hint()), (3, (3, Some(3))));
        units.next();
        assert_eq!(units.size_hint(), (2, Some(2)));
        let stored = [1, 2];
        let mut units = Utf16Str::from_units(&stored).units();
        assert_eq!(units.size_hint(), (2, Some(2)));
        units.next();
        assert_eq!(units.len(), 1);
    }

    #[test]
    fn equal_exactly_when_the_code_units_are() {
        let from_bytes = Utf16Str::split_nul_terminated(&[b'o', 0, b'k', 0]).0;
        let units = [u16::from(b'o'), u16::from(b'k')];
        assert!(from_bytes == Utf16Str::from_units(&units));
        assert!(from_bytes != Utf16Str::from_units(&units[..1]));
        assert!(from_bytes != Utf16Str::from_units(&[u16::from(b'o'), 0x6B00]));
    }

    #[test]
    fn unpaired_surrogates_are_kept_and_shown() {
        let units = [u16::from(b'a'), 0xD800, u16::from(b'b')];
        let text = Utf16Str::from_units(&units);
        assert!(!text.is_well_formed());
        assert_eq!(text.units().collect::<std::vec::Vec<_>>(), units);
        assert_eq!(text.to_string(), "a\u{FFFD}b");
        assert_eq!(std::format!("{text:?}"), "\"a\\u{d800}b\"");
        assert!(text != "a\u{FFFD}b");
    }

    #[test]
    fn bytes_and_units_compare_equal() {
        let units = [u16::from(b'h'), 0x20AC, 0];
        let bytes = [b'h', 0, 0xAC, 0x20];
        assert_eq!(
            Utf16Str::from_units_until_nul(&units),
            Utf16Str::from_le_bytes(&bytes)
        );
        assert_eq!(Utf16Str::from_le_bytes(&bytes).to_string(), "h€");
    }
}
