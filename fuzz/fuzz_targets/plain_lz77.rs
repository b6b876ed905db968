//! Plain LZ77 decompression of arbitrary bytes: it never panics, it decodes what the rules of
//! [MS-XCA] 2.4.4 decode, and its results obey laws that tie outputs of different sizes together.
//!
//! Input: a little-endian `u16` output capacity, then the compressed stream. Checked:
//! - against `etw_classic_fuzz::model::lz77`, a byte-at-a-time reading of the [MS-XCA] 2.4.4
//!   pseudo-code: a success writes the same bytes, and an error is one the rules name for the
//!   same item, after the same bytes of the items before it; the output after those bytes is
//!   untouched either way;
//! - a success returns at most the capacity, and leaves the output after it untouched;
//! - into a larger output, a success gives the same length and bytes, and an error other than
//!   `Lz77OutputTooSmall` is the same error with the same bytes decoded before it;
//! - an `Lz77OutputTooSmall` error means the larger output gets further: it fails later in the
//!   input, or succeeds with more bytes than the capacity;
//! - a stream that decodes to `n` bytes decodes into exactly `n` bytes of room, and into `n - 1`
//!   fails with `Lz77OutputTooSmall`;
//! - every error's offset lies inside the input, and a truncation error's byte count is what is
//!   left of the input there.
#![no_main]

use etw_classic::plain_lz77::decompress;
use etw_classic::read::Lz77Error;
use etw_classic_fuzz::model;
use libfuzzer_sys::fuzz_target;

/// What the outputs are filled with before decoding, to see which bytes were written.
const FILL: u8 = 0xA5;
/// How much larger the second output is.
const EXTRA: usize = 1 << 16;
/// An output as it is before decoding, longer than any output here (a `u16` capacity plus
/// `EXTRA`); compared as one slice, which is much faster under the sanitizer than byte by byte.
static FILLED: [u8; 2 * EXTRA] = [FILL; 2 * EXTRA];

fn run(input: &[u8], capacity: usize) -> (Result<usize, Lz77Error>, Vec<u8>) {
    let mut output = vec![FILL; capacity];
    let result = decompress(input, &mut output);
    (result, output)
}

/// The input offset an error names, and checks on the byte counts it reports.
fn check_error(error: &Lz77Error, input: &[u8]) -> usize {
    let left = |offset: usize| input.len() - offset;
    match *error {
        Lz77Error::FlagsTruncated { offset, available } => {
            assert!((1..4).contains(&available), "{error:?}");
            assert_eq!(available, left(offset), "{error:?}");
            offset
        }
        Lz77Error::MatchTruncated { offset, available } => {
            assert_eq!(available, 1, "{error:?}");
            assert_eq!(available, left(offset), "{error:?}");
            offset
        }
        Lz77Error::LengthTruncated {
            offset,
            needed,
            available,
        } => {
            assert!(
                [1, 2, 4].contains(&needed) && available < needed,
                "{error:?}"
            );
            assert_eq!(available, left(offset), "{error:?}");
            offset
        }
        Lz77Error::LengthBelowMinimum { offset, found } => {
            assert!(found < 22, "{error:?}");
            assert!(offset + 2 <= input.len(), "{error:?}");
            offset
        }
        Lz77Error::DistanceBeforeStart {
            offset,
            distance,
            written,
        } => {
            assert!(
                (1..=8192).contains(&distance) && distance > written,
                "{error:?}"
            );
            assert!(offset + 2 <= input.len(), "{error:?}");
            offset
        }
        Lz77Error::OutputTooSmall {
            offset,
            needed,
            available,
        } => {
            assert!(needed > available as u64, "{error:?}");
            assert!(offset < input.len(), "{error:?}");
            offset
        }
        _ => panic!("not a plain LZ77 error: {error:?}"),
    }
}

/// The library's result and output against the rules' decoding into the same capacity.
fn check_model(input: &[u8], result: &Result<usize, Lz77Error>, output: &[u8]) {
    let expected = model::lz77(input, output.len());
    let decoded = expected.output.len();
    match (result, &expected.end) {
        (Ok(written), Ok(())) => assert_eq!(*written, decoded, "decoded length"),
        (Err(error), Err(allowed)) => {
            assert!(allowed.contains(error), "{error:?}; the rules: {allowed:?}")
        }
        (result, end) => {
            panic!("decompress gave {result:?}; the rules {end:?} after {decoded} bytes")
        }
    }
    assert_eq!(output[..decoded], expected.output[..], "the decoded bytes");
    assert!(
        output[decoded..] == FILLED[..output.len() - decoded],
        "written past the decoded bytes"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((capacity, input)) = data.split_first_chunk::<2>() else {
        return;
    };
    let capacity = usize::from(u16::from_le_bytes(*capacity));

    let (small, small_out) = run(input, capacity);
    let (large, large_out) = run(input, capacity + EXTRA);
    check_model(input, &small, &small_out);
    check_model(input, &large, &large_out);

    match small {
        Ok(written) => {
            assert!(written <= capacity);
            assert!(small_out[written..].iter().all(|&byte| byte == FILL));
            assert_eq!(large, Ok(written), "a larger output changed the result");
            assert_eq!(
                large_out[..capacity],
                small_out[..],
                "a larger output changed the bytes"
            );
        }
        Err(error) => {
            let offset = check_error(&error, input);
            if let Lz77Error::OutputTooSmall { available, .. } = error {
                let decoded = capacity - available;
                assert!(small_out[decoded..].iter().all(|&byte| byte == FILL));
                assert_eq!(large_out[..decoded], small_out[..decoded]);
                match large {
                    Ok(written) => assert!(written > capacity, "{error:?} then Ok({written})"),
                    Err(later) => {
                        let later_offset = check_error(&later, input);
                        assert!(
                            later_offset > offset
                                || matches!(later, Lz77Error::OutputTooSmall { offset: o, .. } if o == offset),
                            "{error:?} then {later:?}"
                        );
                    }
                }
            } else {
                assert_eq!(large, Err(error), "a larger output changed the error");
                assert_eq!(large_out[..capacity], small_out[..]);
            }
        }
    }

    // Exactly full, and one byte short.
    if let Ok(written) = large {
        let (exact, exact_out) = run(input, written);
        assert_eq!(exact, Ok(written));
        assert_eq!(exact_out[..], large_out[..written]);
        if written > 0 {
            let (short, _) = run(input, written - 1);
            assert!(
                matches!(short, Err(Lz77Error::OutputTooSmall { .. })),
                "{written} bytes into {}: {short:?}",
                written - 1
            );
        }
    }
});
