//! The laws every decompressor target checks, shared by the `lznt1` and `xpress_huffman`
//! targets: see [`check`].

use std::fmt::Debug;

/// One decompressor under test, with the byte-at-a-time model it is compared with.
pub trait Decompressor {
    type Error: Debug + PartialEq;
    /// The library's decompressor.
    fn decompress(input: &[u8], output: &mut [u8]) -> Result<usize, Self::Error>;
    /// The model: the bytes of a success, or those decoded before an error.
    fn model(input: &[u8], capacity: usize) -> Result<Vec<u8>, Vec<u8>>;
    /// The input offset an error names.
    fn offset_of(error: &Self::Error) -> usize;
    /// `needed` and `available` when the error is `OutputTooSmall`.
    fn too_small(error: &Self::Error) -> Option<(u64, usize)>;
}

/// What the outputs are filled with before decoding, to see which bytes were written.
const FILL: u8 = 0xA5;
/// How much larger the second output is.
const EXTRA: usize = 1 << 16;

fn run<D: Decompressor>(input: &[u8], capacity: usize) -> (Result<usize, D::Error>, Vec<u8>) {
    let mut output = vec![FILL; capacity];
    let result = D::decompress(input, &mut output);
    (result, output)
}

/// How many bytes at the start of `output` differ from the fill, at most: everything up to the
/// last byte that differs (a decoded byte may equal the fill).
fn touched(output: &[u8]) -> usize {
    output
        .iter()
        .rposition(|&byte| byte != FILL)
        .map_or(0, |at| at + 1)
}

/// The laws, on one fuzz input: a little-endian `u16` output capacity, then the compressed
/// stream (see each target's documentation).
pub fn check<D: Decompressor>(data: &[u8]) {
    let Some((capacity, input)) = data.split_first_chunk::<2>() else {
        return;
    };
    let capacity = usize::from(u16::from_le_bytes(*capacity));
    let (small, small_out) = run::<D>(input, capacity);
    let (again, again_out) = run::<D>(input, capacity);
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
            assert!(D::offset_of(error) <= input.len(), "{error:?}");
            if let Some((needed, available)) = D::too_small(error) {
                assert!(needed > available as u64, "{error:?}");
                assert!(available <= capacity, "{error:?}");
            }
        }
    }

    match (&small, D::model(input, capacity)) {
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

    let (large, large_out) = run::<D>(input, capacity + EXTRA);
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
        let (exact, exact_out) = run::<D>(input, written);
        assert_eq!(exact, Ok(written));
        assert!(exact_out[..] == large_out[..written]);
        if written > 0 {
            let (short, _) = run::<D>(input, written - 1);
            assert!(
                short
                    .as_ref()
                    .is_err_and(|error| D::too_small(error).is_some()),
                "{written} bytes into {}: {short:?}",
                written - 1
            );
        }
    }
}
