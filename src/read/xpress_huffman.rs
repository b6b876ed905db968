//! Decompression of the MS-XCA "LZ77+Huffman" format (`COMPRESSION_FORMAT_XPRESS_HUFF`,
//! format 4), in which a trace buffer's events may be compressed when its `State` names it (see
//! [`EtlBuffer::compression_format`](crate::read::EtlBuffer::compression_format)).
//!
//! # The format ([MS-XCA] sections 2.1 and 2.2)
//!
//! The input is a series of blocks, each decoding to 65536 bytes of output (the last one to
//! fewer):
//!
//! - **Code lengths** (section 2.1.4.3): the block starts with a 256-byte table of the 512
//!   symbols' 4-bit Huffman code lengths, symbol `2n` in the low half of byte `n`, symbol `2n+1`
//!   in its high half; 0 means the symbol is not used.
//! - **Canonical codes** (section 2.2.4, "Build the decoding table"): the codes are assigned in
//!   order of length, then of symbol, each symbol of length L taking `2^(15 - L)` consecutive
//!   entries of a table indexed by the next 15 bits. The lengths must fill that table exactly:
//!   more entries than it has, or fewer, is an error.
//! - **The bit stream** (section 2.2.4): after the table, "NextBits" is loaded with two
//!   little-endian 16-bit words, the first in its high half; a symbol's code is read from its
//!   most significant bits. Whenever consuming bits leaves fewer than 16 of them, the next 16-bit
//!   word is read at "CurrentPosition" and slotted in below the bits left. The extra bytes of a
//!   long match are read at "CurrentPosition" too, between those words.
//! - **Symbols** (sections 2.1.4.1, 2.2.4): 0 to 255 are literals. 256 to 511 are matches:
//!   "MatchLength = HuffmanSymbol mod 16" and "MatchOffsetBitLength = HuffmanSymbol / 16" of the
//!   symbol minus 256. A length code of 15 means a byte follows at "CurrentPosition": 0 to 254 is
//!   the length beyond 15; 255 means a little-endian 16-bit length follows, or, if it is 0, a
//!   32-bit one, either being the match length minus 3, and one below 15 an error. Otherwise the
//!   length is the code; a match is 3 bytes longer than its length. The distance is
//!   `2^MatchOffsetBitLength` plus the next `MatchOffsetBitLength` bits of the bit stream (1 to
//!   65535). A match copies its bytes one at a time, so a match longer than its distance repeats
//!   the bytes it has just written, and it may reach back into earlier blocks.
//! - **Blocks** (section 2.2.4): a block ends once 65536 bytes (or more, when a match runs past)
//!   have been written since it started; the next block's table starts at "CurrentPosition".
//!
//! # Where the stream ends
//!
//! Symbol 256 is also the end-of-file symbol: [MS-XCA] ends decompression there when "the entire
//! input buffer has been read and the expected decompressed size has been written to the output
//! buffer". The expected size is not part of the stream, so this decoder ends at symbol 256 when
//! the entire input has been read (the bit stream's last word loaded, the condition every
//! stream the section 2.1 compressor writes meets, since it flushes its last words right after
//! the end symbol), **or** when `output` is full (a match could not fit there anyway: a caller
//! whose output is exactly the expected size, as the trace reader's is, gets the section's rule).
//! Elsewhere symbol 256 is a match of length 3 at distance 1.
//!
//! The stream also ends, as section 2.2.4 has it, where a block would start and no input is
//! left, or fewer than the 256 bytes of a table are left and `output` is full. Input that ends
//! inside a table (otherwise), where a 16-bit word of the bit stream is due or inside a long
//! match's length bytes is an error.
//!
//! A caller that knows the decompressed length (for a trace buffer, `Offset - 0x48`) should
//! compare it with the length returned.
//!
//! # Output after an error
//!
//! Every error names an input offset: that of the table, of the length bytes, or, for a symbol,
//! the offset the bit stream had reached (the next word it would load). When an error is
//! returned, the start of `output` holds the decoding of every symbol before the one at fault,
//! nothing of that one is written, and the bytes after are left as they were.
//!
//! # How
//!
//! The decoding table is not built as section 2.2.4 describes it, `2^15` entries for each block,
//! but as one of `2^11` entries indexed by the next 11 bits, which gives the symbol and its
//! length for every code of up to 11 bits; the rarer longer codes are found from where each
//! length's codes start among the `2^15` entries (at most four comparisons). Both are built with
//! bounded loops over fixed-size arrays, and give the symbol section 2.2.4's table gives.
//!
//! [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/

use crate::invariant::{known, not_reached, usize_from_u32};
use crate::read::error::XpressHuffmanError;
use crate::read::plain_lz77::copy_match_that_fits;

/// The bytes of a block's table of code lengths.
pub const TABLE_SIZE: usize = 256;
/// The output bytes of a block (the last one may have fewer).
pub const BLOCK_SIZE: usize = 65536;
/// Symbols of the Huffman code: 256 literals and 256 matches.
const SYMBOLS: usize = 512;
/// The longest code: a length is 4 bits.
const MAX_CODE_BITS: u32 = 15;
/// Entries of section 2.2.4's decoding table: `2^15`.
const CODE_SPACE: u32 = 1 << MAX_CODE_BITS;
/// Bits that index [`Decoder::primary`].
const PRIMARY_BITS: u32 = 11;
/// The first symbol that is not a literal: a match, or the end of the stream.
const END_SYMBOL: u16 = 256;
/// The length code that announces a length byte.
const LONG_LENGTH_CODE: u16 = 15;
/// The shortest match.
const MIN_MATCH: u64 = 3;
/// The length byte that announces a 16- or 32-bit length.
const BYTE_ESCAPE: u8 = 255;
/// The smallest 16- or 32-bit length allowed: "If MatchLength < 15" it is an error.
const MIN_WIDE_LENGTH: u32 = 15;

/// The decoding table of one block.
#[derive(Debug)]
struct Decoder {
    /// For each value of the next 11 bits: the symbol (bits 0 to 8) and its code length (bits
    /// 12 to 15) when the code is at most 11 bits long; 0 when it is longer.
    primary: [u16; 1 << PRIMARY_BITS],
    /// The symbols in code order: by length, then by value.
    sorted: [u16; SYMBOLS],
    /// For the code lengths 12 to 15: where their codes start among the `2^15` entries of
    /// section 2.2.4's table (and, last, where the codes of length 15 end)...
    long_start: [u32; 5],
    /// ...and the index in `sorted` of the first symbol of each of those lengths.
    long_first: [u16; 4],
}

impl Decoder {
    const fn new() -> Self {
        Self {
            primary: [0; 1 << PRIMARY_BITS],
            sorted: [0; SYMBOLS],
            long_start: [0; 5],
            long_first: [0; 4],
        }
    }

    /// Builds the decoding table of `table`, the code lengths. Returns the number of entries of
    /// section 2.2.4's `2^15`-entry table the lengths fill, when that is not exactly `2^15`.
    #[allow(clippy::arithmetic_side_effects)] // Each operation says why it stays in range.
    fn build(&mut self, table: &[u8; TABLE_SIZE]) -> Result<(), u32> {
        // Symbols of each length (index 0: unused symbols), at most 512.
        let mut count = [0u16; 16];
        for &byte in table {
            for length in [byte & 0x0F, byte >> 4] {
                // A 4-bit length indexes the 16 counts.
                let slot = count.get_mut(usize::from(length));
                debug_assert!(slot.is_some(), "a code length above 15");
                if let Some(count) = slot {
                    *count += 1;
                }
            }
        }
        // At most 512 * 2^14 = 2^23.
        let mut filled: u32 = 0;
        // Where each length's symbols start in `sorted`, and its codes in the code space.
        let mut next = [0u16; 16];
        let mut start = [0u32; 17];
        let mut symbols_before: u16 = 0;
        for length in 1..=MAX_CODE_BITS {
            // 1 to 15: an index of the 16 counts, the 16 `next` and the 17 `start`.
            let index = usize_from_u32(length);
            let symbols = known(count.get(index).copied(), 0);
            debug_assert!(index < next.len() && index < start.len());
            if let Some(next) = next.get_mut(index) {
                *next = symbols_before;
            }
            if let Some(start) = start.get_mut(index) {
                *start = filled;
            }
            symbols_before += symbols;
            filled += u32::from(symbols) << (MAX_CODE_BITS - length);
        }
        if filled != CODE_SPACE {
            return Err(filled);
        }
        // Counting sort: by length, then by value, as the symbols are visited in order.
        for (pair, &byte) in (0u16..).zip(table) {
            for (symbol, length) in [(2 * pair, byte & 0x0F), (2 * pair + 1, byte >> 4)] {
                if length == 0 {
                    continue;
                }
                // A 4-bit length indexes the 16 `next`; each of the at most 512 symbols takes
                // its own slot of `sorted`, from where the symbols of its length start.
                let Some(next) = next.get_mut(usize::from(length)) else {
                    not_reached();
                    continue;
                };
                let slot = self.sorted.get_mut(usize::from(*next));
                debug_assert!(slot.is_some(), "more symbols than `sorted` holds");
                if let Some(slot) = slot {
                    *slot = symbol;
                }
                // At most the 512 symbols.
                *next += 1;
            }
        }
        // The codes of up to 11 bits fill the start of the code space, each `2^(15 - length)`
        // entries, so `2^(11 - length)` primary entries; the rest are long.
        let mut entry: usize = 0;
        let mut index: usize = 0;
        for length in 1..=PRIMARY_BITS {
            // 1 to 11: an index of the 16 counts, and a `u16`.
            let symbols = usize::from(known(count.get(usize_from_u32(length)).copied(), 0));
            let span = 1usize << (PRIMARY_BITS - length);
            // The length in bits 12 to 15.
            let tag = known(u16::try_from(length).ok(), 0) << 12;
            for &symbol in self.sorted.iter().skip(index).take(symbols) {
                for slot in self.primary.iter_mut().skip(entry).take(span) {
                    *slot = symbol | tag;
                }
                // At most `2^11` in all: the lengths fill the code space exactly.
                entry += span;
            }
            // At most 512.
            index += symbols;
        }
        for slot in self.primary.iter_mut().skip(entry) {
            *slot = 0;
        }
        // The four lengths 12 to 15: slots 0 to 3 of the 5 `long_start` and 4 `long_first`,
        // indexes 12 to 15 of `start`, `next` and `count`.
        for (slot, length) in (12..=MAX_CODE_BITS).enumerate() {
            let index = usize_from_u32(length);
            debug_assert!(slot < self.long_start.len() && slot < self.long_first.len());
            if let Some(long) = self.long_start.get_mut(slot) {
                *long = known(start.get(index).copied(), CODE_SPACE);
            }
            if let Some(first) = self.long_first.get_mut(slot) {
                // Where the symbols of this length start: `next` now holds where they end.
                let end = known(next.get(index).copied(), 0);
                *first = end - known(count.get(index).copied(), 0);
            }
        }
        if let Some(end) = self.long_start.last_mut() {
            *end = CODE_SPACE;
        }
        Ok(())
    }

    /// The symbol whose code starts the 15 bits of `window`, and the code's length.
    #[inline(always)]
    fn decode(&self, window: u32) -> (u16, u32) {
        // `window` has 15 bits: its top 11 index the `2^11` entries.
        let primary = window >> (MAX_CODE_BITS - PRIMARY_BITS);
        let entry = known(self.primary.get(usize_from_u32(primary)).copied(), 0);
        if entry != 0 {
            return (entry & 0x1FF, u32::from(entry >> 12));
        }
        self.decode_long(window)
    }

    /// [`decode`](Self::decode) for a code longer than 11 bits: the length whose codes' range
    /// holds `window`, and the symbol at `window`'s place in it.
    #[inline(never)]
    fn decode_long(&self, window: u32) -> (u16, u32) {
        for ((length, pair), &first) in (12..=MAX_CODE_BITS)
            .zip(self.long_start.windows(2))
            .zip(&self.long_first)
        {
            // `windows(2)` gives pairs.
            let [start, end] = [
                known(pair.first().copied(), 0),
                known(pair.get(1).copied(), 0),
            ];
            if (start..end).contains(&window) {
                // `window >= start`; the quotient is below the count of this length's symbols.
                #[allow(clippy::arithmetic_side_effects)]
                let index = usize::from(first)
                    + usize_from_u32((window - start) >> (MAX_CODE_BITS - length));
                let symbol = known(self.sorted.get(index).copied(), 0);
                return (symbol, length);
            }
        }
        // Not reached: the lengths fill the code space, and the short codes its start.
        not_reached();
        (0, MAX_CODE_BITS)
    }
}

/// Section 2.2.4's bit reader: "NextBits", the bits it holds beyond 16 ("ExtraBitCount"), and
/// "CurrentPosition".
#[derive(Clone, Copy, Debug)]
struct Bits {
    /// The next bits, the first in bit 31.
    next: u32,
    /// How many of them there are beyond 16: 0 to 16.
    extra: u32,
    /// Where the next 16-bit word (or length byte) is read.
    position: usize,
}

impl Bits {
    /// Loads two 16-bit words at `position`.
    fn start(input: &[u8], position: usize) -> Result<Self, XpressHuffmanError> {
        let high = word_at(input, position)?;
        // At most `input.len()`: the word was there.
        #[allow(clippy::arithmetic_side_effects)]
        let position = position + 2;
        let low = word_at(input, position)?;
        #[allow(clippy::arithmetic_side_effects)]
        let position = position + 2;
        Ok(Self {
            next: u32::from(high) << 16 | u32::from(low),
            extra: 16,
            position,
        })
    }

    /// The next `count` bits (0 to 15) as a number, without consuming them.
    #[inline(always)]
    fn peek(&self, count: u32) -> u32 {
        // A shift of 32 (for 0 bits) gives 0.
        self.next.unbounded_shr(32u32.saturating_sub(count))
    }

    /// Consumes `count` bits (0 to 15), loading the next word when fewer than 16 are left.
    #[inline(always)]
    fn consume(&mut self, input: &[u8], count: u32) -> Result<(), XpressHuffmanError> {
        self.next = self.next.unbounded_shl(count);
        if count <= self.extra {
            // `count <= extra`.
            #[allow(clippy::arithmetic_side_effects)]
            {
                self.extra -= count;
            }
            return Ok(());
        }
        let word = word_at(input, self.position)?;
        // `extra < count <= 15`: the word goes `count - extra` (1 to 15) bits up, and
        // `extra + 16 - count` is 1 to 15; the position stays within the input, where the word
        // was.
        #[allow(clippy::arithmetic_side_effects)]
        {
            self.next |= u32::from(word) << (count - self.extra);
            self.extra = self.extra + 16 - count;
            self.position += 2;
        }
        Ok(())
    }

    /// The `N` bytes at the position, which moves past them: a long match's length bytes.
    fn take<const N: usize>(&mut self, input: &[u8]) -> Result<[u8; N], XpressHuffmanError> {
        // The position never passes the end of the input: it moves past bytes that were there.
        let rest = known(input.get(self.position..), &[]);
        let Some(bytes) = rest.first_chunk::<N>() else {
            return Err(XpressHuffmanError::LengthTruncated {
                offset: self.position,
                needed: N,
                available: rest.len(),
            });
        };
        // At most `input.len()`: the bytes were there.
        #[allow(clippy::arithmetic_side_effects)]
        {
            self.position += N;
        }
        Ok(*bytes)
    }
}

/// The little-endian 16-bit word at `position`.
fn word_at(input: &[u8], position: usize) -> Result<u16, XpressHuffmanError> {
    // Every position given is at most the input's length: just past bytes that were there.
    let rest = known(input.get(position..), &[]);
    match rest.first_chunk::<2>() {
        Some(word) => Ok(u16::from_le_bytes(*word)),
        None => Err(XpressHuffmanError::BitsTruncated {
            offset: position,
            available: rest.len(),
        }),
    }
}

/// Decompresses all of `input`, an LZ77+Huffman stream, into the start of `output`, and returns
/// the number of bytes written.
///
/// The stream ends at symbol 256 once the input is read or `output` is full, or where the input
/// ends at a block boundary, as the [module documentation](self) details: an input of zero bytes
/// is complete. Decoding takes time linear in `input.len() + output.len()`, and about 6 KiB of
/// stack for the decoding table.
///
/// ```
/// // [MS-XCA] section 3.2: 300 bytes, "abc" then a match of distance 3 and length 297. All
/// // code lengths are 0 but those of 'a' and 'b' (3), 'c', 256 and 287 (2).
/// let mut compressed = [0u8; 263];
/// compressed[0x30] = 0x30;
/// compressed[0x31] = 0x23;
/// compressed[0x80] = 0x02;
/// compressed[0x8f] = 0x20;
/// compressed[256..].copy_from_slice(&[0xa8, 0xdc, 0x00, 0x00, 0xff, 0x26, 0x01]);
/// let mut output = [0; 300];
/// let written = etw_classic::xpress_huffman::decompress(&compressed, &mut output)?;
/// assert_eq!(written, 300);
/// assert!(output.chunks(3).all(|chunk| chunk == b"abc"));
/// # Ok::<(), etw_classic::read::XpressHuffmanError>(())
/// ```
///
/// # Errors
/// Each error carries an input offset; `output` then holds the decoding of the symbols before
/// the one at fault (see [Output after an error](self#output-after-an-error)).
/// - [`XpressHuffmanError::TableTruncated`]: 1 to 255 bytes left where a block's table is due,
///   and room left in `output`;
/// - [`XpressHuffmanError::InvalidCodeLengths`]: a table whose lengths do not fill the code
///   space exactly;
/// - [`XpressHuffmanError::BitsTruncated`]: fewer than 2 bytes left where the bit stream loads
///   a word;
/// - [`XpressHuffmanError::LengthTruncated`]: a long match's length bytes run past the input;
/// - [`XpressHuffmanError::LengthBelowMinimum`]: a 16- or 32-bit length below 15;
/// - [`XpressHuffmanError::DistanceBeforeStart`]: a match reaches back before the start of the
///   output;
/// - [`XpressHuffmanError::OutputTooSmall`]: `output` has no room for a literal or a whole match.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, XpressHuffmanError> {
    let mut decoder = Decoder::new();
    let mut position: usize = 0;
    // Bytes written to the start of `output`: never more than `output.len()`, since each symbol
    // is written only where `output` holds it.
    let mut written: usize = 0;
    loop {
        // At most the input's length: where the bit stream stopped, inside the input.
        let rest = known(input.get(position..), &[]);
        let Some(table) = rest.first_chunk::<TABLE_SIZE>() else {
            if rest.is_empty() || written == output.len() {
                return Ok(written);
            }
            return Err(XpressHuffmanError::TableTruncated {
                offset: position,
                available: rest.len(),
            });
        };
        decoder
            .build(table)
            .map_err(|filled| XpressHuffmanError::InvalidCodeLengths {
                offset: position,
                filled,
            })?;
        // At most `input.len()`: the table was there.
        #[allow(clippy::arithmetic_side_effects)]
        let mut bits = Bits::start(input, position + TABLE_SIZE)?;
        let block_end = written.saturating_add(BLOCK_SIZE);
        while written < block_end {
            let at = bits.position;
            let (symbol, length) = decoder.decode(bits.peek(MAX_CODE_BITS));
            bits.consume(input, length)?;
            if symbol < END_SYMBOL {
                let Some(target) = output.get_mut(written) else {
                    return Err(XpressHuffmanError::OutputTooSmall {
                        offset: at,
                        needed: 1,
                        available: 0,
                    });
                };
                // A literal: the symbol is below 256.
                *target = known(u8::try_from(symbol).ok(), 0);
                // `output` held a byte at `written`.
                #[allow(clippy::arithmetic_side_effects)]
                {
                    written += 1;
                }
                continue;
            }
            if symbol == END_SYMBOL && (bits.position >= input.len() || written == output.len()) {
                return Ok(written);
            }
            // 0 to 255: a length code of 0 to 15 and 0 to 15 distance bits.
            let code = symbol & 0xFF;
            let length_code = code & 0x0F;
            let distance_bits = u32::from(code >> 4);
            let length = if length_code == LONG_LENGTH_CODE {
                long_match_length(input, &mut bits)?
            } else {
                u64::from(length_code) + MIN_MATCH
            };
            // 1 to 65535.
            let distance = usize_from_u32((1u32 << distance_bits) | bits.peek(distance_bits));
            bits.consume(input, distance_bits)?;
            if distance > written {
                return Err(XpressHuffmanError::DistanceBeforeStart {
                    offset: at,
                    distance,
                    written,
                });
            }
            // `written <= output.len()`.
            written =
                copy_match_that_fits(output, distance, written, length).map_err(|available| {
                    XpressHuffmanError::OutputTooSmall {
                        offset: at,
                        needed: length,
                        available,
                    }
                })?;
        }
        position = bits.position;
    }
}

/// The length of a match whose length code is 15, from the bytes at the bit reader's position.
fn long_match_length(input: &[u8], bits: &mut Bits) -> Result<u64, XpressHuffmanError> {
    let [byte] = bits.take::<1>(input)?;
    if byte != BYTE_ESCAPE {
        // At most 254 + 15 + 3.
        #[allow(clippy::arithmetic_side_effects)]
        return Ok(u64::from(byte) + u64::from(LONG_LENGTH_CODE) + MIN_MATCH);
    }
    let mut field = bits.position;
    let mut wide = u32::from(u16::from_le_bytes(bits.take::<2>(input)?));
    if wide == 0 {
        field = bits.position;
        wide = u32::from_le_bytes(bits.take::<4>(input)?);
    }
    if wide < MIN_WIDE_LENGTH {
        return Err(XpressHuffmanError::LengthBelowMinimum {
            offset: field,
            found: wide,
        });
    }
    Ok(u64::from(wide) + MIN_MATCH)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// A table of code lengths from `(symbol, length)` pairs.
    fn table(lengths: &[(usize, u8)]) -> [u8; TABLE_SIZE] {
        let mut table = [0; TABLE_SIZE];
        for &(symbol, length) in lengths {
            table[symbol / 2] |= if symbol % 2 == 0 { length } else { length << 4 };
        }
        table
    }

    /// [MS-XCA] section 3.2, first example: "abcdefghijklmnopqrstuvwxyz" as literals.
    fn alphabet() -> Vec<u8> {
        let mut input = std::vec![0u8; TABLE_SIZE];
        input[0x30..0x3E].copy_from_slice(&[
            0x50, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x45, 0x44, 0x04,
        ]);
        input[0x80] = 0x04;
        input.extend_from_slice(&[
            0xd8, 0x52, 0x3e, 0xd7, 0x94, 0x11, 0x5b, 0xe9, 0x19, 0x5f, 0xf9, 0xd6, 0x7c, 0xdf,
            0x8d, 0x04, 0x00, 0x00, 0x00, 0x00,
        ]);
        input
    }

    /// [MS-XCA] section 3.2, second example: 100 times "abc".
    fn abc() -> Vec<u8> {
        let mut input = std::vec![0u8; TABLE_SIZE];
        input[0x30] = 0x30;
        input[0x31] = 0x23;
        input[0x80] = 0x02;
        input[0x8f] = 0x20;
        input.extend_from_slice(&[0xa8, 0xdc, 0x00, 0x00, 0xff, 0x26, 0x01]);
        input
    }

    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "broken invariant"))]
    fn a_window_outside_every_long_code_is_a_broken_invariant() {
        // A decoder whose table was never built: no range of long codes holds any window, the
        // arm `build` rules out for every table it accepts. Release builds give symbol 0.
        let decoder = Decoder::new();
        assert_eq!(decoder.decode_long(0x7FFF), (0, MAX_CODE_BITS));
    }

    #[test]
    fn the_section_3_2_examples_decode() {
        let mut output = [0x5A; 400];
        assert_eq!(decompress(&alphabet(), &mut output), Ok(26));
        assert_eq!(&output[..26], b"abcdefghijklmnopqrstuvwxyz");
        assert!(output[26..].iter().all(|&byte| byte == 0x5A));
        assert_eq!(decompress(&abc(), &mut output), Ok(300));
        assert!(output[..300].chunks(3).all(|chunk| chunk == b"abc"));
        assert!(output[300..].iter().all(|&byte| byte == 0x5A));
        // Into outputs of exactly their size.
        assert_eq!(decompress(&alphabet(), &mut output[..26]), Ok(26));
        assert_eq!(decompress(&abc(), &mut output[..300]), Ok(300));
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "2^15 entries, minutes under Miri; no byte order involved"
    )]
    fn the_decoding_table_gives_the_section_2_2_4_symbols() {
        // Lengths of every size, the longest filling the space: the primary table and the long
        // path against the section's table of 2^15 entries, built as it says.
        let mut lengths = Vec::new();
        let mut symbol = 0;
        // 1 of 2, 1 of 3, ..., 1 of 14, then 2 of 15: a complete code.
        for length in 1..=14u8 {
            lengths.push((symbol, length));
            symbol += 31;
        }
        lengths.push((symbol, 15));
        lengths.push((511, 15));
        let table = table(&lengths);
        let mut decoder = Decoder::new();
        decoder.build(&table).unwrap();
        let reference = section_table(&table);
        assert_eq!(reference.len(), 1 << 15);
        for (window, expected) in reference.iter().enumerate() {
            assert_eq!(
                decoder.decode(window as u32),
                *expected,
                "window {window:#x}"
            );
        }
    }

    #[test]
    fn code_lengths_that_do_not_fill_the_space_are_an_error() {
        let mut decoder = Decoder::new();
        // Nothing used.
        assert_eq!(decoder.build(&[0; TABLE_SIZE]), Err(0));
        // One symbol of length 1: half the space.
        assert_eq!(decoder.build(&table(&[(3, 1)])), Err(1 << 14));
        // Three of length 1: more than the space.
        assert_eq!(
            decoder.build(&table(&[(0, 1), (1, 1), (2, 1)])),
            Err(3 << 14)
        );
        let mut input = table(&[(3, 1)]).to_vec();
        input.extend_from_slice(&[0; 4]);
        assert_eq!(
            decompress(&input, &mut [0; 8]),
            Err(XpressHuffmanError::InvalidCodeLengths {
                offset: 0,
                filled: 1 << 14
            })
        );
    }

    #[test]
    fn a_complete_code_of_two_odd_symbols_decodes_and_a_changed_length_is_refused() {
        // The property test's case `seed = 2716458960641060714, leaves = 2`: symbols 453 and 27
        // of length 1, both odd, so every low half of the table is 0.
        let table = random_complete_table(2716458960641060714, 2);
        assert_eq!(table, self::table(&[(27, 1), (453, 1)]));
        assert!(table.iter().all(|&byte| byte & 0x0F == 0));
        let mut decoder = Decoder::new();
        assert_eq!(decoder.build(&table), Ok(()));
        // Section 2.2.4: codes in order of length, then of symbol, each of length 1 taking
        // 2^14 entries: 27 the first half, 453 the second.
        for window in [0, 0x3FFF] {
            assert_eq!(decoder.decode(window), (27, 1), "window {window:#x}");
        }
        for window in [0x4000, 0x7FFF] {
            assert_eq!(decoder.decode(window), (453, 1), "window {window:#x}");
        }
        // Symbol 27's length made 2 (the high half of byte 13): 2^13 + 2^14 entries.
        let mut broken = table;
        broken[13] = 0x20;
        assert_eq!(decoder.build(&broken), Err(0x6000));
    }

    #[test]
    fn errors_name_what_was_expected_and_where() {
        let mut output = [0; 400];
        assert_eq!(
            decompress(&[0; 100], &mut output),
            Err(XpressHuffmanError::TableTruncated {
                offset: 0,
                available: 100
            })
        );
        // An output that is full: the stream is complete there, as section 2.2.4 says.
        assert_eq!(decompress(&[0; 100], &mut []), Ok(0));
        assert_eq!(
            decompress(&abc()[..258], &mut output),
            Err(XpressHuffmanError::BitsTruncated {
                offset: 258,
                available: 0
            })
        );
        // Cut inside the 16-bit length: the match's length byte 255 is at 260.
        assert_eq!(
            decompress(&abc()[..262], &mut output),
            Err(XpressHuffmanError::LengthTruncated {
                offset: 261,
                needed: 2,
                available: 1
            })
        );
        assert_eq!(
            decompress(&abc(), &mut output[..299]),
            Err(XpressHuffmanError::OutputTooSmall {
                offset: 260,
                needed: 297,
                available: 296
            })
        );
        assert_eq!(
            decompress(&alphabet(), &mut output[..25]),
            Err(XpressHuffmanError::OutputTooSmall {
                offset: 274,
                needed: 1,
                available: 0
            })
        );
        // A 16-bit length of 14.
        let mut short = abc();
        short[261] = 14;
        short[262] = 0;
        assert_eq!(
            decompress(&short, &mut output),
            Err(XpressHuffmanError::LengthBelowMinimum {
                offset: 261,
                found: 14
            })
        );
        // The match first: nothing to copy from.
        let mut first = table(&[(0x61, 1), (287, 1)]).to_vec();
        first.extend_from_slice(&[0x00, 0x80, 0x00, 0x00, 0x01, 0x00]);
        assert_eq!(
            decompress(&first, &mut output),
            Err(XpressHuffmanError::DistanceBeforeStart {
                offset: 260,
                distance: 2,
                written: 0
            })
        );
    }

    /// The decoding table of section 2.2.4, built as it says: `2^15` entries, each symbol of
    /// length L taking `2^(15 - L)` in order of length then symbol.
    fn section_table(table: &[u8; TABLE_SIZE]) -> Vec<(u16, u32)> {
        let mut entries = Vec::new();
        for length in 1..=15u8 {
            for symbol in 0..512usize {
                if (table[symbol / 2] >> (4 * (symbol % 2))) & 0x0F == length {
                    entries.extend(std::iter::repeat_n(
                        (symbol as u16, u32::from(length)),
                        1 << (15 - length),
                    ));
                }
            }
        }
        entries
    }

    /// A complete code of `leaves` (2 to 512) symbols from `seed`: two codes of length 1, then
    /// a code below 15 bits split in two, again and again; the lengths given to symbols picked
    /// at random.
    fn random_complete_table(seed: u64, leaves: usize) -> [u8; TABLE_SIZE] {
        let mut state = seed | 1;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let mut lengths = std::vec![1u8, 1];
        while lengths.len() < leaves {
            let splittable: Vec<usize> = (0..lengths.len()).filter(|&i| lengths[i] < 15).collect();
            if splittable.is_empty() {
                break;
            }
            let at = splittable[next(splittable.len())];
            lengths[at] += 1;
            lengths.push(lengths[at]);
        }
        let mut symbols: Vec<usize> = (0..512).collect();
        for i in (1..symbols.len()).rev() {
            symbols.swap(i, next(i + 1));
        }
        let pairs: Vec<(usize, u8)> = symbols.into_iter().zip(lengths).collect();
        table(&pairs)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        #[cfg_attr(miri, ignore = "2^15 entries a case, minutes under Miri; no byte order involved")]
        fn any_complete_code_decodes_as_the_section_2_2_4_table(
            seed in proptest::prelude::any::<u64>(),
            leaves in 2usize..=512,
        ) {
            let table = random_complete_table(seed, leaves);
            let reference = section_table(&table);
            proptest::prop_assert_eq!(reference.len(), 1 << 15);
            let mut decoder = Decoder::new();
            proptest::prop_assert_eq!(decoder.build(&table), Ok(()));
            for (window, expected) in reference.iter().enumerate() {
                proptest::prop_assert_eq!(decoder.decode(window as u32), *expected);
            }
            // One length changed: the code no longer fills the space. The first used symbol's,
            // in the low or the high half of its byte (two used symbols may both be odd).
            let mut broken = table;
            let (at, shift) = broken
                .iter()
                .enumerate()
                .find_map(|(at, &byte)| match (byte & 0x0F, byte >> 4) {
                    (0, 0) => None,
                    (0, _) => Some((at, 4)),
                    _ => Some((at, 0)),
                })
                .unwrap();
            let length = (broken[at] >> shift) & 0x0F;
            broken[at] = (broken[at] & !(0x0F << shift)) | ((length % 15 + 1) << shift);
            if broken[at] != table[at] {
                proptest::prop_assert!(decoder.build(&broken).is_err());
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_input_decodes_or_fails_without_writing_past_the_decoded_bytes(
            mut input in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            capacity in 0usize..600,
            valid_table in proptest::prelude::any::<bool>(),
        ) {
            if valid_table && input.len() >= TABLE_SIZE {
                // All 512 symbols of length 9: a complete code.
                input[..TABLE_SIZE].fill(0x99);
            }
            let mut output = std::vec![0xA5u8; capacity];
            if let Ok(written) = decompress(&input, &mut output) {
                proptest::prop_assert!(written <= capacity);
                proptest::prop_assert!(output[written..].iter().all(|&byte| byte == 0xA5));
            }
        }
    }
}
