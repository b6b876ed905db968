//! What a trace call hands the session and what it gets back: the event data after the header
//! (inline, or gathered from `MOF_FIELD`s) and the outcome of the call. The provider checks the
//! data against the header; the session writes it.

use crate::wire::codes::{WnodeFlags, MAX_MOF_FIELDS};
use crate::write::error::TraceError;

/// The event data that follows a header given to [`Provider::trace_event_instance`](crate::write::Provider::trace_event_instance) or
/// [`Provider::trace_event`](crate::write::Provider::trace_event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EventData<'a> {
    /// Data appended to the header: the header's `Size` is its length plus `bytes.len()`.
    Inline(&'a [u8]),
    /// `WNODE_FLAG_USE_MOF_PTR`: "an array of MOF_FIELD structures contains the event data
    /// appended to this structure. The number of elements in the array is limited to
    /// MAX_MOF_FIELDS." Each entry is the `Length` bytes its `DataPtr` points at, already
    /// resolved by the caller; the header's `Size` is its length plus 16 bytes per field. The
    /// fields are gathered, in order, into the event's data.
    MofFields(&'a [&'a [u8]]),
}

impl EventData<'_> {
    /// Bytes the data occupies in the written event; `None` if the sum overflows (the same
    /// long field given many times, say).
    #[inline(always)]
    pub(crate) fn written_len(&self) -> Option<usize> {
        match self {
            Self::Inline(bytes) => Some(bytes.len()),
            Self::MofFields(fields) => fields
                .iter()
                .try_fold(0usize, |sum, field| sum.checked_add(field.len())),
        }
    }

    /// The event's `Size` in a buffer, `written_header_len` plus the data, when the data passes
    /// [`check`](Self::check) against `Size` and `Flags` of the header it was given with
    /// (`header_len` bytes); `None` when it does not. MOF fields whose lengths add up to more
    /// than a `usize` holds give `usize::MAX` (the session refuses it as too large).
    ///
    /// For inline data the written size is `Size` plus what the written header adds, with no
    /// sum of the slice's length to check for overflow.
    #[inline(always)]
    pub(crate) fn event_len(
        &self,
        header_len: usize,
        written_header_len: usize,
        size: u16,
        flags: WnodeFlags,
    ) -> Option<usize> {
        let flag_set = flags.contains(WnodeFlags::USE_MOF_PTR);
        let size = usize::from(size);
        match self {
            Self::Inline(bytes)
                if !flag_set && size.checked_sub(header_len) == Some(bytes.len()) =>
            {
                Some(size.saturating_add(written_header_len.saturating_sub(header_len)))
            }
            Self::MofFields(fields)
                if flag_set
                    && fields.len() <= MAX_MOF_FIELDS
                    && size.checked_sub(header_len)
                        == fields
                            .len()
                            .checked_mul(crate::wire::records::mof_field::MofField::LEN) =>
            {
                Some(
                    self.written_len()
                        .and_then(|len| len.checked_add(written_header_len))
                        .unwrap_or(usize::MAX),
                )
            }
            _ => None,
        }
    }

    /// Checks the data against `Size` and `Flags` of the header it was given with.
    #[inline(always)]
    pub(crate) fn check(
        &self,
        header_len: usize,
        size: u16,
        flags: WnodeFlags,
    ) -> Result<(), TraceError> {
        let flag_set = flags.contains(WnodeFlags::USE_MOF_PTR);
        // Bytes the data adds to the header given to the provider: its length inline, or 16
        // bytes per `MOF_FIELD`.
        let input_len = match self {
            Self::Inline(_) if flag_set => return Err(TraceError::MofFlagMismatch { flag_set }),
            Self::MofFields(_) if !flag_set => {
                return Err(TraceError::MofFlagMismatch { flag_set })
            }
            Self::MofFields(fields) if fields.len() > MAX_MOF_FIELDS => {
                return Err(TraceError::TooManyMofFields {
                    count: fields.len(),
                })
            }
            Self::Inline(bytes) => bytes.len(),
            // At most `MAX_MOF_FIELDS` (16) fields, just checked.
            #[allow(clippy::arithmetic_side_effects)]
            Self::MofFields(fields) => {
                fields.len() * crate::wire::records::mof_field::MofField::LEN
            }
        };
        // A slice is at most `isize::MAX` bytes long, and a header 0x38 bytes: the sum fits.
        #[allow(clippy::arithmetic_side_effects)]
        let expected = header_len + input_len;
        if usize::from(size) != expected {
            return Err(TraceError::WrongSize {
                expected,
                found: size,
            });
        }
        Ok(())
    }
}

/// Event data as the write path takes it: the inline bytes (`&[u8]`) or the `MOF_FIELD`s
/// (`&[&[u8]]`), each its own type. A call whose data is inline passes the slice in two
/// registers, not an [`EventData`] in memory, and its write compiles no `MOF_FIELD` code (and
/// the other way round).
pub(crate) trait Payload<'a>: Copy {
    /// The data as an [`EventData`], whose variant is known where this is inlined.
    fn event_data(self) -> EventData<'a>;
}

impl<'a> Payload<'a> for &'a [u8] {
    #[inline(always)]
    fn event_data(self) -> EventData<'a> {
        EventData::Inline(self)
    }
}

impl<'a> Payload<'a> for &'a [&'a [u8]] {
    #[inline(always)]
    fn event_data(self) -> EventData<'a> {
        EventData::MofFields(self)
    }
}

/// The data of an event as the session writes it, at the start of the `out` bytes it has made
/// room for after the header (the data's length, which the caller has told the session, then
/// the padding to 8 bytes, which the session has zeroed): [`EventData`] is copied, a typed
/// payload lays its fields out in place. `None` when the data does not fit `out` as announced
/// (the session then counts the event lost; the callers size `out` from the data, so this is
/// not reached).
pub(crate) trait EventBytes {
    /// Writes the data into `out`.
    fn write_to(self, out: &mut [u8]) -> Option<()>;
}

impl EventBytes for EventData<'_> {
    #[inline(always)]
    fn write_to(self, out: &mut [u8]) -> Option<()> {
        write_data(out, self)
    }
}

/// What a successful trace call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Traced {
    /// The event was written to a session buffer.
    Written {
        /// Which buffer of the session's pool holds it (its slot, `0..BUFFER_COUNT`).
        slot: usize,
        /// Where the event starts, from the start of the buffer (its 0x48-byte header included).
        offset: usize,
        /// The event's `Size` in the buffer.
        size: u16,
    },
    /// The event's `Class.Level` is above the level the session was enabled at, so it was not
    /// written. This is not an error: the session asked for fewer events.
    FilteredOut,
}

/// Copies the event data to the start of `out` (the MOF fields one after another);
/// `None` if `out` is too short for it.
#[inline(always)]
fn write_data(out: &mut [u8], data: EventData<'_>) -> Option<()> {
    match data {
        EventData::Inline(bytes) => {
            copy_to_start(out, bytes)?;
        }
        EventData::MofFields(fields) => {
            let mut rest = out;
            for field in fields {
                rest = copy_to_start(rest, field)?;
            }
        }
    }
    Some(())
}

/// Copies `from` to the start of `to` and returns the rest of `to`; `None` if `to` is too
/// short.
///
/// Sixteen bytes at a time, each a `u128` move (four word loads and four word stores, no call
/// and no per-byte check), then the last 0 to 15 bytes one by one: about 0.8 instructions a
/// byte at opt-level "s" and 0.9 at "z" (1.1 eight bytes at a time). `copy_from_slice` would
/// call `memcpy`, which costs some 45 instructions before it copies anything, about 730 bytes
/// of code and 92 bytes of stack, and at "z" keeps a length check with a panic path.
#[inline(always)]
fn copy_to_start<'to>(to: &'to mut [u8], from: &[u8]) -> Option<&'to mut [u8]> {
    let (target, rest) = to.split_at_mut_checked(from.len())?;
    let mut to_chunks = target.chunks_exact_mut(16);
    let mut from_chunks = from.chunks_exact(16);
    for (to, from) in (&mut to_chunks).zip(&mut from_chunks) {
        if let (Ok(to), Ok(from)) = (<&mut [u8; 16]>::try_from(to), <&[u8; 16]>::try_from(from)) {
            *to = u128::from_ne_bytes(*from).to_ne_bytes();
        }
    }
    for (to, from) in to_chunks
        .into_remainder()
        .iter_mut()
        .zip(from_chunks.remainder())
    {
        *to = *from;
    }
    Some(rest)
}
