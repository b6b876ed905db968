//! Decompression of the MS-XCA "Plain LZ77" format (`COMPRESSION_FORMAT_XPRESS`, format 3), in
//! which Windows writes the events of a trace buffer whose `BufferFlag` has
//! `ETW_BUFFER_FLAG_COMPRESSED` (0x40) ([`WmiBufferHeader::is_compressed`]).
//!
//! # The format ([MS-XCA] sections 2.3 and 2.4)
//!
//! The input is a sequence of items, each announced by one flag bit:
//!
//! - Flags come in little-endian 32-bit words, "read 4 bytes at InputPosition", used from the
//!   most significant bit down; the next word is read when the 32 flags of the last one are used
//!   up, just before the item it announces.
//! - Flag 0: a literal, one byte copied to the output.
//! - Flag 1: a match, a little-endian 16-bit token: "MatchLength = MatchBytes mod 8",
//!   "MatchOffset = (MatchBytes / 8) + 1" (a distance of 1 to 8192 back into the output).
//!   Length code 0 to 6 means a length of code + 3. Code 7 means a longer match:
//!   - a 4-bit length follows: the low half of a new byte, or the high half of the byte whose
//!     low half the previous long match used (so two long matches share one byte);
//!     0 to 14 means a length of 4-bit + 7 + 3;
//!   - 15: a byte follows; 0 to 254 means a length of byte + 15 + 7 + 3;
//!   - 255: a little-endian 16-bit length follows, or, if it is 0, a 32-bit one. It is the
//!     match length minus 3 and "If MatchLength < 15 + 7, Return error".
//!
//!   A match copies its bytes one at a time from `distance` bytes before the output position,
//!   so a match longer than its distance repeats the bytes it has just written: "aaaaaa" is
//!   "[literal: "a"][match: offset=1, length=5]".
//!
//! # Where the stream ends
//!
//! The format has no end marker and no length field: the end is where the input ends. Decoding
//! stops, successfully, when the input is exhausted exactly where the next item (or flag word)
//! would start:
//! - where a match token would be read: the case the [MS-XCA] pseudo-code names ("If
//!   InputPosition == InputBufferSize, Decompression is complete"), reached at the end of every
//!   stream the section 2.3 compressor writes, since it sets the unused flag bits of the last
//!   word to 1 (and writes an all-ones word when the last one was full); every compressed buffer
//!   of the real Windows traces this crate is tested with ends there;
//! - where a flag word or a literal would be read: the pseudo-code would read past the input
//!   there; this decoder takes it as the end too, so an input cut at an item boundary decodes to
//!   the items before the cut.
//!
//! Input that ends inside a flag word, a match token or a long match's length bytes is an error.
//! A truncated stream is therefore not always detected: a caller that knows the decompressed
//! length (for a trace buffer, `Offset - 0x48`; see `tests/plain_lz77.rs`) should compare it with
//! the length returned.
//!
//! # Output after an error
//!
//! Every error names the input offset of the item at fault (for
//! [`LengthBelowMinimum`](Lz77Error::LengthBelowMinimum) and
//! [`LengthTruncated`](Lz77Error::LengthTruncated), of the length bytes). When an error is
//! returned, the start of `output` holds the decoding of every item before that one, nothing of
//! the item at fault is written, and the bytes after are left as they were.
//!
//! [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/
//! [`WmiBufferHeader::is_compressed`]: crate::wire::WmiBufferHeader::is_compressed

use crate::read::error::Lz77Error;

/// Flags in a flag word.
const FLAGS_PER_WORD: u32 = 32;
/// The smallest match: a length code of 0 means 3 bytes. A 16- or 32-bit length is the match
/// length minus this.
const MIN_MATCH: u64 = 3;
/// The length code (low 3 bits of a match token) that announces a longer length.
const LONG_LENGTH_CODE: u16 = 7;
/// What a 4-bit length of 0 to 14 is added to: the length code 7, plus 3.
const NIBBLE_BASE: u64 = 7 + MIN_MATCH;
/// The 4-bit length that announces a length byte.
const NIBBLE_ESCAPE: u8 = 15;
/// What a length byte of 0 to 254 is added to: the 4-bit length 15, plus 7, plus 3.
const BYTE_BASE: u64 = 15 + NIBBLE_BASE;
/// The length byte that announces a 16-bit (or 32-bit) length.
const BYTE_ESCAPE: u8 = 255;
/// The smallest 16- or 32-bit length allowed: "If MatchLength < 15 + 7, Return error".
const MIN_WIDE_LENGTH: u32 = 15 + 7;

/// Decompresses all of `input`, a Plain LZ77 stream, into the start of `output`, and returns the
/// number of bytes written.
///
/// The stream ends where `input` ends, as the [module documentation](self) details: an input of
/// zero bytes, or one that ends where a flag word, a literal or a match would start, is complete.
/// Matches longer than their distance are copied byte by byte in effect, as the format requires.
/// Decoding takes time linear in `input.len() + output.len()`.
///
/// ```
/// // [MS-XCA] section 3.1: "abc" then a match of distance 3 and length 297.
/// let compressed = [0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01];
/// let mut output = [0; 300];
/// let written = etw_classic::plain_lz77::decompress(&compressed, &mut output)?;
/// assert_eq!(written, 300);
/// assert!(output.chunks(3).all(|chunk| chunk == b"abc"));
/// # Ok::<(), etw_classic::read::Lz77Error>(())
/// ```
///
/// # Errors
/// Each error carries the input offset of the item at fault; `output` then holds the decoding of
/// the items before it (see [Output after an error](self#output-after-an-error)).
/// - [`Lz77Error::FlagsTruncated`]: 1 to 3 bytes left where a flag word is due;
/// - [`Lz77Error::MatchTruncated`]: 1 byte left where a match token is due;
/// - [`Lz77Error::LengthTruncated`]: a long match's length bytes run past the input;
/// - [`Lz77Error::LengthBelowMinimum`]: a 16- or 32-bit length below 22;
/// - [`Lz77Error::DistanceBeforeStart`]: a match reaches back before the start of the output;
/// - [`Lz77Error::OutputTooSmall`]: `output` has no room for a literal or a whole match.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Lz77Error> {
    let mut cursor = Cursor {
        rest: input,
        written: 0,
        flags: 0,
        flags_left: 0,
        shared_nibble: None,
    };
    bulk(output, &mut cursor);
    decode_exactly(input, output, cursor)
}

/// Where decoding stands, between two items.
#[derive(Clone, Copy, Debug)]
struct Cursor<'a> {
    /// The input not read yet: what is left of `input` once the bytes read are split off its
    /// front, so always a suffix of it.
    rest: &'a [u8],
    /// Bytes written to the start of `output`.
    written: usize,
    /// The flags not used yet, the next one in bit 31 (the bits after them do not matter)...
    flags: u32,
    /// ...and how many there are.
    flags_left: u32,
    /// The high half of the byte the previous long match took its 4-bit length from, until a
    /// second long match uses it.
    shared_nibble: Option<u8>,
}

/// Decodes the rest of the stream from `cursor`, item by item, writing no byte of `output`
/// past the items decoded: what [`decompress`] promises, and where its errors come from.
fn decode_exactly(input: &[u8], output: &mut [u8], cursor: Cursor<'_>) -> Result<usize, Lz77Error> {
    let Cursor {
        mut rest,
        // Bytes written to the start of `output`. It only grows, and never past
        // `output.len()`: literals are written, and `written` moved past them, only where
        // `output` holds them, and a match only when `length <= output.len() - written`
        // (`bulk` leaves it at most `output.len()` as well).
        mut written,
        mut flags,
        mut flags_left,
        mut shared_nibble,
    } = cursor;

    loop {
        if flags_left == 0 {
            let Some((word, after)) = rest.split_first_chunk::<4>() else {
                if rest.is_empty() {
                    return Ok(written);
                }
                return Err(Lz77Error::FlagsTruncated {
                    offset: offset_in(input, rest),
                    available: rest.len(),
                });
            };
            flags = u32::from_le_bytes(*word);
            flags_left = FLAGS_PER_WORD;
            rest = after;
        }

        // A run of literals: as many as there are 0 flags before the next 1 (or the word's end),
        // copied in one go.
        let run = flags.leading_zeros().min(flags_left);
        if run != 0 {
            // At most 32 (`FLAGS_PER_WORD`), which any `usize` holds.
            #[allow(clippy::as_conversions)]
            let run_len = run as usize;
            let target = output
                .get_mut(written..)
                .and_then(<[u8]>::first_chunk_mut::<CHUNK>);
            rest = match (rest.first_chunk::<CHUNK>(), rest.get(run_len..), target) {
                (Some(literals), Some(after), Some(target)) if run_len <= CHUNK => {
                    blend(target, literals, run_len);
                    after
                }
                _ => {
                    let (literals, after, complete) = match rest.split_at_checked(run_len) {
                        Some((literals, after)) => (literals, after, true),
                        // The input ends inside the run: the literals left are the last items
                        // of the stream.
                        None => (rest, &[][..], false),
                    };
                    // As many literals as the output has room for (none if `written` were past
                    // its end).
                    let fitted = output
                        .get_mut(written..)
                        .map_or(0, |room| copy(room, literals));
                    if fitted != literals.len() {
                        // Report the first literal that does not fit. The offset is at most
                        // `input.len()`: `fitted` is below `literals.len()`, which is at most the
                        // `rest.len()` bytes after `rest`'s offset.
                        #[allow(clippy::arithmetic_side_effects)]
                        let offset = offset_in(input, rest) + fitted;
                        return Err(Lz77Error::OutputTooSmall {
                            offset,
                            needed: 1,
                            available: 0,
                        });
                    }
                    if !complete {
                        // The `fitted` bytes were written within `output`.
                        #[allow(clippy::arithmetic_side_effects)]
                        let end = written + fitted;
                        return Ok(end);
                    }
                    after
                }
            };
            #[allow(clippy::arithmetic_side_effects)]
            {
                // `output` held all `run_len` literals after `written` (a 16-byte chunk holding
                // them, or `fitted == run_len`).
                written += run_len;
                // `run <= flags_left`, the smaller of the two.
                flags_left -= run;
            }
            // Shifting all 32 flags out (a word of 32 literals) leaves 0.
            flags = flags.unbounded_shl(run);
            if flags_left == 0 {
                continue;
            }
            // The run ended at a 1 flag: a match follows.
        }

        // A match.
        flags <<= 1;
        #[allow(clippy::arithmetic_side_effects)]
        {
            // At least 1: a flag word was loaded when none was left, and a run that used the
            // last flags went back to the top of the loop.
            flags_left -= 1;
        }
        let at_token = rest;
        let Some((token, after)) = rest.split_first_chunk::<2>() else {
            if rest.is_empty() {
                // "If InputPosition == InputBufferSize, Decompression is complete."
                return Ok(written);
            }
            return Err(Lz77Error::MatchTruncated {
                offset: offset_in(input, rest),
                available: rest.len(),
            });
        };
        rest = after;
        let token = u16::from_le_bytes(*token);

        // 1 to 8192, and a length of 3 to 9 or, for code 7, of at most 2^32 + 2.
        let distance = usize::from(token >> 3) + 1;
        let length_code = token & 0b111;
        let length = if length_code == LONG_LENGTH_CODE {
            long_match_length(input, &mut rest, &mut shared_nibble)?
        } else {
            u64::from(length_code) + MIN_MATCH
        };

        if distance > written {
            return Err(Lz77Error::DistanceBeforeStart {
                offset: offset_in(input, at_token),
                distance,
                written,
            });
        }
        // `written <= output.len()` (see its declaration).
        written = copy_match_that_fits(output, distance, written, length).map_err(|available| {
            Lz77Error::OutputTooSmall {
                offset: offset_in(input, at_token),
                needed: length,
                available,
            }
        })?;
    }
}

/// Where `rest`, a suffix of `input` (what is left of it once bytes are split off its front),
/// starts in `input`.
#[allow(clippy::arithmetic_side_effects)] // A suffix is never longer than the slice it ends.
fn offset_in(input: &[u8], rest: &[u8]) -> usize {
    input.len() - rest.len()
}

/// The length of a match whose length code is 7, read from the start of `rest` (and from
/// `shared_nibble`), which it advances past the bytes it reads.
fn long_match_length(
    input: &[u8],
    rest: &mut &[u8],
    shared_nibble: &mut Option<u8>,
) -> Result<u64, Lz77Error> {
    let nibble = match shared_nibble.take() {
        Some(high_half) => high_half,
        None => {
            let [byte] = take::<1>(input, rest)?;
            *shared_nibble = Some(byte >> 4);
            byte & 0x0F
        }
    };
    if nibble != NIBBLE_ESCAPE {
        return Ok(u64::from(nibble) + NIBBLE_BASE);
    }
    let [byte] = take::<1>(input, rest)?;
    if byte != BYTE_ESCAPE {
        return Ok(u64::from(byte) + BYTE_BASE);
    }
    let mut field = *rest;
    let mut wide = u32::from(u16::from_le_bytes(take::<2>(input, rest)?));
    if wide == 0 {
        field = *rest;
        wide = u32::from_le_bytes(take::<4>(input, rest)?);
    }
    if wide < MIN_WIDE_LENGTH {
        return Err(Lz77Error::LengthBelowMinimum {
            offset: offset_in(input, field),
            found: wide,
        });
    }
    // The wide length is the match length minus 3: "MatchLength -= (15 + 7)", then "+= 15",
    // "+= 7", "+= 3".
    Ok(u64::from(wide) + MIN_MATCH)
}

/// The `N` length bytes at the start of `rest`, which it advances past them.
fn take<const N: usize>(input: &[u8], rest: &mut &[u8]) -> Result<[u8; N], Lz77Error> {
    let Some((bytes, after)) = rest.split_first_chunk::<N>() else {
        return Err(Lz77Error::LengthTruncated {
            offset: offset_in(input, rest),
            needed: N,
            available: rest.len(),
        });
    };
    *rest = after;
    Ok(*bytes)
}

/// Bytes the fast paths move at a time.
const CHUNK: usize = 16;

/// Writes the first `count` bytes of `source` (all 16 if `count` is larger) over the start of
/// `target`, and the rest of `target` back with the values it had: one 16-byte move with no
/// branch on `count` (most literal runs and matches are a few bytes long, and of every length),
/// which still changes no byte past the first `count`, as
/// [Output after an error](self#output-after-an-error) promises.
#[inline(always)]
fn blend(target: &mut [u8; CHUNK], source: &[u8; CHUNK], count: usize) {
    let skip = CHUNK.saturating_sub(count);
    let Some(from_source) = BLEND_MASKS
        .get(skip..)
        .and_then(<[u8]>::first_chunk::<CHUNK>)
    else {
        // Not taken: `skip` is at most 16, and the 32 masks hold 16 from there. This is the
        // same blend, one byte at a time.
        for (target, source) in target.iter_mut().zip(source).take(count) {
            *target = *source;
        }
        return;
    };
    let mut merged = [0; CHUNK];
    for (((merged, source), target), mask) in
        merged.iter_mut().zip(source).zip(&*target).zip(from_source)
    {
        *merged = (source & mask) | (target & !mask);
    }
    *target = merged;
}

/// `BLEND_MASKS[CHUNK - count..][..CHUNK]` selects the first `count` bytes of a chunk.
#[rustfmt::skip]
static BLEND_MASKS: [u8; 2 * CHUNK] = [
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// Copies `source` to the start of `target`, as far as the shorter of the two goes, and returns
/// how many bytes that is.
fn copy(target: &mut [u8], source: &[u8]) -> usize {
    let count = target.len().min(source.len());
    for (to, from) in target.iter_mut().zip(source) {
        *to = *from;
    }
    count
}

/// A match whose length was read from a stream, copied by [`copy_match`] when it fits in the
/// output after `written`: where it ends, or `Err` with the bytes of output left, for the
/// caller's error. The caller has checked `1 <= distance <= written <= output.len()`.
#[inline(always)]
pub(crate) fn copy_match_that_fits(
    output: &mut [u8],
    distance: usize,
    written: usize,
    length: u64,
) -> Result<usize, usize> {
    // `written <= output.len()`, as the caller has checked.
    #[allow(clippy::arithmetic_side_effects)]
    let available = output.len() - written;
    match usize::try_from(length) {
        Ok(length) if length <= available => {
            let end = copy_match(output, distance, written, length);
            // `None` from `copy_match` would mean the output has no room for the match, which
            // the guard has ruled out.
            debug_assert!(
                end.is_some(),
                "broken invariant: a match that fits not copied"
            );
            end.ok_or(available)
        }
        _ => Err(available),
    }
}

/// Writes `output[written..written + length]` as a match: each byte a copy of the one `distance`
/// bytes before it, the bytes the match has just written included, and returns where it ends,
/// `written + length`. The caller has checked `1 <= distance <= written` and
/// `length <= output.len() - written`; were those not so, the match would end outside `output`
/// and the result would be `None`, possibly after some of its chunks were written.
///
/// In 16-byte chunks while each chunk's bytes come from before the chunk: when the distance is
/// at least a chunk, or the whole match fits one chunk and does not overlap itself. Otherwise,
/// and where the output has no room for a whole chunk, [`copy_periods`].
#[inline(always)]
#[allow(clippy::arithmetic_side_effects)] // Each operation says why it stays in range.
pub(crate) fn copy_match(
    output: &mut [u8],
    distance: usize,
    written: usize,
    length: usize,
) -> Option<usize> {
    debug_assert!(
        1 <= distance && distance <= written && written <= output.len(),
        "broken invariant: a match at distance {distance} after {written} bytes written"
    );
    debug_assert!(
        length <= output.len().saturating_sub(written),
        "broken invariant: a match of {length} bytes past the output's end"
    );
    // At most `output.len()`, as the caller checked.
    let end = written + length;
    let mut at = written;
    if distance >= CHUNK || distance >= length {
        loop {
            // `distance <= written <= at`.
            let from = at - distance;
            let Some(&source) = output.get(from..).and_then(<[u8]>::first_chunk::<CHUNK>) else {
                break;
            };
            let Some(target) = output
                .get_mut(at..)
                .and_then(<[u8]>::first_chunk_mut::<CHUNK>)
            else {
                break;
            };
            // `at < end`: true of `written` (a match is at least 3 bytes long), and `at` only
            // moves to `at + CHUNK` when that is still below `end`.
            let count = end - at;
            if count <= CHUNK {
                if length < CHUNK {
                    blend(target, &source, count);
                    return Some(end);
                }
                // The chunk that ends at `end`, which starts inside the match: its first bytes
                // are written again with the values they have, and its source, before
                // `end - CHUNK` (the distance is at least a chunk, or at least the length),
                // is all written.
                let last = end - CHUNK;
                let Some(&source) = output
                    .get(last - distance..)
                    .and_then(<[u8]>::first_chunk::<CHUNK>)
                else {
                    break;
                };
                let target = output
                    .get_mut(last..)
                    .and_then(<[u8]>::first_chunk_mut::<CHUNK>)?;
                *target = source;
                return Some(end);
            }
            *target = source;
            at += CHUNK;
        }
    }
    // `distance <= at`, as above.
    copy_periods(output.get_mut(at - distance..end)?, distance);
    Some(end)
}

/// Writes `window[period..]` as the rest of a match of distance `period`: each byte a copy of
/// the one `period` bytes before it, so that the bytes repeat `window[..period]`.
///
/// Each step copies everything written so far, a whole number of periods, after itself, twice
/// as many bytes as the step before: a match takes `log2(length / distance) + 1` block copies
/// rather than `length` byte copies. It stops when the window is full (and, with nothing to
/// repeat, at once when `period` is 0 or past the window's end).
fn copy_periods(window: &mut [u8], period: usize) {
    let mut filled = period;
    while let Some((done, todo)) = window.split_at_mut_checked(filled) {
        let count = copy(todo, done);
        if count == 0 {
            return;
        }
        #[allow(clippy::arithmetic_side_effects)]
        {
            // `todo` held the `count` bytes after `filled`: the sum is at most `window.len()`.
            filled += count;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The bulk path.

/// The bulk path's flags when the word's are used up: only the end mark, the bit after the last
/// flag.
const NO_FLAGS: u64 = 1 << 63;
/// Literals a run moves, whatever its length: a run has at most 32 (the flags of one word).
const RUN_MOVE: usize = 32;
/// Bytes a match moves at once when it is at most that long and reads only bytes from before
/// itself (its distance is at least its length, or at least this).
const MATCH_MOVE: usize = 64;
/// How far past its start a sequence (a run, then a match) may change bytes: the run's move,
/// then the match's, which starts at most `RUN_MOVE` further.
const SEQUENCE_REACH: usize = RUN_MOVE + MATCH_MOVE;
/// How far past `written` bytes may be left changed between two sequences: the run's move
/// ends at most `RUN_MOVE` past the run's end, a match's less than `MATCH_MOVE` past the
/// match's end, and a match written exactly ends at its end (a long one past its run's move).
const SPILL: usize = MATCH_MOVE;
/// Output bytes whose values the bulk path keeps (see [`Window`]).
const WINDOW: usize = 512;
/// Input a sequence may read after its flag word: the run's move, and from its end at most 10
/// bytes of a match (token, 4-bit length, byte, 16- and 32-bit lengths).
const SEQUENCE_INPUT: usize = RUN_MOVE + 16;
/// The bulk path's shared nibble when no long match left one (a nibble is at most 15).
const NO_NIBBLE: usize = 0x10;
/// `MIN_MATCH`, `NIBBLE_BASE` and `BYTE_BASE` as `usize`, for the bulk path's arithmetic.
const MIN_LENGTH: usize = 3;
/// See [`MIN_LENGTH`].
const NIBBLE_LENGTH_BASE: usize = 10;
/// See [`MIN_LENGTH`].
const BYTE_LENGTH_BASE: usize = 25;
/// The length the bulk path computes for a length byte of 255, and only for it: a 16- or
/// 32-bit length follows (a short length is at most 9, one from a 4-bit length at most 24,
/// one from a length byte of 0 to 254 at most 279).
const WIDE_LENGTH_ESCAPE: usize = 255 + BYTE_LENGTH_BASE;

/// Decodes the bulk of the stream, far from the ends of `input` and `output`, with moves of
/// whole blocks and few branches, and stops at an item boundary, leaving `cursor` there and
/// every byte of `output` past `cursor.written` as it was: where it stops, [`decode_exactly`]
/// goes on, so that `output` and the result end up as if it had decoded everything (the tests
/// and the `plain_lz77` fuzz target check this against a byte-at-a-time decoder).
///
/// It leaves to [`decode_exactly`] the last few dozen bytes of input and few hundred of output,
/// an output too small for its window, and every item that is an error (a match before the
/// start of the output or longer than the room left, a 16- or 32-bit length below 22), which
/// [`decode_exactly`] then reports.
///
/// How: the flags live in a `u64` with an end mark after the last one, so that a run and the
/// end of a word are found with one `leading_zeros` and one comparison. A run's literals are
/// moved as `RUN_MOVE` bytes whatever their number, and a match of up to `MATCH_MOVE` bytes
/// that reads only bytes before it as `MATCH_MOVE` bytes; a match's length and size are
/// computed without branches (whether it is long, whether its 4-bit length comes from a new
/// byte or the shared one, whether a length byte follows), since those vary from one match to
/// the next with no pattern a branch predictor could learn. The moves change up to `SPILL`
/// bytes past the decoded ones, which later items overwrite; the [`Window`] keeps their
/// values, and puts back those still past `written` when the bulk path stops.
///
/// The shape of this loop was measured (`benches/codec.rs`, `lz77_*` groups): small
/// rewrites of the same steps (bytes taken from the token word with an array pattern rather
/// than shifts, the end of a word tested as `flags << 1 == 0`, a window update written out
/// differently) each cost 3 to 15%.
#[allow(clippy::arithmetic_side_effects)] // Each operation says why it stays in range.
#[inline(never)]
fn bulk(output: &mut [u8], cursor: &mut Cursor<'_>) {
    let mut rest = cursor.rest;
    let mut written = cursor.written;
    // The flags not used yet from bit 63 down, then the end mark.
    let mut flags: u64 = NO_FLAGS;
    // Only from the start of a flag word, as `decompress` calls it.
    if cursor.flags_left != 0 {
        return;
    }
    let mut nibble: usize = cursor.shared_nibble.map_or(NO_NIBBLE, usize::from);
    let Some(mut window) = Window::at(output, written) else {
        return;
    };
    let mut last_start = window.last_start();
    loop {
        if flags == NO_FLAGS {
            let Some((word, after)) = rest.split_first_chunk::<4>() else {
                break;
            };
            if after.len() < SEQUENCE_INPUT {
                break;
            }
            flags = u64::from(u32::from_le_bytes(*word)) << 32 | 1 << 31;
            rest = after;
        } else if rest.len() < SEQUENCE_INPUT {
            break;
        }
        if written > last_start {
            if !window.advance(output, written) {
                break;
            }
            last_start = window.last_start();
        }

        // A run of literals: as many as there are 0 flags before the next 1, a match's or the
        // end mark: at most 32.
        let run = flags.leading_zeros();
        let Ok(run_len) = usize::try_from(run) else {
            break;
        };
        let (Some(literals), Some(target)) = (
            rest.first_chunk::<RUN_MOVE>(),
            output
                .get_mut(written..)
                .and_then(<[u8]>::first_chunk_mut::<RUN_MOVE>),
        ) else {
            break;
        };
        *target = *literals;
        let Some(after) = rest.get(run_len..) else {
            break;
        };
        rest = after;
        // At most `last_start + RUN_MOVE`, inside the window.
        written += run_len;
        flags <<= run;
        if flags == NO_FLAGS {
            continue;
        }

        // A match: its token, and the bytes a long length may take, read as one word.
        let Some(bytes) = rest.first_chunk::<8>() else {
            break;
        };
        let word = u64::from_le_bytes(*bytes);
        // Only the low 32 bits are used, which any `usize` holds.
        #[allow(clippy::as_conversions)]
        let low = word as usize;
        // 1 to 8192.
        let distance = (low >> 3 & 0x1FFF) + 1;
        let code = low & 0b111;
        let long = code == usize::from(LONG_LENGTH_CODE);
        // The 4-bit length: the shared high half, or the low half of the byte after the token;
        // the byte after that is the length byte when the 4-bit length is 15.
        let shared = nibble < NO_NIBBLE;
        let byte_2 = low >> 16 & 0xFF;
        let byte_3 = low >> 24 & 0xFF;
        let nibble_length = if shared { nibble } else { byte_2 & 0x0F };
        let length_byte = if shared { byte_2 } else { byte_3 };
        let escape = nibble_length == usize::from(NIBBLE_ESCAPE);
        let long_length = select(
            escape,
            length_byte + BYTE_LENGTH_BASE,
            nibble_length + NIBBLE_LENGTH_BASE,
        );
        // The token, a new byte for the 4-bit length, the length byte.
        let long_used = 2 + usize::from(!shared) + usize::from(escape);
        let mut length = select(long, long_length, code + MIN_LENGTH);
        let mut used = select(long, long_used, 2);
        // A 16- or 32-bit length follows: code 7, 4-bit length 15 and length byte 255, tested
        // as one value so that the common case takes one branch.
        if length == WIDE_LENGTH_ESCAPE {
            let Some(&[w0, w1, w2, w3, w4, w5]) =
                rest.get(long_used..).and_then(<[u8]>::first_chunk::<6>)
            else {
                break;
            };
            let (wide, width) = match u16::from_le_bytes([w0, w1]) {
                0 => (u32::from_le_bytes([w2, w3, w4, w5]), 6),
                short => (u32::from(short), 2),
            };
            let Ok(wide_length) = usize::try_from(u64::from(wide) + MIN_MATCH) else {
                break;
            };
            if wide < MIN_WIDE_LENGTH {
                break;
            }
            length = wide_length;
            used = long_used + width;
        }
        if distance > written {
            break;
        }
        // A long match takes the shared nibble, or leaves the high half of its new byte.
        let next_nibble = if shared { NO_NIBBLE } else { byte_2 >> 4 };
        if length <= MATCH_MOVE && (distance >= length || distance >= MATCH_MOVE) {
            // The source ends before `written + MATCH_MOVE`, the target inside the window.
            let Some(&source) = output
                .get(written - distance..)
                .and_then(<[u8]>::first_chunk::<MATCH_MOVE>)
            else {
                break;
            };
            let Some(target) = output
                .get_mut(written..)
                .and_then(<[u8]>::first_chunk_mut::<MATCH_MOVE>)
            else {
                break;
            };
            *target = source;
        } else {
            // Written exactly: a match that overlaps itself, or is longer than `MATCH_MOVE`.
            // One that ends past where a sequence may start moves the window to its end,
            // where no byte is changed (the match covers its run's move).
            if length > output.len() - written {
                break;
            }
            let end = written + length;
            let moves = length > MATCH_MOVE && end > last_start;
            if moves && WINDOW > output.len() - end {
                break;
            }
            if copy_match(output, distance, written, length).is_none() {
                break;
            }
            if moves {
                if !window.restart(output, end) {
                    break;
                }
                last_start = window.last_start();
            }
        }
        nibble = if long { next_nibble } else { nibble };
        let Some(after) = rest.get(used..) else {
            break;
        };
        rest = after;
        flags <<= 1;
        // At most `output.len()`: checked, or inside the window.
        written += length;
    }

    window.restore(output, written);
    // The flags left are those above the end mark, which is at bit 31 with 32 flags left
    // and moves up one bit per flag used.
    let [b7, b6, b5, b4, ..] = flags.to_be_bytes();
    *cursor = Cursor {
        rest,
        written,
        flags: u32::from_be_bytes([b7, b6, b5, b4]),
        flags_left: 63 - flags.trailing_zeros(),
        shared_nibble: u8::try_from(nibble).ok().filter(|_| nibble < NO_NIBBLE),
    };
}

/// `yes` if `condition`, else `no`, with no branch: when the condition follows no pattern, a
/// branch the processor mispredicts costs more than computing both.
#[inline(always)]
fn select(condition: bool, yes: usize, no: usize) -> usize {
    let mask = usize::from(condition).wrapping_neg();
    (yes & mask) | (no & !mask)
}

/// The values `output[base..base + WINDOW]` had before the bulk path changed any of them, for
/// the bytes it leaves changed past `written`.
///
/// The bulk path keeps to this: a sequence starts at `written` only up to
/// [`last_start`](Self::last_start), so that what it changes (at most `SEQUENCE_REACH` bytes
/// from its start) and what stays changed after it (at most `SPILL` bytes past its end) lie
/// inside the window, unless the match is written exactly and the window moves to its end;
/// so no byte past both `written` and the window's end is changed, and `saved` holds the
/// original values of the bytes from `written` to the window's end.
#[derive(Debug)]
struct Window {
    /// Where the window starts in `output`; never past `written`.
    base: usize,
    /// The original values of `output[base..base + WINDOW]`, from `written` on.
    saved: [u8; WINDOW],
}

impl Window {
    /// A window at `at`, if `output` holds `WINDOW` bytes from there, all unchanged.
    fn at(output: &[u8], at: usize) -> Option<Self> {
        let saved = *output.get(at..)?.first_chunk::<WINDOW>()?;
        Some(Self { base: at, saved })
    }

    /// Moves the window to `at`, where `output` holds `WINDOW` unchanged bytes; `false` (and the
    /// window as it was) if it does not.
    fn restart(&mut self, output: &[u8], at: usize) -> bool {
        match output.get(at..).and_then(<[u8]>::first_chunk::<WINDOW>) {
            Some(values) => {
                self.saved = *values;
                self.base = at;
                true
            }
            None => false,
        }
    }

    /// The last `written` a sequence may start at.
    #[allow(clippy::arithmetic_side_effects)] // `base + WINDOW` is at most `output.len()`.
    fn last_start(&self) -> usize {
        self.base + (WINDOW - SEQUENCE_REACH - SPILL)
    }

    /// Moves the window to start at `written`, a sequence's end within `SEQUENCE_REACH +
    /// SPILL` bytes of the window's end: the values of the first `SPILL` bytes, which may have
    /// been changed, from the window, the others from `output`, where they are unchanged.
    /// `false` (and the window as it was) if `output` does not hold `WINDOW` bytes from there.
    #[allow(clippy::arithmetic_side_effects)] // `written + SPILL` is within `output`.
    fn advance(&mut self, output: &[u8], written: usize) -> bool {
        let (Some(&head), Some(&tail)) = (
            written
                .checked_sub(self.base)
                .and_then(|from| self.saved.get(from..))
                .and_then(<[u8]>::first_chunk::<SPILL>),
            output
                .get(written + SPILL..)
                .and_then(<[u8]>::first_chunk::<{ WINDOW - SPILL }>),
        ) else {
            return false;
        };
        let (saved_head, saved_tail) = self.saved.split_at_mut(SPILL);
        copy(saved_head, &head);
        copy(saved_tail, &tail);
        self.base = written;
        true
    }

    /// Writes the original values back over `output[written..base + WINDOW]`.
    fn restore(&self, output: &mut [u8], written: usize) {
        let Some(saved) = written
            .checked_sub(self.base)
            .and_then(|from| self.saved.get(from..))
        else {
            return;
        };
        if let Some(changed) = output.get_mut(written..) {
            copy(changed, saved);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;

    /// [MS-XCA] section 3.1: "abcdefghijklmnopqrstuvwxyz", 26 literals ("26 zero bits ... then
    /// 6 one bits, because any extra flag bits are ones").
    const ALPHABET: [u8; 30] = [
        0x3f, 0x00, 0x00, 0x00, //  flags: 26 literals, then 1s
        0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, //
        0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a,
    ];

    /// [MS-XCA] section 3.1: the 300-byte "abcabc...abc", "abc[match: distance = 3,
    /// length = 297]".
    const ABC_300: [u8; 13] = [
        0xff, 0xff, 0xff, 0x1f, //  flags: 3 literals, a match, then 1s
        0x61, 0x62, 0x63, //        "abc"
        0x17, 0x00, //              token 0x0017: distance (0x17 >> 3) + 1 = 3, length code 7
        0x0f, //                    4-bit length 15: a length byte follows
        0xff, //                    length byte 255: a 16-bit length follows
        0x26, 0x01, //              0x126 = 294 = 297 - 3
    ];

    /// [MS-XCA] section 2.4.4's "aaaaaa" as "[literal: "a"][match: offset=1, length=5]":
    /// flags 0, 1, then 1s; token (1 - 1) << 3 | (5 - 3).
    const SIX_A: [u8; 7] = [0xff, 0xff, 0xff, 0x7f, 0x61, 0x02, 0x00];

    /// Flags 0, 1, then 1s (a literal "a", then matches), followed by `rest`.
    fn a_then(rest: &[u8]) -> Vec<u8> {
        let mut input = Vec::from([0xff, 0xff, 0xff, 0x7f, 0x61]);
        input.extend_from_slice(rest);
        input
    }

    /// Decompresses into a `capacity`-byte buffer filled with 0xAA; returns the result and the
    /// whole buffer.
    fn run(input: &[u8], capacity: usize) -> (Result<usize, Lz77Error>, Vec<u8>) {
        let mut output = std::vec![0xAA; capacity];
        let result = decompress(input, &mut output);
        (result, output)
    }

    fn decoded(input: &[u8]) -> Vec<u8> {
        let (result, mut output) = run(input, 1 << 16);
        output.truncate(result.unwrap());
        output
    }

    #[test]
    fn spec_alphabet_example() {
        assert_eq!(decoded(&ALPHABET), b"abcdefghijklmnopqrstuvwxyz");
    }

    #[test]
    fn spec_abc_example() {
        let expected: Vec<u8> = b"abc".iter().copied().cycle().take(300).collect();
        assert_eq!(decoded(&ABC_300), expected);
    }

    #[test]
    fn a_match_that_overlaps_itself() {
        assert_eq!(decoded(&SIX_A), b"aaaaaa");
        // "ab", then distance 2 and length 9 (code 6): the match rereads its own bytes.
        let input = [0xff, 0xff, 0xff, 0x3f, b'a', b'b', 0x0e, 0x00];
        assert_eq!(decoded(&input), b"abababababa");
        // Distance 3 inside a longer output, with a literal after the match.
        let input = [0xff, 0xff, 0xff, 0x17, b'x', b'y', b'z', 0x13, 0x00, b'!'];
        assert_eq!(decoded(&input), b"xyzxyzxyz!");
    }

    #[test]
    fn a_match_that_does_not_overlap() {
        // "abcd", then distance 4, length 4.
        let input = [0xff, 0xff, 0xff, 0x0f, b'a', b'b', b'c', b'd', 0x19, 0x00];
        assert_eq!(decoded(&input), b"abcdabcd");
    }

    #[test]
    fn long_lengths_at_every_width() {
        let a = |count: usize| std::vec![b'a'; count];
        // 4-bit length 2: 2 + 7 + 3.
        assert_eq!(decoded(&a_then(&[0x07, 0x00, 0x02])), a(1 + 12));
        // Two long matches share one byte: low half 2 for the first, high half 5 for the second.
        assert_eq!(
            decoded(&a_then(&[0x07, 0x00, 0x52, 0x07, 0x00])),
            a(1 + 12 + 15)
        );
        // A third long match takes a new byte again.
        assert_eq!(
            decoded(&a_then(&[0x07, 0x00, 0x52, 0x07, 0x00, 0x07, 0x00, 0x01])),
            a(1 + 12 + 15 + 11)
        );
        // The shared byte's high half is 15: a length byte follows the second token.
        assert_eq!(
            decoded(&a_then(&[0x07, 0x00, 0xf2, 0x07, 0x00, 200])),
            a(1 + 12 + 225)
        );
        // 4-bit 15, then a byte: 200 + 15 + 7 + 3.
        assert_eq!(decoded(&a_then(&[0x07, 0x00, 0x0f, 200])), a(1 + 225));
        // 16-bit length 22, the smallest allowed: 22 + 3.
        assert_eq!(
            decoded(&a_then(&[0x07, 0x00, 0x0f, 0xff, 22, 0])),
            a(1 + 25)
        );
        // 16-bit 0, then a 32-bit length: 1000 + 3.
        assert_eq!(
            decoded(&a_then(&[0x07, 0x00, 0x0f, 0xff, 0, 0, 0xe8, 0x03, 0, 0])),
            a(1 + 1003)
        );
    }

    #[test]
    fn the_end_of_the_input_ends_the_stream() {
        // Nothing at all.
        assert_eq!(run(&[], 0).0, Ok(0));
        // Where a match token is due (the spec examples end there).
        assert_eq!(run(&ALPHABET, 26).0, Ok(26));
        // Where a literal is due: the alphabet cut after "j".
        assert_eq!(decoded(&ALPHABET[..14]), b"abcdefghij");
        // Where a flag word is due: 32 literals fill the first word.
        let mut input = std::vec![0; 4];
        input.extend(0..32u8);
        assert_eq!(decoded(&input), (0..32u8).collect::<Vec<_>>());
    }

    #[test]
    fn output_exactly_full_and_one_byte_short() {
        let (result, output) = run(&ABC_300, 300);
        assert_eq!(result, Ok(300));
        assert!(output.chunks(3).all(|chunk| chunk == b"abc"));

        // The match does not fit: "abc" is written, nothing of the match.
        let (result, output) = run(&ABC_300, 299);
        assert_eq!(
            result,
            Err(Lz77Error::OutputTooSmall {
                offset: 7,
                needed: 297,
                available: 296
            })
        );
        assert_eq!(&output[..3], b"abc");
        assert!(output[3..].iter().all(|&byte| byte == 0xAA));

        assert_eq!(run(&ALPHABET, 26).0, Ok(26));
        // The last literal does not fit: the 25 before it are written.
        let (result, output) = run(&ALPHABET, 25);
        assert_eq!(
            result,
            Err(Lz77Error::OutputTooSmall {
                offset: 29,
                needed: 1,
                available: 0
            })
        );
        assert_eq!(output, b"abcdefghijklmnopqrstuvwxy");
        assert_eq!(
            run(&ALPHABET, 0).0,
            Err(Lz77Error::OutputTooSmall {
                offset: 4,
                needed: 1,
                available: 0
            })
        );
        // A larger output: the same bytes, the rest untouched.
        let (result, output) = run(&ALPHABET, 40);
        assert_eq!(result, Ok(26));
        assert_eq!(&output[..26], b"abcdefghijklmnopqrstuvwxyz");
        assert!(output[26..].iter().all(|&byte| byte == 0xAA));
    }

    #[test]
    fn a_32_bit_length_beyond_any_output() {
        let input = a_then(&[0x07, 0x00, 0x0f, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(
            run(&input, 4096).0,
            Err(Lz77Error::OutputTooSmall {
                offset: 5,
                needed: 0xFFFF_FFFF + 3,
                available: 4095
            })
        );
    }

    #[test]
    fn truncated_flag_word() {
        for cut in 1..4 {
            assert_eq!(
                run(&ALPHABET[..cut], 64).0,
                Err(Lz77Error::FlagsTruncated {
                    offset: 0,
                    available: cut
                })
            );
        }
        // After a full word of 32 literals, 3 bytes of the next word.
        let mut input = std::vec![0; 4 + 32 + 3];
        input[4..36].fill(b'z');
        let (result, output) = run(&input, 64);
        assert_eq!(
            result,
            Err(Lz77Error::FlagsTruncated {
                offset: 36,
                available: 3
            })
        );
        assert!(output[..32].iter().all(|&byte| byte == b'z'));
    }

    #[test]
    fn truncated_match_token() {
        let (result, output) = run(&SIX_A[..6], 16);
        assert_eq!(
            result,
            Err(Lz77Error::MatchTruncated {
                offset: 5,
                available: 1
            })
        );
        assert_eq!(&output[..2], [b'a', 0xAA]);
    }

    #[test]
    fn truncated_length_bytes() {
        let cases: [(&[u8], usize, usize, usize); 5] = [
            (&[0x07, 0x00], 7, 1, 0),                    // the 4-bit length's byte
            (&[0x07, 0x00, 0x0f], 8, 1, 0),              // the length byte
            (&[0x07, 0x00, 0x0f, 0xff, 0x26], 9, 2, 1),  // the 16-bit length
            (&[0x07, 0x00, 0x0f, 0xff, 0, 0], 11, 4, 0), // the 32-bit length
            (&[0x07, 0x00, 0x0f, 0xff, 0, 0, 1, 2, 3], 11, 4, 3),
        ];
        for (rest, offset, needed, available) in cases {
            assert_eq!(
                run(&a_then(rest), 1 << 16).0,
                Err(Lz77Error::LengthTruncated {
                    offset,
                    needed,
                    available
                }),
                "{rest:02x?}"
            );
        }
        // The spec's second example, cut inside its 16-bit length.
        assert_eq!(
            run(&ABC_300[..12], 300).0,
            Err(Lz77Error::LengthTruncated {
                offset: 11,
                needed: 2,
                available: 1
            })
        );
    }

    #[test]
    fn wide_lengths_below_22() {
        assert_eq!(
            run(&a_then(&[0x07, 0x00, 0x0f, 0xff, 21, 0]), 1 << 16).0,
            Err(Lz77Error::LengthBelowMinimum {
                offset: 9,
                found: 21
            })
        );
        assert_eq!(
            run(
                &a_then(&[0x07, 0x00, 0x0f, 0xff, 0, 0, 21, 0, 0, 0]),
                1 << 16
            )
            .0,
            Err(Lz77Error::LengthBelowMinimum {
                offset: 11,
                found: 21
            })
        );
        assert_eq!(
            run(
                &a_then(&[0x07, 0x00, 0x0f, 0xff, 0, 0, 0, 0, 0, 0]),
                1 << 16
            )
            .0,
            Err(Lz77Error::LengthBelowMinimum {
                offset: 11,
                found: 0
            })
        );
    }

    #[test]
    fn distance_before_the_start() {
        // A match first of all: distance 1 with nothing written.
        assert_eq!(
            run(&[0xff, 0xff, 0xff, 0xff, 0x00, 0x00], 16).0,
            Err(Lz77Error::DistanceBeforeStart {
                offset: 4,
                distance: 1,
                written: 0
            })
        );
        // Distance 2 after one literal; the literal stays in the output.
        let (result, output) = run(&a_then(&[0x08, 0x00]), 16);
        assert_eq!(
            result,
            Err(Lz77Error::DistanceBeforeStart {
                offset: 5,
                distance: 2,
                written: 1
            })
        );
        assert_eq!(&output[..2], [b'a', 0xAA]);
        // The largest distance, 8192.
        assert_eq!(
            run(&a_then(&[0xf8, 0xff]), 16).0,
            Err(Lz77Error::DistanceBeforeStart {
                offset: 5,
                distance: 8192,
                written: 1
            })
        );
    }

    #[test]
    fn errors_say_what_was_expected_and_found() {
        use std::string::ToString;
        let message = |error: Lz77Error| error.to_string();
        assert_eq!(
            message(Lz77Error::FlagsTruncated {
                offset: 0x24,
                available: 3
            }),
            "plain LZ77: expected a 4-byte flag word (or the end of the input), \
             found 3 bytes at offset 0x24"
        );
        assert_eq!(
            message(Lz77Error::DistanceBeforeStart {
                offset: 5,
                distance: 2,
                written: 1
            }),
            "plain LZ77: expected a match distance of at most the 1 bytes decoded, \
             found 2 at offset 0x5"
        );
        assert_eq!(
            message(Lz77Error::OutputTooSmall {
                offset: 7,
                needed: 297,
                available: 296
            }),
            "plain LZ77: the item at offset 0x7 needs 297 bytes of output, found room for 296"
        );
    }

    /// The [MS-XCA] section 2.4.4 pseudo-code taken literally: one flag, one byte at a time. Used
    /// only to check the block copies of [`decompress`] on arbitrary inputs. An error gives the
    /// output of the items before the one at fault (what [`decompress`] leaves at the start of
    /// its output).
    fn byte_at_a_time(input: &[u8], capacity: usize) -> Result<Vec<u8>, Vec<u8>> {
        let mut out = Vec::new();
        let (mut at, mut flags, mut count, mut half): (usize, u32, u32, Option<u8>) =
            (0, 0, 0, None);
        let byte = |at: usize| input.get(at).copied().ok_or(());
        loop {
            // Where the item that follows starts in the output.
            let item_start = out.len();
            let fail = |mut out: Vec<u8>| {
                out.truncate(item_start);
                Err(out)
            };
            if count == 0 {
                if at == input.len() {
                    return Ok(out);
                }
                let Some(word) = input.get(at..at + 4) else {
                    return fail(out);
                };
                flags = u32::from_le_bytes(word.try_into().unwrap());
                at += 4;
                count = 32;
            }
            count -= 1;
            if flags & (1 << count) == 0 {
                if at == input.len() {
                    return Ok(out);
                }
                if out.len() == capacity {
                    return fail(out);
                }
                out.push(byte(at).unwrap());
                at += 1;
            } else {
                if at == input.len() {
                    return Ok(out);
                }
                let Ok(token) =
                    (|| Ok::<_, ()>(u16::from(byte(at)?) | u16::from(byte(at + 1)?) << 8))()
                else {
                    return fail(out);
                };
                at += 2;
                let distance = usize::from(token / 8) + 1;
                let length = (|| -> Result<u64, ()> {
                    let mut length = u64::from(token % 8);
                    if length == 7 {
                        length = u64::from(match half.take() {
                            Some(high) => high,
                            None => {
                                let b = byte(at)?;
                                at += 1;
                                half = Some(b / 16);
                                b % 16
                            }
                        });
                        if length == 15 {
                            length = u64::from(byte(at)?);
                            at += 1;
                            if length == 255 {
                                length = u64::from(byte(at)?) | u64::from(byte(at + 1)?) << 8;
                                at += 2;
                                if length == 0 {
                                    length = (0..4).try_fold(0, |v, i| {
                                        Ok(v | u64::from(byte(at + i)?) << (8 * i))
                                    })?;
                                    at += 4;
                                }
                                if length < 22 {
                                    return Err(());
                                }
                                length -= 22;
                            }
                            length += 15;
                        }
                        length += 7;
                    }
                    Ok(length + 3)
                })();
                let Ok(length) = length else {
                    return fail(out);
                };
                for _ in 0..length {
                    if out.len() == capacity || distance > out.len() {
                        return fail(out);
                    }
                    out.push(out[out.len() - distance]);
                }
            }
        }
    }

    /// A run of `literals` distinct literals, then one match of `distance` and `length` (3 to
    /// 24), then one more literal; the flags of the unused items are 1s, so the stream ends where
    /// the next match token is due.
    fn run_then_match(literals: usize, distance: usize, length: usize) -> Vec<u8> {
        assert!((1..=30).contains(&literals) && (3..=24).contains(&length));
        let flags = !0u32 >> literals & !(1 << (30 - literals));
        let mut input = Vec::from(flags.to_le_bytes());
        input.extend((0..literals).map(|index| b'A' + index as u8));
        let code = (length - 3).min(7);
        input.extend(
            u16::try_from((distance - 1) << 3 | code)
                .unwrap()
                .to_le_bytes(),
        );
        if code == 7 {
            input.push(u8::try_from(length - 10).unwrap());
        }
        input.push(b'!');
        input
    }

    #[test]
    fn chunk_writes_keep_every_byte_after_the_decoded_ones() {
        // Literal runs and matches of every length the 16-byte moves cover and a little more,
        // at every distance up to the run, into outputs from exactly the decoded length to 33
        // bytes more, each filled with a pattern that no decoded byte repeats. The decoded bytes
        // agree with the byte-at-a-time pseudo-code, and the pattern after them is untouched.
        let pattern = |index: usize| 0x80 | (index as u8 & 0x7F);
        let (step, extra) = if cfg!(miri) { (7, 17) } else { (1, 33) };
        let mut checked = 0;
        for literals in (1..=20).step_by(step) {
            for distance in 1..=literals {
                for length in (3..=24).step_by(step) {
                    let input = run_then_match(literals, distance, length);
                    let expected = byte_at_a_time(&input, usize::MAX).unwrap();
                    assert_eq!(expected.len(), literals + length + 1);
                    for capacity in expected.len()..expected.len() + extra {
                        let mut output: Vec<u8> = (0..capacity).map(pattern).collect();
                        let result = decompress(&input, &mut output);
                        assert_eq!(result, Ok(expected.len()), "{input:02x?} into {capacity}");
                        assert_eq!(&output[..expected.len()], &expected[..], "{input:02x?}");
                        assert!(
                            (expected.len()..capacity).all(|index| output[index] == pattern(index)),
                            "{input:02x?} into {capacity}: bytes after the decoded ones changed"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn block_copies_agree_with_the_byte_at_a_time_pseudo_code() {
        // Deterministic pseudo-random inputs biased toward matches with short distances and
        // long lengths, the cases the block copies speed up.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let rounds = if cfg!(miri) { 60 } else { 20_000 };
        let mut agreed = 0;
        for _ in 0..rounds {
            let len = usize::try_from(next() % 64).unwrap();
            let mut input: Vec<u8> = (0..len).map(|_| next().to_le_bytes()[0]).collect();
            if let Some(first) = input.get_mut(0..4) {
                first.copy_from_slice(&(next() as u32 >> 2).to_le_bytes());
            }
            for byte in input.iter_mut().skip(4) {
                if next() % 3 == 0 {
                    *byte &= 0x1f;
                }
            }
            let capacity = usize::try_from(next() % 2048).unwrap();
            let (result, output) = run(&input, capacity);
            match (result, byte_at_a_time(&input, capacity)) {
                (Ok(written), Ok(expected)) => {
                    assert_eq!(&output[..written], &expected[..], "{input:02x?}");
                    assert!(output[written..].iter().all(|&byte| byte == 0xAA));
                    agreed += 1;
                }
                (Err(_), Err(before)) => {
                    assert_eq!(&output[..before.len()], &before[..], "{input:02x?}");
                    assert!(output[before.len()..].iter().all(|&byte| byte == 0xAA));
                }
                (ours, reference) => {
                    panic!("{input:02x?} into {capacity}: {ours:?} vs {reference:?}")
                }
            }
        }
        assert!(
            agreed > rounds / 20,
            "only {agreed} of {rounds} inputs decoded"
        );
    }

    /// One item of a stream built by [`encode`].
    #[derive(Clone, Debug)]
    enum Item {
        /// Literals.
        Literals(Vec<u8>),
        /// A match of `distance` (1 to 8192) and `length` (at least 3; from 280 on, a 16- or
        /// 32-bit length).
        Match { distance: usize, length: u64 },
        /// A match at distance 1 whose 16-bit length is `found`, below the 22 allowed.
        WideBelowMinimum { found: u16 },
    }

    /// Encodes `items` as [MS-XCA] section 2.3's compressor lays them out: a flag word before
    /// each 32 items, long lengths in a half byte shared by two matches, then a length byte, a
    /// 16-bit and a 32-bit length; the unused flags of the last word are 1s. Only the layout is
    /// taken from the compressor: what the stream decodes to is [`byte_at_a_time`]'s to say.
    fn encode(items: &[Item]) -> Vec<u8> {
        struct Stream {
            bytes: Vec<u8>,
            flag_word: usize,
            flags: u32,
            flag_count: u32,
            shared: Option<usize>,
        }
        impl Stream {
            fn flag(&mut self, bit: u32) {
                if self.flag_count == 32 {
                    let word = self.flags.to_le_bytes();
                    self.bytes[self.flag_word..self.flag_word + 4].copy_from_slice(&word);
                    self.flag_word = self.bytes.len();
                    self.bytes.extend_from_slice(&[0; 4]);
                    self.flags = 0;
                    self.flag_count = 0;
                }
                self.flags |= bit << (31 - self.flag_count);
                self.flag_count += 1;
            }
            fn token(&mut self, distance: usize, code: u16) {
                self.flag(1);
                let token = u16::try_from(distance - 1).unwrap() << 3 | code;
                self.bytes.extend_from_slice(&token.to_le_bytes());
            }
            fn nibble(&mut self, value: u8) {
                match self.shared.take() {
                    Some(at) => self.bytes[at] |= value << 4,
                    None => {
                        self.shared = Some(self.bytes.len());
                        self.bytes.push(value);
                    }
                }
            }
        }
        let mut stream = Stream {
            bytes: std::vec![0; 4],
            flag_word: 0,
            flags: 0,
            flag_count: 0,
            shared: None,
        };
        for item in items {
            match item {
                Item::Literals(literals) => {
                    for &literal in literals {
                        stream.flag(0);
                        stream.bytes.push(literal);
                    }
                }
                &Item::Match { distance, length } => {
                    let rest = length - 3;
                    if rest < 7 {
                        stream.token(distance, u16::try_from(rest).unwrap());
                        continue;
                    }
                    stream.token(distance, 7);
                    let rest = rest - 7;
                    stream.nibble(u8::try_from(rest.min(15)).unwrap());
                    if rest < 15 {
                        continue;
                    }
                    let rest = rest - 15;
                    if rest < 255 {
                        stream.bytes.push(u8::try_from(rest).unwrap());
                        continue;
                    }
                    stream.bytes.push(255);
                    let wide = length - 3;
                    match u16::try_from(wide) {
                        Ok(wide) => stream.bytes.extend_from_slice(&wide.to_le_bytes()),
                        Err(_) => {
                            stream.bytes.extend_from_slice(&[0, 0]);
                            let wide = u32::try_from(wide).unwrap();
                            stream.bytes.extend_from_slice(&wide.to_le_bytes());
                        }
                    }
                }
                &Item::WideBelowMinimum { found } => {
                    stream.token(1, 7);
                    stream.nibble(15);
                    stream.bytes.push(255);
                    stream.bytes.extend_from_slice(&found.to_le_bytes());
                }
            }
        }
        let unused = (1u64 << (32 - stream.flag_count)) - 1;
        let word = (stream.flags | u32::try_from(unused).unwrap()).to_le_bytes();
        stream.bytes[stream.flag_word..stream.flag_word + 4].copy_from_slice(&word);
        stream.bytes
    }

    /// `decompress` of `input` into `capacity` bytes filled with a pattern no decoded byte
    /// repeats, against [`byte_at_a_time`]: the same result and bytes, and the pattern intact
    /// after them. Returns the decoded length, or `None` for an error.
    fn check_against_the_pseudo_code(input: &[u8], capacity: usize) -> Option<usize> {
        let pattern = |index: usize| 0x80 | (index as u8 & 0x7F) ^ 0x55;
        let mut output: Vec<u8> = (0..capacity).map(pattern).collect();
        let result = decompress(input, &mut output);
        let (decoded, kept) = match (result, byte_at_a_time(input, capacity)) {
            (Ok(written), Ok(expected)) => {
                assert_eq!(written, expected.len(), "{} into {capacity}", input.len());
                (Some(written), expected)
            }
            (Err(_), Err(before)) => (None, before),
            (ours, reference) => panic!(
                "{} bytes into {capacity}: {ours:?}, the pseudo-code {:?}",
                input.len(),
                reference.map(|out| out.len()).map_err(|out| out.len())
            ),
        };
        assert!(
            output[..kept.len()] == kept[..],
            "{} bytes into {capacity}: the decoded bytes differ",
            input.len()
        );
        let changed = (kept.len()..capacity).find(|&index| output[index] != pattern(index));
        assert_eq!(
            changed,
            None,
            "{} bytes into {capacity}: a byte after the {} decoded ones changed",
            input.len(),
            kept.len()
        );
        decoded
    }

    /// Literals and matches that make a few kilobytes of output, so that the bulk path runs:
    /// literal runs of every length, matches at short and long distances, of every length the
    /// moves cover and longer, with long lengths of every width.
    fn varied_items(seed: u64, count: usize) -> Vec<Item> {
        let mut state = seed | 1;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let mut items = std::vec![Item::Literals(
            (0..40u8).map(|i| i.wrapping_mul(7)).collect()
        )];
        let mut written = 40u64;
        for _ in 0..count {
            match next(8) {
                0..=2 => {
                    let len = [0, 1, 1, 2, 3, 5, 16, 17, 31, 32, 33][next(11) as usize];
                    items.push(Item::Literals((0..len).map(|_| next(256) as u8).collect()));
                    written += len as u64;
                }
                _ => {
                    let distance = match next(4) {
                        0 => 1 + next(16),
                        1 => 16 + next(64),
                        _ => 1 + next(written.min(8192)),
                    }
                    .min(written);
                    let length = match next(100) {
                        0..=9 => 280 + next(2000),
                        10 => 65_536 + next(100),
                        11..=20 => 25 + next(255),
                        _ => 3 + next(70),
                    };
                    // Under Miri, no length that takes long to copy byte by byte.
                    let length = if cfg!(miri) { length.min(600) } else { length };
                    items.push(Item::Match {
                        distance: usize::try_from(distance).unwrap(),
                        length,
                    });
                    written += length;
                }
            }
        }
        items
    }

    #[test]
    fn the_bulk_path_agrees_with_the_pseudo_code_and_keeps_the_bytes_after() {
        // Streams long enough for the bulk path, decoded whole, into outputs cut short by 1,
        // 33 and 700 bytes, and into larger ones; then with one byte changed, and cut short.
        let (rounds, count) = if cfg!(miri) { (1, 30) } else { (16, 300) };
        let mut decoded_whole = 0;
        for seed in 0..rounds {
            let input = encode(&varied_items(seed, count));
            let whole = byte_at_a_time(&input, usize::MAX).unwrap().len();
            let decoded = check_against_the_pseudo_code(&input, whole + 64).unwrap();
            assert!(decoded > 1024, "{decoded}");
            decoded_whole += 1;
            for capacity in [
                decoded,
                decoded - 1,
                decoded - 33,
                decoded - 700,
                decoded + 100,
            ] {
                check_against_the_pseudo_code(&input, capacity);
            }
            for (at, value) in [(input.len() / 3, 0xFF), (input.len() / 2, 0x00)] {
                let mut changed = input.clone();
                changed[at] = value;
                check_against_the_pseudo_code(&changed, decoded + 64);
            }
            for cut in [input.len() - 1, input.len() / 2, input.len() / 2 + 1] {
                check_against_the_pseudo_code(&input[..cut], decoded + 64);
            }
        }
        assert_eq!(decoded_whole, rounds);
    }

    #[test]
    fn every_way_out_of_the_bulk_path_keeps_the_bytes_after() {
        // A prefix the bulk path decodes, then the item it leaves to the exact path: each error,
        // a long match that does not fit, the end of the input; into outputs exactly full, and
        // larger by 1, 64 and 600 bytes.
        let prefix = varied_items(7, if cfg!(miri) { 20 } else { 120 });
        let too_long = if cfg!(miri) { 3_000 } else { 300_000 };
        let endings: [&[Item]; 7] = [
            &[Item::Match {
                distance: 8192,
                length: 4,
            }],
            &[Item::WideBelowMinimum { found: 21 }],
            &[Item::WideBelowMinimum { found: 1 }],
            &[Item::Match {
                distance: 5,
                length: too_long,
            }],
            &[Item::Match {
                distance: 40,
                length: 65,
            }],
            &[Item::Literals(std::vec![1, 2, 3])],
            &[],
        ];
        for ending in endings {
            let mut items = prefix.clone();
            items.extend_from_slice(ending);
            let input = encode(&items);
            let whole = byte_at_a_time(&input, 1 << 20)
                .unwrap_or_else(|before| before)
                .len();
            let capacities: &[usize] = if cfg!(miri) {
                &[0, 600]
            } else {
                &[0, 1, 64, 600, 4096]
            };
            for extra in capacities {
                check_against_the_pseudo_code(&input, whole + extra);
            }
            // Cut inside the last item.
            for cut in 1..if cfg!(miri) { 2 } else { 4 } {
                check_against_the_pseudo_code(&input[..input.len() - cut], whole + 64);
            }
        }
    }

    #[test]
    fn the_bulk_path_decodes_all_but_the_ends_of_a_long_stream() {
        // Streams of a few dozen kilobytes (no match longer than 5000 bytes), into outputs of
        // exactly their length: the bulk path alone gets within a few windows of the end, with
        // the bytes of the pseudo-code and none changed after them, and `decode_exactly` goes on
        // from its cursor to the same end.
        let pattern = |index: usize| 0x80 | (index as u8 & 0x7F) ^ 0x2A;
        let (seeds, count) = if cfg!(miri) { (1, 40) } else { (8, 600) };
        for seed in 0..seeds {
            let items: Vec<Item> = varied_items(seed, count)
                .into_iter()
                .map(|item| match item {
                    Item::Match { distance, length } => Item::Match {
                        distance,
                        length: length.min(5000),
                    },
                    other => other,
                })
                .collect();
            let input = encode(&items);
            let expected = byte_at_a_time(&input, usize::MAX).unwrap();
            let mut output: Vec<u8> = (0..expected.len()).map(pattern).collect();
            let mut cursor = Cursor {
                rest: &input,
                written: 0,
                flags: 0,
                flags_left: 0,
                shared_nibble: None,
            };
            bulk(&mut output, &mut cursor);
            let written = cursor.written;
            assert!(
                written + 2 * WINDOW + 5000 >= expected.len() && cursor.rest.len() < input.len(),
                "seed {seed}: the bulk path stopped at {written} of {} bytes",
                expected.len()
            );
            assert!(output[..written] == expected[..written], "seed {seed}");
            assert!(
                (written..output.len()).all(|index| output[index] == pattern(index)),
                "seed {seed}: a byte after the {written} decoded ones changed"
            );
            assert_eq!(
                decode_exactly(&input, &mut output, cursor),
                Ok(expected.len())
            );
            assert!(output == expected, "seed {seed}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            if cfg!(miri) { 4 } else { 256 }
        ))]
        #[test]
        fn decompress_agrees_with_the_pseudo_code_on_built_streams(
            seed in proptest::prelude::any::<u64>(),
            count in 0usize..if cfg!(miri) { 20 } else { 300 },
            spare in 0usize..1200,
            shortfall in 0usize..1200,
            changes in proptest::collection::vec(
                (proptest::prelude::any::<usize>(), proptest::prelude::any::<u8>()),
                0..3,
            ),
            cut in proptest::prelude::any::<usize>(),
        ) {
            let mut input = encode(&varied_items(seed, count));
            for (at, value) in changes {
                let len = input.len();
                input[at % len] = value;
            }
            let whole = byte_at_a_time(&input, 1 << 20).unwrap_or_else(|before| before).len();
            check_against_the_pseudo_code(&input, whole + spare);
            check_against_the_pseudo_code(&input, whole.saturating_sub(shortfall));
            let cut = cut % (input.len() + 1);
            check_against_the_pseudo_code(&input[..cut], whole + spare);
        }
    }
}
