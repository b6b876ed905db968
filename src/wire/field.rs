//! The one mechanism every wire struct is built on: named fields at fixed offsets, read and
//! written little-endian, the length checks shared by `parse` and `emit`, and the generator of
//! the structs that have a 32-bit and a 64-bit layout.
//!
//! A field's offset and width are part of its type, [`Field<AT, N>`](Field). Each struct file
//! holds a private `offset` table of fields named after the SDK members, in which every field's
//! type starts where the previous field ends (`Field<{ PREVIOUS.end() }, N>`): the fields tile
//! the struct by construction. [`Field::at`] checks, at compile time, each start against the
//! offset the SDK documents, and [`Field::ends_at`] that the last field ends at the struct's
//! length. [`Reader`] and [`Writer`] take the struct's whole `[u8; LEN]` array and check at
//! compile time that each field they are given lies inside it.
//!
//! [`pointer_width_pair!`] writes a struct with a 32-bit and a 64-bit layout from one list of its
//! members: both structs, their offset tables and codecs, and the enum that holds either.

use crate::invariant::known;
use crate::wire::codes::{HeaderType, MarkerFlags};
use crate::wire::error::CodecError;
use crate::wire::guid::Guid;
use crate::wire::layout::Layout;

/// A member of a fixed-layout struct: `N` bytes at offset `AT`.
///
/// Only [`Field::at`] makes one, and only in `const` items, where its check runs at compile time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<const AT: usize, const N: usize>(());

impl<const AT: usize, const N: usize> Field<AT, N> {
    /// The offset of the first byte after the member.
    const END: usize = AT.saturating_add(N);

    /// The member, which must start at `documented`: the offset the SDK gives it. The type says
    /// where the member lies; this checks that it is where the documentation puts it.
    pub(crate) const fn at(documented: usize) -> Self {
        assert!(AT == documented, "a member is not at its documented offset");
        Self(())
    }

    /// The offset of the member's first byte.
    pub(crate) const fn start(self) -> usize {
        AT
    }

    /// The offset of the first byte after the member, where the next member starts.
    pub(crate) const fn end(self) -> usize {
        Self::END
    }

    /// Checks that the member lies inside a struct of `len` bytes (in the `const` blocks of
    /// [`Reader`] and [`Writer`], which run it at compile time for each field they access).
    const fn inside(len: usize) {
        assert!(Self::END <= len, "a field runs past the end of its struct");
    }

    /// Checks that the member is the last one of a struct of `len` bytes (for a `const _` item).
    // Used only in `const _` items, which the dead-code lint of Rust 1.87 misses.
    #[allow(dead_code)]
    pub(crate) const fn ends_at(self, len: usize) {
        assert!(
            Self::END == len,
            "the members do not end at the struct's length"
        );
    }
}

/// A value stored in `N` bytes of a struct, little-endian: how to read it from them and write it
/// to them.
pub(crate) trait Member<const N: usize>: Sized {
    /// The value the bytes hold.
    fn decode(bytes: [u8; N]) -> Self;
    /// The bytes that hold the value.
    fn encode(&self) -> [u8; N];
}

/// [`Member`] for the integers, as their little-endian bytes.
macro_rules! little_endian_members {
    ($($type:ty: $len:literal),*) => {
        $(
            impl Member<$len> for $type {
                #[inline]
                fn decode(bytes: [u8; $len]) -> Self {
                    Self::from_le_bytes(bytes)
                }

                #[inline]
                fn encode(&self) -> [u8; $len] {
                    self.to_le_bytes()
                }
            }
        )*
    };
}

little_endian_members!(u8: 1, u16: 2, u32: 4, u64: 8, i64: 8);

/// Raw bytes, kept as they are (padding, unions).
impl<const N: usize> Member<N> for [u8; N] {
    #[inline]
    fn decode(bytes: [u8; N]) -> Self {
        bytes
    }

    #[inline]
    fn encode(&self) -> [u8; N] {
        *self
    }
}

/// Sixteen bytes moved as one `u128`: four word loads or stores, where a copy of a 16-byte
/// array of unknown alignment is a call to `memcpy` at opt-level "z".
#[inline]
pub(crate) fn move16(bytes: &[u8; 16]) -> [u8; 16] {
    u128::from_le_bytes(*bytes).to_le_bytes()
}

/// A GUID as the wire holds it (`Data1` to `Data3` little-endian). Written through [`move16`];
/// read with a plain copy, which measures smaller in the footprint builds.
impl Member<16> for Guid {
    #[inline]
    fn decode(bytes: [u8; 16]) -> Self {
        Self::from_bytes_le(bytes)
    }

    #[inline]
    fn encode(&self) -> [u8; 16] {
        move16(&self.to_bytes_le())
    }
}

impl Member<4> for crate::wire::records::buffer_context::BufferContext {
    #[inline]
    fn decode(bytes: [u8; 4]) -> Self {
        Self(bytes)
    }

    #[inline]
    fn encode(&self) -> [u8; 4] {
        self.0
    }
}

/// Reads the fields of one struct's `LEN` bytes.
pub(crate) struct Reader<'a, const LEN: usize> {
    bytes: &'a [u8; LEN],
}

impl<'a, const LEN: usize> Reader<'a, LEN> {
    #[inline]
    pub(crate) const fn new(bytes: &'a [u8; LEN]) -> Self {
        Self { bytes }
    }

    /// A copy of the field's bytes.
    #[inline]
    pub(crate) fn bytes<const AT: usize, const N: usize>(&self, _: Field<AT, N>) -> [u8; N] {
        const { Field::<AT, N>::inside(LEN) };
        match self.bytes.get(AT..).and_then(<[u8]>::first_chunk).copied() {
            Some(bytes) => bytes,
            // Ruled out by the assertion above, which the compiler checks for each field and
            // struct length it is used with; the optimiser removes this branch, as it sees the
            // same constants (the no-panic checks of the release builds confirm it).
            None => unreachable!(),
        }
    }

    /// The value of `field`, as its type's [`Member`] implementation reads it.
    #[inline]
    pub(crate) fn get<T: Member<N>, const AT: usize, const N: usize>(
        &self,
        field: Field<AT, N>,
    ) -> T {
        T::decode(self.bytes(field))
    }

    #[inline]
    pub(crate) fn u8<const AT: usize>(&self, field: Field<AT, 1>) -> u8 {
        self.get(field)
    }

    #[inline]
    pub(crate) fn u16<const AT: usize>(&self, field: Field<AT, 2>) -> u16 {
        self.get(field)
    }

    #[inline]
    pub(crate) fn u32<const AT: usize>(&self, field: Field<AT, 4>) -> u32 {
        self.get(field)
    }

    #[inline]
    pub(crate) fn u64<const AT: usize>(&self, field: Field<AT, 8>) -> u64 {
        self.get(field)
    }

    #[inline]
    pub(crate) fn i64<const AT: usize>(&self, field: Field<AT, 8>) -> i64 {
        self.get(field)
    }

    /// Sixteen raw bytes (a union kept as bytes), moved as one `u128` (see [`move16`]).
    #[inline]
    pub(crate) fn bytes16<const AT: usize>(&self, field: Field<AT, 16>) -> [u8; 16] {
        move16(&self.bytes(field))
    }

    #[inline]
    pub(crate) fn guid<const AT: usize>(&self, field: Field<AT, 16>) -> Guid {
        self.get(field)
    }
}

/// Writes the fields of one struct's `LEN` bytes.
pub(crate) struct Writer<'a, const LEN: usize> {
    bytes: &'a mut [u8; LEN],
}

impl<'a, const LEN: usize> Writer<'a, LEN> {
    #[inline]
    pub(crate) fn new(bytes: &'a mut [u8; LEN]) -> Self {
        Self { bytes }
    }

    /// Sets the field's bytes to `value`.
    #[inline]
    pub(crate) fn bytes<const AT: usize, const N: usize>(
        &mut self,
        _: Field<AT, N>,
        value: [u8; N],
    ) {
        const { Field::<AT, N>::inside(LEN) };
        match self.bytes.get_mut(AT..).and_then(<[u8]>::first_chunk_mut) {
            Some(slot) => *slot = value,
            // Ruled out at compile time, as in `Reader::bytes`.
            None => unreachable!(),
        }
    }

    /// Sets the bytes of `field` to `value`, as its type's [`Member`] implementation writes it.
    #[inline]
    pub(crate) fn put<T: Member<N>, const AT: usize, const N: usize>(
        &mut self,
        field: Field<AT, N>,
        value: &T,
    ) {
        self.bytes(field, value.encode());
    }

    #[inline]
    pub(crate) fn u8<const AT: usize>(&mut self, field: Field<AT, 1>, value: u8) {
        self.put(field, &value);
    }

    #[inline]
    pub(crate) fn u16<const AT: usize>(&mut self, field: Field<AT, 2>, value: u16) {
        self.put(field, &value);
    }

    #[inline]
    pub(crate) fn u32<const AT: usize>(&mut self, field: Field<AT, 4>, value: u32) {
        self.put(field, &value);
    }

    #[inline]
    pub(crate) fn u64<const AT: usize>(&mut self, field: Field<AT, 8>, value: u64) {
        self.put(field, &value);
    }

    #[inline]
    pub(crate) fn i64<const AT: usize>(&mut self, field: Field<AT, 8>, value: i64) {
        self.put(field, &value);
    }

    /// Sixteen raw bytes, moved as one `u128` (see [`move16`]).
    #[inline]
    pub(crate) fn bytes16<const AT: usize>(&mut self, field: Field<AT, 16>, value: [u8; 16]) {
        self.bytes(field, move16(&value));
    }

    #[inline]
    pub(crate) fn guid<const AT: usize>(&mut self, field: Field<AT, 16>, value: Guid) {
        self.put(field, &value);
    }
}

/// Splits the first `LEN` bytes off `input` for `layout`, or says how many were missing.
#[inline]
pub(crate) fn split_prefix<const LEN: usize>(
    layout: Layout,
    input: &[u8],
) -> Result<(&[u8; LEN], &[u8]), CodecError> {
    input
        .split_first_chunk::<LEN>()
        .ok_or(CodecError::Truncated {
            layout,
            needed: LEN,
            found: input.len(),
        })
}

/// A struct's `LEN` bytes, every one set by `write` (a struct's `write` method) over zeros.
#[inline]
pub(crate) fn encode<const LEN: usize>(write: impl FnOnce(&mut Writer<'_, LEN>)) -> [u8; LEN] {
    let mut bytes = [0; LEN];
    write(&mut Writer::new(&mut bytes));
    bytes
}

/// Encodes a struct of `LEN` bytes with `write` straight into the front of `out`, and returns
/// the rest of `out`; writes nothing when `out` is too small.
///
/// `write` must set every one of the `LEN` bytes, as each struct's `write` does (the fields tile
/// the struct; `tests/laws.rs` checks it over any earlier content of `out`). Writing in place,
/// rather than copying an encoded `[u8; LEN]`, keeps the struct's bytes off the stack.
#[inline]
pub(crate) fn emit_prefix<const LEN: usize>(
    layout: Layout,
    out: &mut [u8],
    write: impl FnOnce(&mut Writer<'_, LEN>),
) -> Result<&mut [u8], CodecError> {
    let found = out.len();
    let (slot, rest) = out
        .split_first_chunk_mut::<LEN>()
        .ok_or(CodecError::OutputTooSmall {
            layout,
            needed: LEN,
            found,
        })?;
    write(&mut Writer::new(slot));
    Ok(rest)
}

/// Where the members that `parse` checks lie in an event header: `EVENT_TRACE_HEADER`'s offsets
/// for the headers that begin with one, `SYSTEM_TRACE_HEADER`'s for system events.
#[derive(Clone, Copy)]
pub(crate) struct CheckedFields<const SIZE: usize, const HEADER_TYPE: usize, const MARKER: usize> {
    pub(crate) size: Field<SIZE, 2>,
    pub(crate) header_type: Field<HEADER_TYPE, 1>,
    pub(crate) marker_flags: Field<MARKER, 1>,
}

/// The checks `parse` makes on a header read from a trace buffer: marker flags 0xC0, one of the
/// two header types the struct is written with, and a `Size` that covers the fixed header. They
/// read the three members in place, before `parse` decodes the rest.
#[inline]
pub(crate) fn check_event_header<
    const LEN: usize,
    const SIZE: usize,
    const HEADER_TYPE: usize,
    const MARKER: usize,
>(
    layout: Layout,
    read: &Reader<'_, LEN>,
    fields: CheckedFields<SIZE, HEADER_TYPE, MARKER>,
    expected: [HeaderType; 2],
) -> Result<(), CodecError> {
    check_event_header_members(
        layout,
        MarkerFlags(read.u8(fields.marker_flags)),
        HeaderType(read.u8(fields.header_type)),
        read.u16(fields.size),
        expected,
    )
}

/// [`check_event_header`] on the three members' values: one function for every header layout
/// and set of offsets (a body generic over them measured 92 bytes more in the footprint build).
fn check_event_header_members(
    layout: Layout,
    marker_flags: MarkerFlags,
    header_type: HeaderType,
    size: u16,
    [expected_32, expected_64]: [HeaderType; 2],
) -> Result<(), CodecError> {
    if !marker_flags.is_event_trace_header() {
        return Err(CodecError::NotATraceHeader {
            layout,
            found: marker_flags,
        });
    }
    if header_type != expected_32 && header_type != expected_64 {
        return Err(CodecError::WrongHeaderType {
            layout,
            expected_32,
            expected_64,
            found: header_type,
        });
    }
    let header_len = layout.byte_len();
    if usize::from(size) < header_len {
        return Err(CodecError::SizeBelowHeader {
            layout,
            header_len,
            size,
        });
    }
    Ok(())
}

/// Splits an event of `size` bytes (whose header has already been checked to fit in `size`) off
/// the front of `input`: returns its data after the fixed header, and the bytes after the event.
pub(crate) fn split_event(
    layout: Layout,
    input: &[u8],
    size: u16,
) -> Result<(&[u8], &[u8]), CodecError> {
    let (event, rest) =
        input
            .split_at_checked(usize::from(size))
            .ok_or(CodecError::SizeBeyondInput {
                layout,
                size,
                available: input.len(),
            })?;
    // The caller checked that the header fits in `size`.
    let data = known(event.get(layout.byte_len()..), &[]);
    Ok((data, rest))
}

/// Test bytes shaped like the C-ABI vectors named `ascending` in `tests/data/`: byte `i` of the
/// struct is `0x11 + i`, so every field has distinct non-zero bytes and a misplaced offset shows.
#[cfg(test)]
pub(crate) fn ascending<const N: usize>() -> [u8; N] {
    core::array::from_fn(|index| (index as u8).wrapping_add(0x11))
}

/// The `to_bytes`, `emit` (and `parse`) entry points every fixed-layout type shares, written
/// once on top of the type's `LEN`, `LAYOUT`, `from_bytes` and `write` (which sets every byte).
///
/// `length_only` also gives the type a `parse` that checks nothing but the length (for the
/// structs that never appear in trace buffers); `emit` alone suits the wire headers, whose
/// `parse` makes their own checks.
macro_rules! fixed_layout_entry_points {
    ($type:ty, length_only) => {
        impl $type {
            /// Decodes the first [`Self::LEN`] bytes of `input` (any values) and returns the rest.
            ///
            /// # Errors
            /// [`CodecError::Truncated`](crate::wire::CodecError::Truncated) when `input` is shorter than [`Self::LEN`].
            #[inline]
            pub fn parse(input: &[u8]) -> Result<(Self, &[u8]), crate::wire::error::CodecError> {
                let (bytes, rest) =
                    crate::wire::field::split_prefix::<{ Self::LEN }>(Self::LAYOUT, input)?;
                Ok((Self::from_bytes(bytes), rest))
            }
        }
        crate::wire::field::fixed_layout_entry_points!($type, emit);
    };
    ($type:ty, emit) => {
        impl $type {
            /// Encodes every member; `from_bytes(&v.to_bytes()) == v` for every value `v`.
            #[inline]
            pub fn to_bytes(&self) -> [u8; Self::LEN] {
                crate::wire::field::encode(|write| self.write(write))
            }

            /// Writes the struct to the start of `out` and returns the rest of `out`.
            ///
            /// # Errors
            /// [`CodecError::OutputTooSmall`](crate::wire::CodecError::OutputTooSmall) when `out` is shorter than
            /// [`Self::LEN`]; nothing is written then.
            #[inline]
            pub fn emit<'o>(
                &self,
                out: &'o mut [u8],
            ) -> Result<&'o mut [u8], crate::wire::error::CodecError> {
                crate::wire::field::emit_prefix::<{ Self::LEN }>(Self::LAYOUT, out, |write| {
                    self.write(write)
                })
            }
        }
    };
}

pub(crate) use fixed_layout_entry_points;

/// A struct that holds pointers or `HANDLE`s, in its 32-bit and 64-bit layouts, from one list
/// of its members: the two structs (`Bits32` and `Bits64`), their offset tables (modules
/// `offset32` and `offset64`, so one pair to a module), codecs and entry points, and the enum
/// that holds either layout, with its `parse`, `emit`, `bitness`, `layout`, `byte_len`, `From`
/// conversions and an accessor for every member both layouts have.
///
/// Each member is written once, as `name: Type[N] @ AT32, AT64 => "SdkName",` after its doc:
/// `N` bytes (its [`Member`] implementation decodes and encodes them), at the offsets the SDK
/// documents for each layout, `-` for a layout that does not have it (padding only one of them
/// needs). `name: pointer @ AT32, AT64 => "SdkName",` is a pointer: a `u32` of 4 bytes in the
/// 32-bit layout and a `u64` of 8 in the 64-bit one, which the enum's accessor widens to `u64`.
/// The members' offsets come from their order and widths, so a pointer moves those after it in
/// the 64-bit layout; the documented offsets are checked against them at compile time and fill
/// the offset table appended to each struct's documentation.
///
/// The methods in `shared { ... }` (taking `&self`, using members both layouts have) go into
/// both structs, and into the enum as a call to the one its value holds.
macro_rules! pointer_width_pair {
    (
        $(#[$enum_attr:meta])*
        pub enum $enum:ident {
            $(#[$attr32:meta])*
            Bits32($s32:ident) = $layout32:ident, $len32:tt;
            $(#[$attr64:meta])*
            Bits64($s64:ident) = $layout64:ident, $len64:tt;
        }
        members {
            $($members:tt)*
        }
        $(shared {
            $($(#[$method_attr:meta])* pub fn $method:ident(&$self:ident) -> $ret:ty $body:block)*
        })?
    ) => {
        $crate::wire::field::pointer_width_pair!(@member
            {
                [$(#[$enum_attr])*] $enum
                [$(#[$attr32])*] $s32 $layout32 $len32 offset32
                [$(#[$attr64])*] $s64 $layout64 $len64 offset64
                [$($([$(#[$method_attr])*] $method $self $ret $body)*)?]
            }
            [START] [START] []
            $($members)*
        );
    };

    // The members one by one, into the list of each layout (which starts with the member the
    // next one follows) and the list of those both layouts have.
    (@member $pair:tt [$prev32:ident $($list32:tt)*] [$prev64:ident $($list64:tt)*] [$($both:tt)*]
        $(#[$doc:meta])* $name:ident: pointer @ $at32:tt, $at64:tt => $sdk:literal,
        $($rest:tt)*
    ) => {
        $crate::wire::field::pointer_width_pair!(@member $pair
            [$name $($list32)* {[$(#[$doc])*] $name $prev32 u32 4 $at32 $sdk narrow}]
            [$name $($list64)* {[$(#[$doc])*] $name $prev64 u64 8 $at64 $sdk same}]
            [$($both)* {[$(#[$doc])* #[doc = ""] #[doc = "Widened to 64 bits."]] $name u64 widen}]
            $($rest)*
        );
    };
    (@member $pair:tt [$prev32:ident $($list32:tt)*] $list64:tt $both:tt
        $(#[$doc:meta])* $name:ident: $type:tt[$len:tt] @ $at32:tt, - => $sdk:literal,
        $($rest:tt)*
    ) => {
        $crate::wire::field::pointer_width_pair!(@member $pair
            [$name $($list32)* {[$(#[$doc])*] $name $prev32 $type $len $at32 $sdk zero}]
            $list64
            $both
            $($rest)*
        );
    };
    (@member $pair:tt $list32:tt [$prev64:ident $($list64:tt)*] $both:tt
        $(#[$doc:meta])* $name:ident: $type:tt[$len:tt] @ -, $at64:tt => $sdk:literal,
        $($rest:tt)*
    ) => {
        $crate::wire::field::pointer_width_pair!(@member $pair
            $list32
            [$name $($list64)* {[$(#[$doc])*] $name $prev64 $type $len $at64 $sdk same}]
            $both
            $($rest)*
        );
    };
    (@member $pair:tt [$prev32:ident $($list32:tt)*] [$prev64:ident $($list64:tt)*] [$($both:tt)*]
        $(#[$doc:meta])* $name:ident: $type:tt[$len:tt] @ $at32:tt, $at64:tt => $sdk:literal,
        $($rest:tt)*
    ) => {
        $crate::wire::field::pointer_width_pair!(@member $pair
            [$name $($list32)* {[$(#[$doc])*] $name $prev32 $type $len $at32 $sdk same}]
            [$name $($list64)* {[$(#[$doc])*] $name $prev64 $type $len $at64 $sdk same}]
            [$($both)* {[$(#[$doc])*] $name $type same}]
            $($rest)*
        );
    };

    // All members listed: both layouts, then the enum.
    (@member
        {
            [$(#[$enum_attr:meta])*] $enum:ident
            [$(#[$attr32:meta])*] $s32:ident $layout32:ident $len32:tt $offset32:ident
            [$(#[$attr64:meta])*] $s64:ident $layout64:ident $len64:tt $offset64:ident
            [$([$(#[$method_attr:meta])*] $method:ident $self:ident $ret:ty $body:block)*]
        }
        [$last32:ident $({[$(#[$doc32:meta])*] $name32:ident $($member32:tt)*})*]
        $list64:tt
        [$({[$(#[$doc:meta])*] $name:ident $type:tt $access:ident})*]
    ) => {
        $crate::wire::field::pointer_width_pair!(@layout
            [$(#[$attr32])*] $s32 $layout32 $len32 $offset32
            [$last32 $({[$(#[$doc32])*] $name32 $($member32)*})*]
            [$([$(#[$method_attr])*] $method $self $ret $body)*]
        );
        $crate::wire::field::pointer_width_pair!(@layout
            [$(#[$attr64])*] $s64 $layout64 $len64 $offset64
            $list64
            [$([$(#[$method_attr])*] $method $self $ret $body)*]
        );

        $(#[$enum_attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub enum $enum {
            #[doc = concat!("The 32-bit layout, ", stringify!($len32), " bytes.")]
            Bits32($s32),
            #[doc = concat!("The 64-bit layout, ", stringify!($len64), " bytes.")]
            Bits64($s64),
        }

        impl $enum {
            /// Decodes the first bytes of `input` in the layout of `bitness` (any values) and
            /// returns the rest.
            ///
            /// # Errors
            /// [`CodecError::Truncated`](crate::wire::CodecError::Truncated) when `input` is shorter than the
            /// layout.
            pub fn parse(
                input: &[u8],
                bitness: $crate::wire::layout::Bitness,
            ) -> Result<(Self, &[u8]), $crate::wire::error::CodecError> {
                Ok(match bitness {
                    $crate::wire::layout::Bitness::Bits32 => $s32::parse(input).map(|(v, rest)| (Self::Bits32(v), rest))?,
                    $crate::wire::layout::Bitness::Bits64 => $s64::parse(input).map(|(v, rest)| (Self::Bits64(v), rest))?,
                })
            }

            /// Writes the value in its own layout to the start of `out` and returns the rest of
            /// `out`.
            ///
            /// # Errors
            /// [`CodecError::OutputTooSmall`](crate::wire::CodecError::OutputTooSmall) when `out` is shorter than
            /// the layout; nothing is written then.
            pub fn emit<'o>(&self, out: &'o mut [u8]) -> Result<&'o mut [u8], $crate::wire::error::CodecError> {
                match self {
                    Self::Bits32(value) => value.emit(out),
                    Self::Bits64(value) => value.emit(out),
                }
            }

            /// The bitness of this value's layout.
            pub const fn bitness(&self) -> $crate::wire::layout::Bitness {
                match self {
                    Self::Bits32(_) => $crate::wire::layout::Bitness::Bits32,
                    Self::Bits64(_) => $crate::wire::layout::Bitness::Bits64,
                }
            }

            /// The layout of this value.
            pub const fn layout(&self) -> $crate::wire::layout::Layout {
                match self {
                    Self::Bits32(_) => $s32::LAYOUT,
                    Self::Bits64(_) => $s64::LAYOUT,
                }
            }

            #[doc = concat!("The length of this value's layout: ", stringify!($len32), " or ", stringify!($len64), ".")]
            pub const fn byte_len(&self) -> usize {
                match self {
                    Self::Bits32(_) => $s32::LEN,
                    Self::Bits64(_) => $s64::LEN,
                }
            }

            /// The value in the layout of `bitness` with the members of `wide`, a value of the
            /// 64-bit layout: for the 32-bit layout, its pointers narrowed to 32 bits, the
            /// members only the 64-bit layout has left out and those only the 32-bit one has
            /// zero.
            ///
            /// # Errors
            /// [`CodecError::PointerTooWide`](crate::wire::CodecError::PointerTooWide) when a pointer does not
            /// fit in 32 bits.
            pub(crate) fn from_wide(
                bitness: $crate::wire::layout::Bitness,
                wide: $s64,
            ) -> Result<Self, $crate::wire::error::CodecError> {
                Ok(match bitness {
                    $crate::wire::layout::Bitness::Bits32 => Self::Bits32($s32 {
                        $($name32: $crate::wire::field::pointer_width_pair!(
                            @narrow $($member32)* wide.$name32 $s32
                        ),)*
                    }),
                    $crate::wire::layout::Bitness::Bits64 => Self::Bits64(wide),
                })
            }

            $($crate::wire::field::pointer_width_pair!(@access $access [$(#[$doc])*] $name $type);)*

            $(
                $(#[$method_attr])*
                pub fn $method(&self) -> $ret {
                    match self {
                        Self::Bits32(value) => value.$method(),
                        Self::Bits64(value) => value.$method(),
                    }
                }
            )*
        }

        impl From<$s32> for $enum {
            fn from(value: $s32) -> Self {
                Self::Bits32(value)
            }
        }

        impl From<$s64> for $enum {
            fn from(value: $s64) -> Self {
                Self::Bits64(value)
            }
        }
    };

    // One layout: its offset table, struct, codec and entry points.
    (@layout
        [$(#[$attr:meta])*] $struct:ident $layout:ident $len:tt $offset:ident
        [$last:ident $({
            [$(#[$doc:meta])*] $name:ident $prev:ident $type:tt $size:tt $at:tt $sdk:literal $narrow:ident
        })*]
        [$([$(#[$method_attr:meta])*] $method:ident $self:ident $ret:ty $body:block)*]
    ) => {
        #[doc = concat!("Where the members of [`", stringify!($struct), "`] lie: each starts where the one before ends.")]
        #[allow(non_upper_case_globals)]
        mod $offset {
            use $crate::wire::field::Field;

            /// Where the first member starts.
            pub(super) const START: Field<0, 0> = Field::at(0);
            $(pub(super) const $name: Field<{ $prev.end() }, $size> = Field::at($at);)*
            const _: () = $last.ends_at(super::$struct::LEN);
        }

        $(#[$attr])*
        #[doc = ""]
        #[doc = "| off | size | member | field |"]
        #[doc = "|---|---|---|---|"]
        $(#[doc = concat!(
            "| ", stringify!($at), " | ", stringify!($size), " | ", $sdk, " | [`",
            stringify!($name), "`](Self::", stringify!($name), ") |"
        )])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub struct $struct {
            $($(#[$doc])* pub $name: $type,)*
        }

        const _: () = assert!($struct::LEN == $len, "the length the layout table documents");

        impl $struct {
            #[doc = concat!("Bytes in this layout: ", stringify!($len), ".")]
            pub const LEN: usize = $crate::wire::layout::Layout::$layout.byte_len();
            /// The layout this type encodes.
            pub const LAYOUT: $crate::wire::layout::Layout = $crate::wire::layout::Layout::$layout;

            #[doc = concat!("Decodes any ", stringify!($len), " bytes; nothing is checked and nothing is lost.")]
            #[inline]
            pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
                let read = $crate::wire::field::Reader::new(bytes);
                Self {
                    $($name: read.get($offset::$name),)*
                }
            }

            /// Encodes the members into the `LEN` bytes `write` covers, setting every one of
            /// them (`to_bytes` and `emit` are built on it).
            #[inline]
            pub(crate) fn write(&self, write: &mut $crate::wire::field::Writer<'_, { Self::LEN }>) {
                $(write.put($offset::$name, &self.$name);)*
            }

            $($(#[$method_attr])* pub fn $method(&$self) -> $ret $body)*
        }

        $crate::wire::field::fixed_layout_entry_points!($struct, length_only);
    };

    // A member of the 32-bit layout made from the member of a 64-bit value (`from_wide`).
    (@narrow $prev:ident $type:tt $size:tt $at:tt $sdk:literal same $wide:ident.$name:ident $s32:ident) => {
        $wide.$name
    };
    (@narrow $prev:ident $type:tt $size:tt $at:tt $sdk:literal zero $wide:ident.$name:ident $s32:ident) => {
        <$type>::default()
    };
    (@narrow $prev:ident $type:tt $size:tt $at:tt $sdk:literal narrow $wide:ident.$name:ident $s32:ident) => {
        u32::try_from($wide.$name).map_err(|_| $crate::wire::error::CodecError::PointerTooWide {
            layout: $s32::LAYOUT,
            bitness: $crate::wire::layout::Bitness::Bits32,
            value: $wide.$name,
        })?
    };

    // The enum's accessor of a member both layouts have.
    (@access same [$(#[$doc:meta])*] $name:ident $type:tt) => {
        $(#[$doc])*
        pub fn $name(&self) -> $type {
            match self {
                Self::Bits32(value) => value.$name,
                Self::Bits64(value) => value.$name,
            }
        }
    };
    (@access widen [$(#[$doc:meta])*] $name:ident $type:tt) => {
        $(#[$doc])*
        pub fn $name(&self) -> u64 {
            match self {
                Self::Bits32(value) => u64::from(value.$name),
                Self::Bits64(value) => value.$name,
            }
        }
    };
}

pub(crate) use pointer_width_pair;
