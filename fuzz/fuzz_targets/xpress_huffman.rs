//! LZ77+Huffman ([MS-XCA] 2.1-2.2) decompression of arbitrary bytes: it never panics, and its results obey laws
//! that tie outputs of different sizes together.
//!
//! Input: a little-endian `u16` output capacity, then the compressed stream. Checked:
//! - a success returns at most the capacity, and leaves the output after it untouched;
//! - decoding is deterministic: the same input into the same capacity gives the same result
//!   and bytes;
//! - into an output 64 KiB larger, the bytes a success wrote are a prefix of what the larger
//!   output holds, whatever its result; a success of the larger output within the capacity is
//!   the same success;
//! - an error other than `OutputTooSmall` leaves the output after the bytes decoded before it
//!   untouched, and so does `OutputTooSmall`, whose `needed` is more than its `available`;
//! - a stream that decodes to `n` bytes decodes into exactly `n` bytes of room to the same
//!   bytes, and into `n - 1` fails with `OutputTooSmall`;
//! - every error's offset lies inside the input (or at its end);
//! - against `etw_classic_fuzz::model::xpress_huffman`, a byte-at-a-time reading of the [MS-XCA] rules
//!   (a literal `2^15`-entry decoding table for LZ77+Huffman): a success writes the same bytes,
//!   and an error comes after the same bytes, with nothing written after them.
#![no_main]

use etw_classic::read::XpressHuffmanError;
use etw_classic_fuzz::decompressor::{check, Decompressor};
use etw_classic_fuzz::model;
use libfuzzer_sys::fuzz_target;

struct XpressHuffman;

impl Decompressor for XpressHuffman {
    type Error = XpressHuffmanError;

    fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, XpressHuffmanError> {
        etw_classic::xpress_huffman::decompress(input, output)
    }

    fn model(input: &[u8], capacity: usize) -> Result<Vec<u8>, Vec<u8>> {
        model::xpress_huffman(input, capacity)
    }

    fn offset_of(error: &XpressHuffmanError) -> usize {
        match *error {
            XpressHuffmanError::TableTruncated { offset, .. }
            | XpressHuffmanError::InvalidCodeLengths { offset, .. }
            | XpressHuffmanError::BitsTruncated { offset, .. }
            | XpressHuffmanError::LengthTruncated { offset, .. }
            | XpressHuffmanError::LengthBelowMinimum { offset, .. }
            | XpressHuffmanError::DistanceBeforeStart { offset, .. }
            | XpressHuffmanError::OutputTooSmall { offset, .. } => offset,
            ref other => panic!("an error this target does not know: {other:?}"),
        }
    }

    fn too_small(error: &XpressHuffmanError) -> Option<(u64, usize)> {
        match *error {
            XpressHuffmanError::OutputTooSmall {
                needed, available, ..
            } => Some((needed, available)),
            _ => None,
        }
    }
}

fuzz_target!(|data: &[u8]| check::<XpressHuffman>(data));
