//! Decompression of the MS-XCA LZNT1 format (`COMPRESSION_FORMAT_LZNT1`, format 2), the format
//! of NTFS compression and `RtlCompressBuffer`'s default, in which a trace buffer's events may be
//! compressed when its `State` names it (see
//! [`EtlBuffer::compression_format`](crate::read::EtlBuffer::compression_format)).
//!
//! # The format ([MS-XCA] section 2.5)
//!
//! The input is a series of chunks, each the compression of up to 4096 bytes, which "can be
//! independently decompressed" (section 2.5): a match never reaches back into an earlier chunk.
//!
//! - **Chunk header** (section 2.5.1.2): a little-endian 16-bit word. Bit 15 is the compressed
//!   flag, bits 14 to 12 a signature that must be 3, bits 11 to 0 the size of the chunk, header
//!   included, minus 3. Section 3.3's example: "The chunk header, interpreted as a 16-bit value,
//!   is 0xB038. Bit 15 is 1, so the chunk is compressed; bits 14 through 12 are the correct
//!   signature value (3); and bits 11 through 0 are decimal 56, so the chunk is 59 bytes in
//!   size." A header of 0 is the end of the buffer.
//! - **Uncompressed chunk** (bit 15 clear): its bytes after the header are copied as they are.
//! - **Compressed chunk** (bit 15 set), section 2.5.1.3: flag groups, each a flag byte followed by
//!   up to eight items, the flags used from bit 0 up. Flag 0: a literal, one byte copied to the
//!   output. Flag 1: a little-endian 16-bit compressed word. The chunk ends where its size says,
//!   whatever flags its last flag byte has left.
//! - **Compressed word** (section 2.5.1.4): its high D bits are the displacement minus 1, its low
//!   16 - D bits the length minus 3, where D depends on U, the bytes the chunk has decompressed
//!   so far: the smallest of 4 to 12 with 2^D >= U (4 up to U = 16, 5 up to 32, ..., 12 from
//!   U = 2049 on). A short chunk position thus allows long matches at short distances, a long
//!   one far matches of at most 18 bytes. The displacement counts back from the output position
//!   and must stay inside the chunk; a match longer than its displacement repeats the bytes it
//!   has just written.
//!
//! # Where the stream ends
//!
//! At the end of the input, at a chunk boundary, or at a chunk header of 0 (what follows it is
//! not read). Input that ends inside a chunk header or a chunk is an error.
//!
//! The output of the chunks is concatenated. The section 2.5 compressor makes each chunk but the
//! last the compression of exactly 4096 bytes; a chunk that decompresses to fewer is taken as it
//! is (the next chunk's output follows at once), one that would decompress to more than 4096
//! bytes is an error. A caller that knows the decompressed length (for a trace buffer,
//! `Offset - 0x48`) should compare it with the length returned.
//!
//! # Output after an error
//!
//! Every error names the input offset of the chunk header or item at fault. When an error is
//! returned, the start of `output` holds the decoding of every item before that one, nothing of
//! the item at fault is written, and the bytes after are left as they were.
//!
//! [MS-XCA]: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-xca/

use crate::invariant::not_reached;
use crate::read::error::Lznt1Error;
use crate::read::plain_lz77::copy_match;

/// The largest number of bytes a chunk decompresses to (section 2.5: "4 KB").
pub const CHUNK_SIZE: usize = 4096;
/// Bit 15 of a chunk header: the chunk is compressed.
const COMPRESSED: u16 = 0x8000;
/// The signature, bits 14 to 12 of a chunk header, and the value they must have.
const SIGNATURE_MASK: u16 = 0x7000;
/// See [`SIGNATURE_MASK`].
const SIGNATURE: u16 = 0x3000;
/// Bits 11 to 0 of a chunk header: the chunk's size minus 3, so its data's size minus 1.
const SIZE_MASK: u16 = 0x0FFF;
/// The shortest match: a length field of 0.
const MIN_MATCH: usize = 3;
/// The fewest and most displacement bits of a compressed word.
const MIN_DISPLACEMENT_BITS: u32 = 4;
/// See [`MIN_DISPLACEMENT_BITS`].
const MAX_DISPLACEMENT_BITS: u32 = 12;

/// Decompresses all of `input`, an LZNT1 buffer, into the start of `output`, and returns the
/// number of bytes written.
///
/// The buffer ends where `input` ends or at a chunk header of 0, as the
/// [module documentation](self) details: an input of zero bytes is complete. Decoding takes time
/// linear in `input.len() + output.len()`.
///
/// ```
/// // [MS-XCA] section 3.3: 142 bytes (a tune, then a NUL) in one 59-byte chunk.
/// let compressed = [
///     0x38, 0xb0, 0x88, 0x46, 0x23, 0x20, 0x00, 0x20, 0x47, 0x20, 0x41, 0x00, 0x10, 0xa2, 0x47,
///     0x01, 0xa0, 0x45, 0x20, 0x44, 0x00, 0x08, 0x45, 0x01, 0x50, 0x79, 0x00, 0xc0, 0x45, 0x20,
///     0x05, 0x24, 0x13, 0x88, 0x05, 0xb4, 0x02, 0x4a, 0x44, 0xef, 0x03, 0x58, 0x02, 0x8c, 0x09,
///     0x16, 0x01, 0x48, 0x45, 0x00, 0xbe, 0x00, 0x9e, 0x00, 0x04, 0x01, 0x18, 0x90, 0x00,
/// ];
/// let mut output = [0; 142];
/// let written = etw_classic::lznt1::decompress(&compressed, &mut output)?;
/// assert_eq!(written, 142);
/// assert!(output.starts_with(b"F# F# G A A G F# E D D E F# F# E E F# F# G A A G"));
/// assert_eq!(output[141], 0);
/// # Ok::<(), etw_classic::read::Lznt1Error>(())
/// ```
///
/// # Errors
/// Each error carries the input offset of the chunk header or item at fault; `output` then holds
/// the decoding of the items before it (see [Output after an error](self#output-after-an-error)).
/// - [`Lznt1Error::HeaderTruncated`]: 1 byte left where a chunk header is due;
/// - [`Lznt1Error::BadSignature`]: a chunk header whose bits 14 to 12 are not 3;
/// - [`Lznt1Error::ChunkTruncated`]: a chunk runs past the end of the input;
/// - [`Lznt1Error::WordTruncated`]: 1 byte left in a chunk where a compressed word is due;
/// - [`Lznt1Error::DistanceBeforeChunk`]: a match reaches back before the start of its chunk;
/// - [`Lznt1Error::ChunkTooLong`]: a chunk decompresses to more than 4096 bytes;
/// - [`Lznt1Error::OutputTooSmall`]: `output` has no room for a literal, a match or an
///   uncompressed chunk.
pub fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Lznt1Error> {
    let mut rest = input;
    // Bytes written to the start of `output`: never more than `output.len()`, since every item
    // is written only where `output` holds it.
    let mut written = 0;
    loop {
        let offset = offset_in(input, rest);
        let Some((header, after)) = rest.split_first_chunk::<2>() else {
            if rest.is_empty() {
                return Ok(written);
            }
            return Err(Lznt1Error::HeaderTruncated {
                offset,
                available: rest.len(),
            });
        };
        let header = u16::from_le_bytes(*header);
        if header == 0 {
            return Ok(written);
        }
        if header & SIGNATURE_MASK != SIGNATURE {
            return Err(Lznt1Error::BadSignature { offset, header });
        }
        // 1 to 4096.
        let size = usize::from(header & SIZE_MASK) + 1;
        let Some((data, next)) = after.split_at_checked(size) else {
            return Err(Lznt1Error::ChunkTruncated {
                offset,
                needed: size,
                available: after.len(),
            });
        };
        written = if header & COMPRESSED == 0 {
            let available = output.len().saturating_sub(written);
            let Some(target) = output
                .get_mut(written..)
                .and_then(|room| room.get_mut(..size))
            else {
                return Err(Lznt1Error::OutputTooSmall {
                    offset: offset_in(input, after),
                    needed: size,
                    available,
                });
            };
            // Both are `size` bytes long.
            for (to, from) in target.iter_mut().zip(data) {
                *to = *from;
            }
            // `target` held the `size` bytes after `written`.
            #[allow(clippy::arithmetic_side_effects)]
            let end = written + size;
            end
        } else {
            decode_chunk(input, data, output, written)?
        };
        rest = next;
    }
}

/// Where `rest`, a suffix of `input`, starts in `input`.
#[allow(clippy::arithmetic_side_effects)] // A suffix is never longer than the slice it ends.
fn offset_in(input: &[u8], rest: &[u8]) -> usize {
    input.len() - rest.len()
}

/// The number of displacement bits of a compressed word at `position`, the bytes its chunk has
/// decompressed so far: the smallest of 4 to 12 whose power of two is at least `position`.
fn displacement_bits(position: usize) -> u32 {
    // `position - 1` has `ceil(log2(position))` significant bits (none for a position of 0
    // or 1).
    // `leading_zeros` is at most `usize::BITS`.
    #[allow(clippy::arithmetic_side_effects)]
    let significant = usize::BITS - position.saturating_sub(1).leading_zeros();
    // Not `clamp`, whose check of its bounds can leave a panic path where it is not inlined
    // (the no-panic link check at opt-level "z").
    #[allow(clippy::manual_clamp)]
    significant
        .max(MIN_DISPLACEMENT_BITS)
        .min(MAX_DISPLACEMENT_BITS)
}

/// Decodes `data`, the bytes of a compressed chunk after its header, into `output` from
/// `start`, and returns where its output ends.
fn decode_chunk(
    input: &[u8],
    data: &[u8],
    output: &mut [u8],
    start: usize,
) -> Result<usize, Lznt1Error> {
    let mut rest = data;
    // From `start` to at most `start + CHUNK_SIZE` and `output.len()`: each item is checked
    // against both before it is written.
    let mut written = start;
    while let Some((&flags, after)) = rest.split_first() {
        rest = after;
        for bit in 0..8 {
            if rest.is_empty() {
                break;
            }
            let offset = offset_in(input, rest);
            // `written >= start`, and at most `CHUNK_SIZE` past it.
            #[allow(clippy::arithmetic_side_effects)]
            let position = written - start;
            if flags >> bit & 1 == 0 {
                let Some((&literal, after)) = rest.split_first() else {
                    break;
                };
                if position >= CHUNK_SIZE {
                    return Err(Lznt1Error::ChunkTooLong {
                        offset,
                        position,
                        needed: 1,
                    });
                }
                let Some(target) = output.get_mut(written) else {
                    return Err(Lznt1Error::OutputTooSmall {
                        offset,
                        needed: 1,
                        available: 0,
                    });
                };
                *target = literal;
                rest = after;
                // `output` held a byte at `written`.
                #[allow(clippy::arithmetic_side_effects)]
                {
                    written += 1;
                }
                continue;
            }
            let Some((word, after)) = rest.split_first_chunk::<2>() else {
                return Err(Lznt1Error::WordTruncated {
                    offset,
                    available: rest.len(),
                });
            };
            let word = u16::from_le_bytes(*word);
            // 4 to 12 displacement bits, so 4 to 12 length bits; a distance of 1 to 4096 and a
            // length of 3 to 4098.
            #[allow(clippy::arithmetic_side_effects)]
            let (distance, length) = {
                let length_bits = 16 - displacement_bits(position);
                let length_mask = u16::MAX >> (16 - length_bits);
                (
                    usize::from(word >> length_bits) + 1,
                    usize::from(word & length_mask) + MIN_MATCH,
                )
            };
            if distance > position {
                return Err(Lznt1Error::DistanceBeforeChunk {
                    offset,
                    distance,
                    position,
                });
            }
            // `position <= CHUNK_SIZE` and `length <= 4098`: no overflow.
            #[allow(clippy::arithmetic_side_effects)]
            if position + length > CHUNK_SIZE {
                return Err(Lznt1Error::ChunkTooLong {
                    offset,
                    position,
                    needed: length,
                });
            }
            let available = output.len().saturating_sub(written);
            if length > available {
                return Err(Lznt1Error::OutputTooSmall {
                    offset,
                    needed: length,
                    available,
                });
            }
            // `1 <= distance <= position <= written` and `length <= output.len() - written`, as
            // `copy_match` needs; `None` cannot happen then.
            let Some(end) = copy_match(output, distance, written, length) else {
                not_reached();
                return Err(Lznt1Error::OutputTooSmall {
                    offset,
                    needed: length,
                    available,
                });
            };
            written = end;
            rest = after;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// [MS-XCA] section 3.3: the compressed bytes and the string they decompress to.
    const SPEC_COMPRESSED: [u8; 59] = [
        0x38, 0xb0, 0x88, 0x46, 0x23, 0x20, 0x00, 0x20, 0x47, 0x20, 0x41, 0x00, 0x10, 0xa2, 0x47,
        0x01, 0xa0, 0x45, 0x20, 0x44, 0x00, 0x08, 0x45, 0x01, 0x50, 0x79, 0x00, 0xc0, 0x45, 0x20,
        0x05, 0x24, 0x13, 0x88, 0x05, 0xb4, 0x02, 0x4a, 0x44, 0xef, 0x03, 0x58, 0x02, 0x8c, 0x09,
        0x16, 0x01, 0x48, 0x45, 0x00, 0xbe, 0x00, 0x9e, 0x00, 0x04, 0x01, 0x18, 0x90, 0x00,
    ];
    const SPEC_TEXT: &[u8] = b"F# F# G A A G F# E D D E F# F# E E F# F# G A A G F# E D D E F# \
E D D E E F# D E F# G F# D E F# G F# E D E A F# F# G A A G F# E D D E F# E D D\0";

    #[test]
    fn the_section_3_3_example_decodes() {
        assert_eq!(SPEC_TEXT.len(), 142);
        let mut output = [0xAA; 200];
        assert_eq!(decompress(&SPEC_COMPRESSED, &mut output), Ok(142));
        assert_eq!(&output[..142], SPEC_TEXT);
        assert!(output[142..].iter().all(|&byte| byte == 0xAA));
        // A terminating header of 0 changes nothing, and what follows it is not read.
        let mut terminated = SPEC_COMPRESSED.to_vec();
        terminated.extend_from_slice(&[0, 0, 0xFF]);
        assert_eq!(decompress(&terminated, &mut output), Ok(142));
    }

    #[test]
    fn displacement_bits_follow_the_chunk_position() {
        // Section 2.5.1.4: 4 bits up to position 16, one more each time the position passes a
        // power of two, 12 from 2049 on.
        let expected = [
            (0, 4),
            (1, 4),
            (16, 4),
            (17, 5),
            (32, 5),
            (33, 6),
            (1024, 10),
            (1025, 11),
            (2048, 11),
            (2049, 12),
            (4095, 12),
            (4096, 12),
        ];
        for (position, bits) in expected {
            assert_eq!(displacement_bits(position), bits, "position {position}");
        }
    }

    #[test]
    fn an_uncompressed_chunk_is_copied_and_chunks_are_independent() {
        // An uncompressed chunk of 3 bytes (header 0x3002), then a compressed one whose first
        // item is a match: it may not reach back into the first chunk.
        let input = [0x02, 0x30, b'a', b'b', b'c', 0x02, 0xB0, 0x01, 0x00, 0x00];
        let mut output = [0; 16];
        assert_eq!(
            decompress(&input[..5], &mut output),
            Ok(3),
            "the uncompressed chunk alone"
        );
        assert_eq!(&output[..3], b"abc");
        assert_eq!(
            decompress(&input, &mut output),
            Err(Lznt1Error::DistanceBeforeChunk {
                offset: 8,
                distance: 1,
                position: 0
            })
        );
    }

    #[test]
    fn errors_name_what_was_expected_and_where() {
        let mut output = [0; 200];
        assert_eq!(
            decompress(&[0x38], &mut output),
            Err(Lznt1Error::HeaderTruncated {
                offset: 0,
                available: 1
            })
        );
        assert_eq!(
            decompress(&[0x38, 0xC0], &mut output),
            Err(Lznt1Error::BadSignature {
                offset: 0,
                header: 0xC038
            })
        );
        assert_eq!(
            decompress(&SPEC_COMPRESSED[..58], &mut output),
            Err(Lznt1Error::ChunkTruncated {
                offset: 0,
                needed: 57,
                available: 56
            })
        );
        // A chunk of 2 data bytes: a flag byte announcing a word, and one byte of it.
        assert_eq!(
            decompress(&[0x01, 0xB0, 0x01, 0x00], &mut output),
            Err(Lznt1Error::WordTruncated {
                offset: 3,
                available: 1
            })
        );
        assert_eq!(
            decompress(&SPEC_COMPRESSED, &mut output[..141]),
            Err(Lznt1Error::OutputTooSmall {
                offset: 58,
                needed: 1,
                available: 0
            })
        );
        assert_eq!(output[..141], SPEC_TEXT[..141]);
        assert_eq!(
            decompress(&[0x00, 0x30, b'x'], &mut [0u8; 0]),
            Err(Lznt1Error::OutputTooSmall {
                offset: 2,
                needed: 1,
                available: 0
            })
        );
    }

    #[test]
    fn a_chunk_may_not_decompress_to_more_than_4096_bytes() {
        // 'z', then a match at distance 1 whose 12-bit length field 0xFFC (position 1: 4
        // displacement bits) makes 4095 bytes: 4096 in all.
        let full = [0x03, 0xB0, 0b10, b'z', 0xFC, 0x0F];
        let mut output = std::vec![0; 5000];
        assert_eq!(decompress(&full, &mut output), Ok(4096));
        assert!(output[..4096].iter().all(|&byte| byte == b'z'));
        // One more match, of 3 bytes (position 4096: 12 displacement bits, a length field of
        // 0): past the chunk's 4096 bytes.
        let over = [0x05, 0xB0, 0b110, b'z', 0xFC, 0x0F, 0x00, 0x00];
        assert_eq!(
            decompress(&over, &mut output),
            Err(Lznt1Error::ChunkTooLong {
                offset: 6,
                position: 4096,
                needed: 3
            })
        );
    }

    proptest::proptest! {
        #[test]
        fn any_input_decodes_or_fails_without_writing_past_the_decoded_bytes(
            input in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
            capacity in 0usize..600,
        ) {
            let mut output = std::vec![0xA5u8; capacity];
            if let Ok(written) = decompress(&input, &mut output) {
                proptest::prop_assert!(written <= capacity);
                proptest::prop_assert!(output[written..].iter().all(|&byte| byte == 0xA5));
            }
        }
    }
}
