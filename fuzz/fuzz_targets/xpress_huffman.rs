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
use etw_classic::xpress_huffman::decompress;
use etw_classic_fuzz::model;
use libfuzzer_sys::fuzz_target;

/// What the outputs are filled with before decoding, to see which bytes were written.
const FILL: u8 = 0xA5;
/// How much larger the second output is.
const EXTRA: usize = 1 << 16;

fn run(input: &[u8], capacity: usize) -> (Result<usize, XpressHuffmanError>, Vec<u8>) {
    let mut output = vec![FILL; capacity];
    let result = decompress(input, &mut output);
    (result, output)
}

/// The input offset an error names.
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

/// How many bytes at the start of `output` differ from the fill, at most: everything up to the
/// last byte that differs (a decoded byte may equal the fill).
fn touched(output: &[u8]) -> usize {
    output
        .iter()
        .rposition(|&byte| byte != FILL)
        .map_or(0, |at| at + 1)
}

fuzz_target!(|data: &[u8]| {
    let Some((capacity, input)) = data.split_first_chunk::<2>() else {
        return;
    };
    let capacity = usize::from(u16::from_le_bytes(*capacity));
    let (small, small_out) = run(input, capacity);
    let (again, again_out) = run(input, capacity);
    assert_eq!(small, again, "not deterministic");
    assert!(small_out == again_out, "not deterministic");
    match &small {
        Ok(written) => {
            assert!(*written <= capacity);
            assert!(
                touched(&small_out) <= *written,
                "bytes written past the result"
            );
        }
        Err(error) => {
            assert!(offset_of(error) <= input.len(), "{error:?}");
            if let XpressHuffmanError::OutputTooSmall {
                needed, available, ..
            } = *error
            {
                assert!(needed > available as u64, "{error:?}");
                assert!(available <= capacity, "{error:?}");
            }
        }
    }

    match (&small, model::xpress_huffman(input, capacity)) {
        (Ok(written), Ok(expected)) => {
            assert_eq!(*written, expected.len(), "the model decodes another length");
            assert!(
                small_out[..*written] == expected[..],
                "the model decodes other bytes"
            );
        }
        (Err(_), Err(before)) => {
            assert!(
                small_out[..before.len()] == before[..],
                "other bytes before the error"
            );
            assert!(
                touched(&small_out) <= before.len(),
                "bytes written for the item at fault"
            );
        }
        (ours, model) => panic!(
            "{ours:?}, the model {:?}",
            model.map(|out| out.len()).map_err(|out| out.len())
        ),
    }

    let (large, large_out) = run(input, capacity + EXTRA);
    if let Ok(written) = small {
        assert!(
            small_out[..written] == large_out[..written],
            "a larger output decodes other bytes"
        );
    }
    if let Ok(written) = large {
        assert!(touched(&large_out) <= written);
        if written <= capacity {
            assert_eq!(
                small,
                Ok(written),
                "the larger output succeeds within the capacity"
            );
        }
        // Exactly full, and one byte short.
        let (exact, exact_out) = run(input, written);
        assert_eq!(exact, Ok(written));
        assert!(exact_out[..] == large_out[..written]);
        if written > 0 {
            let (short, _) = run(input, written - 1);
            assert!(
                matches!(short, Err(XpressHuffmanError::OutputTooSmall { .. })),
                "{written} bytes into {}: {short:?}",
                written - 1
            );
        }
    }
});
