//! What the code knows and the compiler cannot see, said once for every layer.
//!
//! The library has no panic path (`tools/no-panic/`), so an arm the code believes unreachable
//! (a `get` of an index known to be in range, a conversion known to fit) still returns
//! something. Such an arm must not hide a broken invariant: it checks the invariant with a
//! `debug_assert!`, which the debug builds of the tests, the property tests and the fuzz
//! targets (cargo-fuzz builds with debug assertions) turn into a panic at the arm, and which the
//! release builds leave out, so that the optimised code, the no-panic check and the firmware's
//! instruction counts do not change.

// A `usize` holds every `u32`: the decompressors' 65536-byte blocks, and the conversions of the
// `u32` lengths and offsets of the trace format below, rely on it. (A 16-bit target would also
// refuse `xpress_huffman::BLOCK_SIZE` at compile time.)
const _: () = assert!(usize::BITS >= 32);

/// `value` as a `usize`, without loss: a `usize` has at least 32 bits (asserted at compile time
/// above).
#[inline(always)]
#[allow(clippy::as_conversions)] // Widening, or the same width: never truncates.
pub(crate) const fn usize_from_u32(value: u32) -> usize {
    value as usize
}

/// `value`, which the caller's reasoning (said in a comment there) makes `Some`. A `None` is a
/// broken invariant: a debug build panics, naming the caller's line; a release build, where no
/// panic path may remain, takes `fallback` and goes on.
#[inline(always)]
#[track_caller]
pub(crate) fn known<T>(value: Option<T>, fallback: T) -> T {
    debug_assert!(
        value.is_some(),
        "broken invariant: a value known to be there is missing"
    );
    value.unwrap_or(fallback)
}

/// An arm the code believes unreachable (its comment says why): reaching it is a broken
/// invariant, which a debug build reports by panicking at the caller's line; a release build
/// goes on with what the arm returns.
#[inline(always)]
#[track_caller]
// The arm itself is the failed check: reaching it is what is asserted against.
#[allow(clippy::assertions_on_constants)]
pub(crate) fn not_reached() {
    debug_assert!(
        false,
        "broken invariant: an arm known to be unreachable was reached"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usize_from_u32_keeps_every_value() {
        for value in [0, 1, 0xFFFF, 0x1_0000, 0x8000_0000, u32::MAX] {
            assert_eq!(usize_from_u32(value), usize::try_from(value).unwrap());
        }
    }

    #[test]
    fn known_gives_the_value() {
        assert_eq!(known(Some(7u8), 0), 7);
    }

    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "broken invariant"))]
    fn known_without_a_value_panics_in_debug_builds_and_falls_back_otherwise() {
        assert_eq!(known(None, 3u8), 3);
    }

    #[test]
    #[cfg_attr(debug_assertions, should_panic(expected = "broken invariant"))]
    fn not_reached_panics_in_debug_builds_only() {
        not_reached();
    }
}
