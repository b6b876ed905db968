//! Walking an event's data with its schema: the values in order, as a stream of items.
//!
//! The decoder yields one [`Item`] per value, and an item at the start and end of every array
//! and structure, so that arrays of structures and nested structures come out in order
//! without anything being collected: a sink writes each item as it comes (JSON opens and
//! closes a list or an object). Nothing allocates; the state is a fixed stack of
//! [`MAX_STRUCT_DEPTH`] levels.
//!
//! Rules it keeps (PAYLOADS.md §2, §4, §5):
//! - values lie end to end, without alignment; a pointer or `SIZE_T` takes the event's
//!   pointer size;
//! - a count or length read from the data or taken from an earlier field is checked against
//!   the bytes left before anything is sized from it;
//! - a string scan stops at the end of the data;
//! - the first value that does not fit ends the walk with a [`PayloadError`] that names the
//!   field, the element and the offset: the items before it stand;
//! - bytes left after the last field are not an error: [`PayloadDecoder::rest`] gives them.

use crate::invariant::usize_from_u32;
use crate::payload::schema::{
    subtree_end, Count, FieldSchema, Length, SchemaError, MAX_STRUCT_DEPTH,
};
use crate::payload::types::InType;
use crate::payload::value::Value;
use crate::wire::{Bitness, Guid, Sid, SystemTime, Utf16Str};

/// What an [`Item`] is.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum ItemKind<'d> {
    /// One value of the field (the field's only one, or an element of its array).
    Value(Value<'d>),
    /// The field is an array of `len` elements; its elements follow, then
    /// [`ArrayEnd`](Self::ArrayEnd).
    ArrayStart {
        /// How many elements.
        len: u32,
    },
    /// The end of the field's array.
    ArrayEnd,
    /// The field is a structure (or an element of an array of them); its members follow,
    /// then [`StructEnd`](Self::StructEnd).
    StructStart,
    /// The end of the structure.
    StructEnd,
}

/// One step of the walk over an event's data.
#[derive(Debug)]
#[non_exhaustive]
pub struct Item<'s, 'd, N> {
    /// The field it belongs to.
    pub field: &'s FieldSchema<N>,
    /// The field's index in the schema.
    pub index: u16,
    /// Which element of the field's array it is, when the field is an array.
    pub element: Option<u32>,
    /// Where its bytes start in the event's data.
    pub offset: usize,
    /// Its bytes in the data: the value's (with any count or NUL that belongs to it), an
    /// array's `u16` count when the data holds it, nothing for the other markers. The bytes of
    /// all items, in order, are the data up to [`PayloadDecoder::rest`].
    pub bytes: &'d [u8],
    /// What it is.
    pub kind: ItemKind<'d>,
}

// Not derived: `N` need not be `Clone` for a reference to it to be copied.
impl<N> Clone for Item<'_, '_, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<N> Copy for Item<'_, '_, N> {}

/// Why the walk stopped before the end of the schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum PayloadErrorKind {
    /// The value needs more bytes than are left.
    TooShort {
        /// Bytes it needs (its count included).
        needed: u64,
        /// Bytes left in the data.
        left: usize,
    },
    /// A NUL-terminated string has no NUL before the end of the data.
    Unterminated {
        /// Bytes left in the data where the string starts.
        left: usize,
    },
    /// An array's elements, each of a fixed size, cannot all fit in the bytes left.
    CountTooLarge {
        /// The count.
        count: u64,
        /// The size of one element.
        element_size: u8,
        /// Bytes left in the data.
        left: usize,
    },
    /// A count or length names a field whose value has not been decoded before this one.
    MissingReference {
        /// The index of the field it names.
        names: u16,
    },
    /// A count or length is larger than 2^32 - 1.
    ReferenceTooLarge {
        /// The index of the field it names.
        names: u16,
        /// Its value.
        value: u64,
    },
    /// A binary field has no length: neither the type, the schema nor the data give one.
    NeedsLength,
    /// A type this decoder does not know how to size.
    UnknownInType(InType),
    /// A SID with more than 15 sub-authorities, which no SID has (`SID_MAX_SUB_AUTHORITIES`).
    SidTooLong {
        /// Its `SubAuthorityCount`.
        sub_authorities: u8,
    },
    /// The schema contradicts itself (see [`check_fields`](crate::payload::check_fields)).
    Schema(SchemaError),
    /// The walk yielded more items than a bounded walk allows (arrays of values that take no
    /// bytes): at most 65,536 items, or 8 per byte of data when that is more.
    ItemLimit,
}

/// Where and why the walk over an event's data stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct PayloadError {
    /// The index of the field that could not be decoded.
    pub field: u16,
    /// The element of its array, when it is an array.
    pub element: Option<u32>,
    /// Where in the event's data it starts.
    pub offset: usize,
    /// What went wrong.
    pub kind: PayloadErrorKind,
}

impl PayloadError {
    /// The error with the field's name from `fields`, for display.
    pub const fn named<'s, N>(&self, fields: &'s [FieldSchema<N>]) -> NamedPayloadError<'s, N> {
        NamedPayloadError {
            error: *self,
            fields,
        }
    }
}

impl core::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "field #{}", self.field)?;
        self.fmt_rest(f)
    }
}

impl PayloadError {
    fn fmt_rest(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if let Some(element) = self.element {
            write!(f, " element {element}")?;
        }
        write!(f, " at data offset {}: ", self.offset)?;
        match self.kind {
            PayloadErrorKind::TooShort { needed, left } => {
                write!(f, "needs {needed} bytes, {left} left")
            }
            PayloadErrorKind::Unterminated { left } => {
                write!(f, "no NUL ends the string in the {left} bytes left")
            }
            PayloadErrorKind::CountTooLarge {
                count,
                element_size,
                left,
            } => write!(
                f,
                "{count} elements of {element_size} bytes do not fit in the {left} bytes left"
            ),
            PayloadErrorKind::MissingReference { names } => write!(
                f,
                "its count or length is field #{names}, which has no value before it"
            ),
            PayloadErrorKind::ReferenceTooLarge { names, value } => write!(
                f,
                "its count or length is field #{names}, whose value {value} exceeds 2^32 - 1"
            ),
            PayloadErrorKind::NeedsLength => {
                f.write_str("binary data with no length in its type, schema or data")
            }
            PayloadErrorKind::UnknownInType(in_type) => {
                write!(f, "in-type {} is not one this decoder can size", in_type.0)
            }
            PayloadErrorKind::SidTooLong { sub_authorities } => write!(
                f,
                "a SID of {sub_authorities} sub-authorities, more than the 15 a SID can have"
            ),
            PayloadErrorKind::Schema(error) => write!(f, "the schema: {error}"),
            PayloadErrorKind::ItemLimit => f.write_str("more items than a bounded walk allows"),
        }
    }
}

impl core::error::Error for PayloadError {}

/// A [`PayloadError`] shown with the name of its field.
#[derive(Debug)]
pub struct NamedPayloadError<'s, N> {
    error: PayloadError,
    fields: &'s [FieldSchema<N>],
}

impl<N: core::fmt::Display> core::fmt::Display for NamedPayloadError<'_, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.fields.get(usize::from(self.error.field)) {
            Some(field) => write!(f, "field `{}`", field.name)?,
            None => write!(f, "field #{}", self.error.field)?,
        }
        self.error.fmt_rest(f)
    }
}

/// How many recent integer fields are kept (where their values start) for counts and
/// lengths taken from fields.
const RECENT: usize = 16;

/// Frames: at most an array, a structure and its members per level of nesting (the top level
/// needs none: [`PayloadDecoder`] keeps its place in `next`).
const FRAMES: usize = 3 * MAX_STRUCT_DEPTH + 2;

#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A structure's members from `next` on; `left` of them still to decode.
    Fields { next: u32, left: u16 },
    /// The elements of the array of field `field`.
    Array { field: u32, len: u32, next: u32 },
    /// A structure whose members are being decoded; ends once its `Fields` frame is done.
    Struct { field: u32, element: Option<u32> },
}

/// A fixed stack set up on its first push: a walk that needs none (most events' fields are
/// neither arrays, structures nor counts) never writes its storage.
#[derive(Debug)]
struct Lazy<T, const N: usize>(Option<heapless::Vec<T, N>>);

impl<T, const N: usize> Lazy<T, N> {
    const fn new() -> Self {
        Self(None)
    }

    fn as_slice(&self) -> &[T] {
        self.0.as_deref().unwrap_or_default()
    }

    fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    fn last(&self) -> Option<&T> {
        self.as_slice().last()
    }

    fn last_mut(&mut self) -> Option<&mut T> {
        self.0.as_mut()?.last_mut()
    }

    fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        self.0.as_mut()?.get_mut(index)
    }

    fn pop(&mut self) -> Option<T> {
        self.0.as_mut()?.pop()
    }

    fn clear(&mut self) {
        if let Some(stack) = self.0.as_mut() {
            stack.clear();
        }
    }

    fn push(&mut self, item: T) -> Result<(), T> {
        self.0.get_or_insert_with(heapless::Vec::new).push(item)
    }
}

/// The walk over one event's data with its schema: an iterator of [`Item`]s, ending after the
/// last field or at the first error.
///
/// ```
/// use etw_classic::payload::{FieldSchema, InType, ItemKind, PayloadDecoder, Value};
/// use etw_classic::Bitness;
///
/// let fields = [
///     FieldSchema::new("Pid", InType::UINT32),
///     FieldSchema::new("Name", InType::ANSI_STRING),
/// ];
/// let data = [0x2a, 0, 0, 0, b'e', b't', b'w', 0, 0xff];
/// let mut decoder = PayloadDecoder::new(&fields, &data, Bitness::Bits64);
/// let items: Vec<_> = decoder.by_ref().collect::<Result<_, _>>()?;
/// assert_eq!(items[0].kind, ItemKind::Value(Value::U32(42)));
/// assert_eq!(items[1].kind, ItemKind::Value(Value::Ansi(b"etw")));
/// assert_eq!(decoder.rest(), &[0xff]);
/// # Ok::<(), etw_classic::payload::PayloadError>(())
/// ```
#[derive(Debug)]
pub struct PayloadDecoder<'s, 'd, N> {
    fields: &'s [FieldSchema<N>],
    data: &'d [u8],
    at: usize,
    /// The next top-level field; `usize::MAX` once the walk has failed.
    next: usize,
    pointer_size: u8,
    /// The arrays and structures open, innermost last; empty at the top level.
    frames: Lazy<Frame, FRAMES>,
    /// The latest values of integer fields outside arrays: (field index, value), oldest
    /// overwritten first.
    recent: Lazy<(u16, usize), RECENT>,
    recent_next: usize,
    /// The fields before this index are kept in `recent`: those at or after the last field
    /// whose count or length names a field can never be named before they are read (most
    /// events' fields name none, and keep nothing).
    remember_before: usize,
    /// Array elements still allowed (see [`PayloadErrorKind::ItemLimit`]).
    items_left: usize,
    failed: bool,
}

impl<'s, 'd, N> PayloadDecoder<'s, 'd, N> {
    /// The walk over `data` with `fields`, pointers and `SIZE_T`s being as wide as `bitness`
    /// says (the event header's 64-bit flag, or the logfile header's `PointerSize`).
    pub fn new(fields: &'s [FieldSchema<N>], data: &'d [u8], bitness: Bitness) -> Self {
        Self::with_last_reference(fields, data, bitness, last_reference(fields))
    }

    /// [`new`](Self::new), with [`last_reference`]`(fields)` worked out beforehand, once for a
    /// schema rather than for each event. The walk keeps where the integers before that field
    /// start, for the counts and lengths that name them: a larger value decodes the same,
    /// keeping more; a smaller one loses the integers a count or length after it names, which
    /// then fails with [`PayloadErrorKind::MissingReference`].
    pub fn with_last_reference(
        fields: &'s [FieldSchema<N>],
        data: &'d [u8],
        bitness: Bitness,
        last_reference: usize,
    ) -> Self {
        Self {
            fields,
            data,
            at: 0,
            next: 0,
            pointer_size: pointer_size(bitness),
            frames: Lazy::new(),
            recent: Lazy::new(),
            recent_next: 0,
            remember_before: last_reference,
            items_left: data.len().saturating_mul(8).max(1 << 16),
            failed: false,
        }
    }

    /// Where the walk stands in the data: after the last item yielded.
    pub const fn offset(&self) -> usize {
        self.at
    }

    /// The bytes not decoded yet: once the walk has ended without an error, what the data
    /// holds after its last field.
    pub fn rest(&self) -> &'d [u8] {
        self.data.get(self.at..).unwrap_or_default()
    }

    /// Whether the walk stopped at an error.
    pub const fn failed(&self) -> bool {
        self.failed
    }

    /// Every item left, in the order [`next`](Iterator::next) gives them, each handed to
    /// `visit` where it is made: the top level's fields of one value (most events' every
    /// field) go from the data to `visit` without passing through an `Option`, which makes
    /// this the faster way to walk an event (`for_each` takes it too). Unlike `for_each` it
    /// borrows the decoder, so [`rest`](Self::rest) and [`failed`](Self::failed) can be
    /// asked afterwards.
    #[inline]
    pub fn for_each_item(&mut self, mut visit: impl FnMut(Result<Item<'s, 'd, N>, PayloadError>)) {
        self.fold_items((), |(), item| visit(item));
    }

    /// [`for_each_item`](Self::for_each_item) with an accumulator, as `fold` has one.
    #[inline]
    fn fold_items<B>(
        &mut self,
        init: B,
        mut f: impl FnMut(B, Result<Item<'s, 'd, N>, PayloadError>) -> B,
    ) -> B {
        let mut acc = init;
        loop {
            if self.frames.is_empty() {
                // The top level's fields of one value (most events' every field), with the
                // offset and the next field kept in locals rather than in the decoder: a
                // fixed-size value is read in place; any other goes through `value_item`,
                // which moves `self.at` (and, on an error, ends the walk).
                let (data, fields): (&'d [u8], &'s [FieldSchema<N>]) = (self.data, self.fields);
                let pointer_size = self.pointer_size;
                let (mut at, mut index) = (self.at, self.next);
                loop {
                    let Some(field) = fields.get(index) else {
                        (self.at, self.next) = (at, index);
                        return acc;
                    };
                    if field.count != Count::One {
                        // An array of values is opened here and its start handed on from
                        // here, built where it is handed on: returned from `step`, through
                        // memory, the start's copy stalled on the stores just made.
                        // Arrays of structures are `step`'s.
                        if !field.is_struct() {
                            (self.at, self.next) = (at, index.saturating_add(1));
                            let start = self
                                .open_array(index, field)
                                .and_then(|(len, start)| self.array_start(index, len, start));
                            acc = f(acc, start);
                            (at, index) = (self.at, self.next);
                        }
                        break;
                    }
                    // A structure has no fixed size: it is never read here.
                    if let Some((value, bytes)) = fixed_value(field.in_type, data, at, pointer_size)
                    {
                        self.remember(index, field, at);
                        let item = item_of_value(field, index, None, at, bytes, value);
                        // Below `fields.len()`, so no overflow.
                        (at, index) = (past(at, bytes), index.wrapping_add(1));
                        acc = f(acc, Ok(item));
                        continue;
                    }
                    if field.is_struct() {
                        break;
                    }
                    (self.at, self.next) = (at, index.saturating_add(1));
                    acc = f(acc, self.variable_value_item(index, None, field));
                    (at, index) = (self.at, self.next);
                }
                (self.at, self.next) = (at, index);
            }
            // The elements of an array of values (a stack's frames, a list of ids), each
            // handed on here too; its end and any limit reached are `step`'s.
            if let Some(&Frame::Array { field, len, next }) = self.frames.last() {
                let field = usize_from_u32(field);
                let fields: &'s [FieldSchema<N>] = self.fields;
                if let Some(values) = fields.get(field).filter(|field| !field.is_struct()) {
                    let mut element = next;
                    // Fixed-size values are read in place with the offset in a local, the
                    // item limit taken for the run at once; the first that does not fit (or
                    // a type of no fixed size) is left to the loop after, which reports it.
                    let (data, pointer_size) = (self.data, self.pointer_size);
                    let allowed = u32::try_from(self.items_left).unwrap_or(u32::MAX);
                    let run_end = element.saturating_add(len.saturating_sub(element).min(allowed));
                    let mut at = self.at;
                    // The commonest element types (a map's offsets, a stack's frames), the type
                    // matched once for the run rather than for each element.
                    let run = ElementRun {
                        values,
                        field,
                        data,
                        end: run_end,
                    };
                    acc = match (values.in_type, pointer_size) {
                        (InType::UINT32, _) => {
                            run.fold(&mut at, &mut element, acc, &mut f, |raw| {
                                Value::U32(u32::from_le_bytes(raw))
                            })
                        }
                        (InType::UINT64, _) => {
                            run.fold(&mut at, &mut element, acc, &mut f, |raw| {
                                Value::U64(u64::from_le_bytes(raw))
                            })
                        }
                        (InType::POINTER | InType::SIZET, 8) => {
                            run.fold(&mut at, &mut element, acc, &mut f, |raw| {
                                Value::Pointer(u64::from_le_bytes(raw))
                            })
                        }
                        _ => acc,
                    };
                    while element < run_end {
                        let Some((value, bytes)) =
                            fixed_value(values.in_type, data, at, pointer_size)
                        else {
                            break;
                        };
                        let item = item_of_value(values, field, Some(element), at, bytes, value);
                        // Below `run_end`, so no overflow.
                        (at, element) = (past(at, bytes), element.saturating_add(1));
                        acc = f(acc, Ok(item));
                    }
                    self.at = at;
                    let taken = usize_from_u32(element.saturating_sub(next));
                    self.items_left = self.items_left.saturating_sub(taken);
                    while element < len && self.items_left > 0 && !self.failed {
                        self.items_left = self.items_left.saturating_sub(1);
                        let item = self.variable_value_item(field, Some(element), values);
                        // Below `len`, so no overflow.
                        element = element.saturating_add(1);
                        acc = f(acc, item);
                    }
                    // An error has closed every frame; otherwise the array is still on top,
                    // and once its every element is read, it ends here too (as `step_nested`
                    // ends it, but built where it is handed on).
                    if let Some(Frame::Array { next, .. }) = self.frames.last_mut() {
                        *next = element;
                        if element >= len {
                            if let Some(end) = self.close_array(field) {
                                acc = f(acc, Ok(end));
                            }
                            continue;
                        }
                    }
                }
            }
            match self.step() {
                Some(item) => acc = f(acc, item),
                None => return acc,
            }
        }
    }

    #[inline(always)]
    fn left(&self) -> usize {
        self.data.len().saturating_sub(self.at)
    }

    fn error(
        &mut self,
        field: usize,
        element: Option<u32>,
        kind: PayloadErrorKind,
    ) -> PayloadError {
        self.failed = true;
        self.frames.clear();
        self.next = usize::MAX;
        PayloadError {
            field: u16::try_from(field).unwrap_or(u16::MAX),
            element,
            offset: self.at,
            kind,
        }
    }

    /// Keeps where `field`, at `index`, starts in the data when it is an integer a later count
    /// or length may name (the value is read again then): one before `remember_before`,
    /// tested first (the cheaper test, and false for most events' every field).
    #[inline(always)]
    fn remember(&mut self, index: usize, field: &FieldSchema<N>, start: usize) {
        if index >= self.remember_before || !field.in_type.is_integer() {
            return;
        }
        let Ok(field) = u16::try_from(index) else {
            return;
        };
        // Filled in order first; once full, the oldest (at `recent_next`) is overwritten.
        if let Err(entry) = self.recent.push((field, start)) {
            if let Some(slot) = self.recent.get_mut(self.recent_next) {
                *slot = entry;
            }
            self.recent_next = self.recent_next.wrapping_add(1) & (RECENT - 1);
        }
    }

    /// The latest value of field `names`, as a count or length.
    fn reference(&mut self, names: u16) -> Result<u32, PayloadErrorKind> {
        // Newest first: the slots before `recent_next`, then those from the end back to it
        // (all of them from the end while the slots are not yet full, `recent_next` being 0).
        let recent: &[(u16, usize)] = self.recent.as_slice();
        let (latest, wrapped) = recent
            .split_at_checked(self.recent_next)
            .unwrap_or((recent, &[]));
        let found = latest
            .iter()
            .rev()
            .chain(wrapped.iter().rev())
            .find(|(field, _)| *field == names)
            .map(|&(_, start)| start);
        let fields: &'s [FieldSchema<N>] = self.fields;
        let (Some(start), Some(field)) = (found, fields.get(usize::from(names))) else {
            return Err(PayloadErrorKind::MissingReference { names });
        };
        // Read again where it was read before, so it reads the same.
        let at = core::mem::replace(&mut self.at, start);
        let value = self.value(field).ok().and_then(|value| value.as_u64());
        self.at = at;
        let value = value.ok_or(PayloadErrorKind::MissingReference { names })?;
        u32::try_from(value).map_err(|_| PayloadErrorKind::ReferenceTooLarge { names, value })
    }

    /// Takes `len` bytes at the current offset.
    #[inline(always)]
    fn take(&mut self, len: u64) -> Result<(&'d [u8], usize), PayloadErrorKind> {
        let left = self.left();
        let too_short = PayloadErrorKind::TooShort { needed: len, left };
        let len = usize::try_from(len).map_err(|_| too_short)?;
        let start = self.at;
        let end = start.checked_add(len).ok_or(too_short)?;
        let bytes = self.data.get(start..end).ok_or(too_short)?;
        self.at = end;
        Ok((bytes, start))
    }

    fn item(
        &self,
        index: usize,
        element: Option<u32>,
        offset: usize,
        kind: ItemKind<'d>,
    ) -> Option<Item<'s, 'd, N>> {
        let fields: &'s [FieldSchema<N>] = self.fields;
        Some(Item {
            field: fields.get(index)?,
            index: u16::try_from(index).ok()?,
            element,
            offset,
            bytes: self.data.get(offset..self.at).unwrap_or_default(),
            kind,
        })
    }

    /// The next item: at the top level, a field of one value is decoded at once (the common
    /// case, with nothing pushed); an array or a structure opens frames, walked by
    /// [`step_nested`](Self::step_nested) until they close.
    #[inline]
    fn step(&mut self) -> Option<Result<Item<'s, 'd, N>, PayloadError>> {
        if !self.frames.is_empty() {
            if let Some(item) = self.step_nested() {
                return Some(item);
            }
        }
        let index = self.next;
        let fields: &'s [FieldSchema<N>] = self.fields;
        // The top level ends with the schema (or at the first error, `next` being `usize::MAX`).
        let field = fields.get(index)?;
        if !field.is_struct() && field.count == Count::One {
            self.next = index.saturating_add(1);
            return Some(self.value_item(index, None, field));
        }
        let Some(after) = self.after(index) else {
            return Some(Err(self.members_past_end(index, field.members)));
        };
        self.next = after;
        Some(self.begin_field(index))
    }

    /// The next item inside the open arrays and structures; `None` once every frame has
    /// closed.
    #[inline(never)]
    fn step_nested(&mut self) -> Option<Result<Item<'s, 'd, N>, PayloadError>> {
        loop {
            let top = self.frames.last_mut()?;
            match top {
                Frame::Fields { next, left } => {
                    let index = usize_from_u32(*next);
                    if *left == 0 {
                        self.frames.pop();
                        continue;
                    }
                    *left = left.saturating_sub(1);
                    let fields: &'s [FieldSchema<N>] = self.fields;
                    let Some(field) = fields.get(index) else {
                        // A structure's members cannot run past the schema: `after` checked
                        // that before its frame was pushed.
                        self.frames.pop();
                        continue;
                    };
                    if !field.is_struct() && field.count == Count::One {
                        // Below the field count, which `frame_index` held to a `u32`.
                        *next = next.saturating_add(1);
                        return Some(self.value_item(index, None, field));
                    }
                    let Some(after) = self.after(index) else {
                        return Some(Err(self.members_past_end(index, field.members)));
                    };
                    let Ok(after) = u32::try_from(after) else {
                        return Some(Err(self.too_many_fields(after, None)));
                    };
                    if let Some(Frame::Fields { next, .. }) = self.frames.last_mut() {
                        *next = after;
                    }
                    return Some(self.begin_field(index));
                }
                Frame::Struct { field, element } => {
                    let (field, element) = (usize_from_u32(*field), *element);
                    self.frames.pop();
                    let at = self.at;
                    return self.item(field, element, at, ItemKind::StructEnd).map(Ok);
                }
                Frame::Array { field, len, next } => {
                    let field = usize_from_u32(*field);
                    if *next >= *len {
                        return self.close_array(field).map(Ok);
                    }
                    let element = *next;
                    *next = next.saturating_add(1);
                    if self.items_left == 0 {
                        let kind = PayloadErrorKind::ItemLimit;
                        return Some(Err(self.error(field, Some(element), kind)));
                    }
                    self.items_left = self.items_left.saturating_sub(1);
                    return Some(self.element(field, Some(element)));
                }
            }
        }
    }

    /// Closes the array on top of the frames, the field at `index` whose every element has
    /// been read: the item that ends it, where the walk stands.
    #[inline(always)]
    fn close_array(&mut self, index: usize) -> Option<Item<'s, 'd, N>> {
        self.frames.pop();
        let at = self.at;
        self.item(index, None, at, ItemKind::ArrayEnd)
    }

    /// The index after the field at `index` and its members.
    fn after(&self, index: usize) -> Option<usize> {
        let field = self.fields.get(index)?;
        if field.is_struct() && field.members > 0 {
            subtree_end(self.fields, index)
        } else {
            index.checked_add(1)
        }
    }

    fn push(
        &mut self,
        index: usize,
        element: Option<u32>,
        frame: Frame,
    ) -> Result<(), PayloadError> {
        if self.frames.push(frame).is_err() {
            let kind = PayloadErrorKind::Schema(SchemaError::TooDeep {
                field: u16::try_from(index).unwrap_or(u16::MAX),
            });
            return Err(self.error(index, element, kind));
        }
        Ok(())
    }

    /// The structure at `index` claims more members than the schema has after it.
    #[cold]
    fn members_past_end(&mut self, index: usize, members: u16) -> PayloadError {
        let kind = PayloadErrorKind::Schema(SchemaError::MembersPastEnd {
            field: u16::try_from(index).unwrap_or(u16::MAX),
            members,
        });
        self.error(index, None, kind)
    }

    /// A field index as a frame keeps it.
    fn frame_index(&mut self, index: usize, element: Option<u32>) -> Result<u32, PayloadError> {
        u32::try_from(index).map_err(|_| self.too_many_fields(index, element))
    }

    #[cold]
    fn too_many_fields(&mut self, index: usize, element: Option<u32>) -> PayloadError {
        let kind = PayloadErrorKind::Schema(SchemaError::TooManyFields { count: index });
        self.error(index, element, kind)
    }

    /// The first item of the field at `index`: its value, or the start of its array or
    /// structure.
    fn begin_field(&mut self, index: usize) -> Result<Item<'s, 'd, N>, PayloadError> {
        let fields: &'s [FieldSchema<N>] = self.fields;
        let Some(field) = fields.get(index) else {
            let kind = PayloadErrorKind::Schema(SchemaError::TooManyFields { count: index });
            return Err(self.error(index, None, kind));
        };
        if field.count == Count::One {
            return self.element(index, None);
        }
        let (len, start) = self.open_array(index, field)?;
        self.array_start(index, len, start)
    }

    /// Opens the array that is the field at `index` (`field`, whose count is not
    /// [`Count::One`]): its length read, checked against the bytes left when its elements
    /// have a fixed size, and its frame pushed. Returns the length and where the field
    /// starts (its count, for a prefixed array).
    fn open_array(
        &mut self,
        index: usize,
        field: &FieldSchema<N>,
    ) -> Result<(u32, usize), PayloadError> {
        let start = self.at;
        let len = match field.count {
            // Not asked for (one value is no array), and an array of one if it were.
            Count::One => Ok(1),
            Count::Fixed(len) => Ok(u32::from(len)),
            Count::FromField(names) => self.reference(names),
            Count::Prefixed => self
                .take(2)
                .map(|(bytes, _)| u32::from(u16::from_le_bytes([byte(bytes, 0), byte(bytes, 1)]))),
        };
        let element_size = field.in_type.fixed_size(self.pointer_size);
        let is_struct = field.is_struct();
        let len = match len {
            Ok(len) => len,
            Err(kind) => {
                self.at = start;
                return Err(self.error(index, None, kind));
            }
        };
        if let (Some(size), false) = (element_size, is_struct) {
            let needed = u64::from(len).saturating_mul(u64::from(size));
            if needed > u64::try_from(self.left()).unwrap_or(u64::MAX) {
                let kind = PayloadErrorKind::CountTooLarge {
                    count: u64::from(len),
                    element_size: size,
                    left: self.left(),
                };
                // The error's offset is where the field starts, its count included.
                self.at = start;
                return Err(self.error(index, None, kind));
            }
        }
        let frame_field = self.frame_index(index, None)?;
        self.push(
            index,
            None,
            Frame::Array {
                field: frame_field,
                len,
                next: 0,
            },
        )?;
        Ok((len, start))
    }

    /// The item that starts the array at `index`, of `len` elements, whose field starts at
    /// `start` (its bytes are its count, for a prefixed array).
    #[inline(always)]
    fn array_start(
        &mut self,
        index: usize,
        len: u32,
        start: usize,
    ) -> Result<Item<'s, 'd, N>, PayloadError> {
        self.item(index, None, start, ItemKind::ArrayStart { len })
            .ok_or_else(|| self.error(index, None, PayloadErrorKind::ItemLimit))
    }

    /// One value of the field at `index`, or the start of one structure.
    fn element(
        &mut self,
        index: usize,
        element: Option<u32>,
    ) -> Result<Item<'s, 'd, N>, PayloadError> {
        let fields: &'s [FieldSchema<N>] = self.fields;
        let Some(field) = fields.get(index) else {
            let kind = PayloadErrorKind::Schema(SchemaError::TooManyFields { count: index });
            return Err(self.error(index, element, kind));
        };
        let start = self.at;
        if field.is_struct() {
            let structure = self.frame_index(index, element)?;
            self.push(
                index,
                element,
                Frame::Struct {
                    field: structure,
                    element,
                },
            )?;
            let members = Frame::Fields {
                next: self.frame_index(index.saturating_add(1), element)?,
                left: field.members,
            };
            self.push(index, element, members)?;
            return self
                .item(index, element, start, ItemKind::StructStart)
                .ok_or_else(|| self.error(index, element, PayloadErrorKind::ItemLimit));
        }
        self.value_item(index, element, field)
    }

    /// One value of the field at `index` (not a structure), moving past it.
    #[inline(always)]
    fn value_item(
        &mut self,
        index: usize,
        element: Option<u32>,
        field: &'s FieldSchema<N>,
    ) -> Result<Item<'s, 'd, N>, PayloadError> {
        self.item_of::<true>(index, element, field)
    }

    /// [`value_item`](Self::value_item) where [`fixed_value`] has just found no value:
    /// [`variable_value`](Self::variable_value), rather than the dispatch on the in-type
    /// again.
    #[inline(always)]
    fn variable_value_item(
        &mut self,
        index: usize,
        element: Option<u32>,
        field: &'s FieldSchema<N>,
    ) -> Result<Item<'s, 'd, N>, PayloadError> {
        self.item_of::<false>(index, element, field)
    }

    /// The item of the value of the field at `index`, moving past it: read by
    /// [`value`](Self::value) when `FIXED_FIRST`, else by
    /// [`variable_value`](Self::variable_value).
    #[inline(always)]
    fn item_of<const FIXED_FIRST: bool>(
        &mut self,
        index: usize,
        element: Option<u32>,
        field: &'s FieldSchema<N>,
    ) -> Result<Item<'s, 'd, N>, PayloadError> {
        let start = self.at;
        let value = if FIXED_FIRST {
            self.value(field)
        } else {
            self.variable_value(field)
        };
        match value {
            Ok(value) => {
                if element.is_none() {
                    self.remember(index, field, start);
                }
                let bytes = self.data.get(start..self.at).unwrap_or_default();
                Ok(item_of_value(field, index, element, start, bytes, value))
            }
            Err(kind) => {
                // The error's offset is where the value starts, not where reading it stopped.
                self.at = start;
                Err(self.error(index, element, kind))
            }
        }
    }

    /// How many units (characters or bytes) a string or binary value has, when the field
    /// says: `None` for the type's natural length.
    fn units(&mut self, length: Length) -> Result<Option<u32>, PayloadErrorKind> {
        match length {
            Length::Natural => Ok(None),
            Length::Fixed(units) => Ok(Some(u32::from(units))),
            Length::FromField(names) => self.reference(names).map(Some),
            Length::Prefixed => Err(PayloadErrorKind::NeedsLength),
        }
    }

    /// A `u16` byte count (little-endian unless `big_endian`), then that many bytes.
    fn counted16(&mut self, big_endian: bool) -> Result<&'d [u8], PayloadErrorKind> {
        let (count, _) = self.take(2)?;
        let pair = [byte(count, 0), byte(count, 1)];
        let len = if big_endian {
            u16::from_be_bytes(pair)
        } else {
            u16::from_le_bytes(pair)
        };
        self.take(u64::from(len)).map(|(bytes, _)| bytes)
    }

    /// The bytes of a value whose length the field gives in bytes, from the data before it,
    /// or from the schema.
    fn sized_bytes(
        &mut self,
        field: &FieldSchema<N>,
        unit: u64,
    ) -> Result<Option<&'d [u8]>, PayloadErrorKind> {
        if field.length == Length::Prefixed {
            return self.counted16(false).map(Some);
        }
        match self.units(field.length)? {
            None => Ok(None),
            Some(units) => {
                let len = u64::from(units).saturating_mul(unit);
                self.take(len).map(|(bytes, _)| Some(bytes))
            }
        }
    }

    /// `LEN` bytes at the current offset, moving past them.
    #[inline(always)]
    fn fixed<const LEN: usize>(&mut self) -> Result<[u8; LEN], PayloadErrorKind> {
        let (raw, bytes) =
            bytes_at::<LEN>(self.data, self.at).ok_or_else(|| self.too_short(LEN))?;
        self.at = past(self.at, bytes);
        Ok(raw)
    }

    #[cold]
    fn too_short(&self, needed: usize) -> PayloadErrorKind {
        PayloadErrorKind::TooShort {
            needed: u64::try_from(needed).unwrap_or(u64::MAX),
            left: self.left(),
        }
    }

    /// Decodes one value of `field` at the current offset, moving past it: a fixed-size type
    /// first ([`fixed_value`]), then the others.
    #[inline(always)]
    fn value(&mut self, field: &FieldSchema<N>) -> Result<Value<'d>, PayloadErrorKind> {
        if let Some((value, bytes)) =
            fixed_value(field.in_type, self.data, self.at, self.pointer_size)
        {
            self.at = past(self.at, bytes);
            return Ok(value);
        }
        self.variable_value(field)
    }

    /// Decodes one value of `field` at the current offset, moving past it, when
    /// [`fixed_value`] has read none: a type of no fixed size, or the error of a fixed-size
    /// value that does not fit.
    #[inline(always)]
    fn variable_value(&mut self, field: &FieldSchema<N>) -> Result<Value<'d>, PayloadErrorKind> {
        Ok(match field.in_type {
            // Then the common case: a NUL-terminated string, its length the type's own.
            InType::UNICODE_STRING if field.length == Length::Natural => {
                Value::Utf16(Utf16Str::from_le_bytes(self.until_nul::<2>()?))
            }
            InType::ANSI_STRING if field.length == Length::Natural => {
                Value::Ansi(self.until_nul::<1>()?)
            }
            InType::UNICODE_STRING => match self.sized_bytes(field, 2)? {
                Some(bytes) => Value::Utf16(Utf16Str::split_nul_terminated(bytes).0),
                None => Value::Utf16(Utf16Str::from_le_bytes(self.until_nul::<2>()?)),
            },
            InType::ANSI_STRING => match self.sized_bytes(field, 1)? {
                Some(bytes) => Value::Ansi(before_nul(bytes)),
                None => Value::Ansi(self.until_nul::<1>()?),
            },
            InType::BINARY => match self.sized_bytes(field, 1)? {
                Some(bytes) => Value::Binary(bytes),
                None => return Err(PayloadErrorKind::NeedsLength),
            },
            InType::SID => Value::Sid(self.sid()?),
            InType::WBEM_SID => {
                let [a, b, c, d] =
                    self.rest()
                        .first_chunk::<4>()
                        .copied()
                        .ok_or(PayloadErrorKind::TooShort {
                            needed: 4,
                            left: self.left(),
                        })?;
                if u32::from_le_bytes([a, b, c, d]) == 0 {
                    self.at = self.at.saturating_add(4);
                    Value::NoSid
                } else {
                    // TOKEN_USER: the SID's pointer and its attributes, each pointer-sized.
                    let token_user = u64::from(self.pointer_size).saturating_mul(2);
                    let needed = token_user.saturating_add(8);
                    let start = self.at;
                    self.take(token_user)
                        .map_err(|_| PayloadErrorKind::TooShort {
                            needed,
                            left: self.data.len().saturating_sub(start),
                        })?;
                    Value::Sid(self.sid()?)
                }
            }
            InType::MANIFEST_COUNTED_STRING | InType::COUNTED_STRING => {
                Value::Utf16(Utf16Str::from_le_bytes(self.counted16(false)?))
            }
            InType::REVERSED_COUNTED_STRING => {
                Value::Utf16(Utf16Str::from_le_bytes(self.counted16(true)?))
            }
            InType::MANIFEST_COUNTED_ANSI_STRING | InType::COUNTED_ANSI_STRING => {
                Value::Ansi(self.counted16(false)?)
            }
            InType::REVERSED_COUNTED_ANSI_STRING => Value::Ansi(self.counted16(true)?),
            InType::MANIFEST_COUNTED_BINARY => Value::Binary(self.counted16(false)?),
            InType::NON_NULL_TERMINATED_STRING => {
                let rest = self.rest();
                self.at = self.data.len();
                Value::Utf16(Utf16Str::from_le_bytes(rest))
            }
            InType::NON_NULL_TERMINATED_ANSI_STRING => {
                let rest = self.rest();
                self.at = self.data.len();
                Value::Ansi(rest)
            }
            InType::HEXDUMP => {
                let count = u32::from_le_bytes(self.fixed()?);
                Value::Binary(self.take(u64::from(count))?.0)
            }
            // A fixed-size type whose value does not fit in what is left.
            other => match other.fixed_size(self.pointer_size) {
                Some(size) => return Err(self.too_short(usize::from(size))),
                None => return Err(PayloadErrorKind::UnknownInType(other)),
            },
        })
    }

    /// A SID at the current offset (8 bytes, then 4 per sub-authority, at most 15).
    fn sid(&mut self) -> Result<Sid<'d>, PayloadErrorKind> {
        let rest = self.rest();
        let left = rest.len();
        let count = rest
            .get(1)
            .copied()
            .ok_or(PayloadErrorKind::TooShort { needed: 8, left })?;
        if count > 15 {
            return Err(PayloadErrorKind::SidTooLong {
                sub_authorities: count,
            });
        }
        let (sid, _) = Sid::from_prefix(rest).ok_or(PayloadErrorKind::TooShort {
            needed: 8u64.saturating_add(u64::from(count).saturating_mul(4)),
            left,
        })?;
        self.at = self.at.saturating_add(sid.byte_len());
        Ok(sid)
    }

    /// The text of a NUL-terminated string of `UNIT`-byte characters, without its NUL;
    /// moves past the NUL.
    fn until_nul<const UNIT: usize>(&mut self) -> Result<&'d [u8], PayloadErrorKind> {
        let rest = self.rest();
        let Some((text, _)) = first_nul::<UNIT>(rest).and_then(|end| rest.split_at_checked(end))
        else {
            return Err(PayloadErrorKind::Unterminated { left: rest.len() });
        };
        self.at = self.at.saturating_add(text.len()).saturating_add(UNIT);
        Ok(text)
    }
}

/// Elements of an array of fixed-size values, up to `end`: see [`ElementRun::fold`].
struct ElementRun<'s, 'd, N> {
    /// The array's field.
    values: &'s FieldSchema<N>,
    /// Its index.
    field: usize,
    data: &'d [u8],
    /// The element to stop before.
    end: u32,
}

impl<'s, 'd, N> ElementRun<'s, 'd, N> {
    /// Hands `f` the elements from `*element` up to `end` that lie whole in the data from
    /// `*at`, each `LEN` bytes read by `read`, moving `*at` and `*element` past them; an
    /// element that does not fit is left where it starts, for the caller to report.
    #[inline(always)]
    fn fold<B, const LEN: usize>(
        &self,
        at: &mut usize,
        element: &mut u32,
        mut acc: B,
        f: &mut impl FnMut(B, Result<Item<'s, 'd, N>, PayloadError>) -> B,
        read: impl Fn([u8; LEN]) -> Value<'d>,
    ) -> B {
        let rest = self.data.get(*at..).unwrap_or_default();
        let count = usize_from_u32(self.end.saturating_sub(*element));
        // At most the whole elements of `rest`, so within it.
        let whole = count
            .min(rest.len().checked_div(LEN).unwrap_or(0))
            .saturating_mul(LEN);
        for chunk in rest.get(..whole).unwrap_or_default().chunks_exact(LEN) {
            let Some(raw) = chunk.first_chunk::<LEN>() else {
                break;
            };
            let item = Item {
                field: self.values,
                index: u16::try_from(self.field).unwrap_or(u16::MAX),
                element: Some(*element),
                offset: *at,
                bytes: chunk,
                kind: ItemKind::Value(read(*raw)),
            };
            // Within the data and below `end`: no overflow.
            (*at, *element) = (at.saturating_add(LEN), element.saturating_add(1));
            acc = f(acc, Ok(item));
        }
        acc
    }
}

/// The index of the last of `fields` whose count or length is the value of a field, 0 when none
/// is: a walk keeps where the integers before it start, for the counts and lengths that name
/// them (a field at or after it can never be named before it is read). Worked out once for a
/// schema, it is handed to [`PayloadDecoder::with_last_reference`] for each event rather than
/// found again.
///
/// ```
/// use etw_classic::payload::{last_reference, Count, FieldSchema, InType};
///
/// let mut fields = [
///     FieldSchema::new("FrameCount", InType::UINT32),
///     FieldSchema::new("Stack", InType::POINTER),
///     FieldSchema::new("Flags", InType::UINT32),
/// ];
/// assert_eq!(last_reference(&fields), 0);
/// fields[1].count = Count::FromField(0);
/// assert_eq!(last_reference(&fields), 1);
/// ```
pub const fn last_reference<N>(fields: &[FieldSchema<N>]) -> usize {
    let mut rest = fields;
    while let [before @ .., last] = rest {
        if matches!(last.count, Count::FromField(_)) || matches!(last.length, Length::FromField(_))
        {
            return before.len();
        }
        rest = before;
    }
    0
}

/// How many bytes a pointer or a `SIZE_T` takes on a logger of `bitness`.
pub(crate) const fn pointer_size(bitness: Bitness) -> u8 {
    match bitness {
        Bitness::Bits32 => 4,
        Bitness::Bits64 => 8,
    }
}

/// Hands `visit` each of `fields` and its value, read in turn from the start of `data`,
/// stopping at the first that is not one value of a fixed size or does not fit: for callers
/// that know every field is one and fits ([`KernelEvent::for_each_fixed_field`]).
///
/// [`KernelEvent::for_each_fixed_field`]: crate::payload::kernel::KernelEvent::for_each_fixed_field
#[inline(always)]
pub(crate) fn for_each_fixed_value<'s, 'd, N>(
    fields: &'s [FieldSchema<N>],
    data: &'d [u8],
    bitness: Bitness,
    mut visit: impl FnMut(&'s FieldSchema<N>, Value<'d>),
) {
    let pointer_size = pointer_size(bitness);
    let mut at = 0;
    for field in fields {
        if field.count != Count::One {
            return;
        }
        let Some((value, bytes)) = fixed_value(field.in_type, data, at, pointer_size) else {
            return;
        };
        at = past(at, bytes);
        visit(field, value);
    }
}

/// The item of `value`, read in place from `bytes`, at `offset` in the data, for the field at
/// `index`.
#[inline(always)]
fn item_of_value<'s, 'd, N>(
    field: &'s FieldSchema<N>,
    index: usize,
    element: Option<u32>,
    offset: usize,
    bytes: &'d [u8],
    value: Value<'d>,
) -> Item<'s, 'd, N> {
    Item {
        field,
        index: u16::try_from(index).unwrap_or(u16::MAX),
        element,
        offset,
        bytes,
        kind: ItemKind::Value(value),
    }
}

/// The offset after `bytes`, read from the data at `at`: within the data, so no overflow.
#[inline(always)]
const fn past(at: usize, bytes: &[u8]) -> usize {
    at.wrapping_add(bytes.len())
}

/// `LEN` bytes at `at` in `data`, as a value and as the slice of `data` they are (an item's
/// bytes, taken without checking the range again); `None` when they do not fit.
#[inline(always)]
fn bytes_at<const LEN: usize>(data: &[u8], at: usize) -> Option<([u8; LEN], &[u8])> {
    let bytes = data.get(at..)?.first_chunk::<LEN>()?;
    Some((*bytes, bytes))
}

/// The value of a fixed-size in-type (each type [`InType::fixed_size`] gives a size) at `at`
/// in `data`, and its bytes there; `None` for the other types, and for a value that does not
/// fit. Pointers and `SIZE_T`s are `pointer_size` bytes.
#[inline(always)]
fn fixed_value(
    in_type: InType,
    data: &[u8],
    at: usize,
    pointer_size: u8,
) -> Option<(Value<'_>, &[u8])> {
    Some(match in_type {
        InType::NULL => (Value::Null, &[]),
        InType::INT8 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::I8(i8::from_le_bytes(raw)), bytes)
        }
        InType::UINT8 => {
            let ([byte], bytes) = bytes_at(data, at)?;
            (Value::U8(byte), bytes)
        }
        InType::ANSI_CHAR => {
            let ([byte], bytes) = bytes_at(data, at)?;
            (Value::Char8(byte), bytes)
        }
        InType::INT16 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::I16(i16::from_le_bytes(raw)), bytes)
        }
        InType::UINT16 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::U16(u16::from_le_bytes(raw)), bytes)
        }
        InType::UNICODE_CHAR => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::Char16(u16::from_le_bytes(raw)), bytes)
        }
        InType::INT32 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::I32(i32::from_le_bytes(raw)), bytes)
        }
        InType::UINT32 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::U32(u32::from_le_bytes(raw)), bytes)
        }
        InType::HEXINT32 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::HexInt32(u32::from_le_bytes(raw)), bytes)
        }
        InType::FLOAT => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::F32(f32::from_le_bytes(raw)), bytes)
        }
        InType::BOOLEAN => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::Bool(u32::from_le_bytes(raw)), bytes)
        }
        InType::INT64 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::I64(i64::from_le_bytes(raw)), bytes)
        }
        InType::UINT64 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::U64(u64::from_le_bytes(raw)), bytes)
        }
        InType::HEXINT64 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::HexInt64(u64::from_le_bytes(raw)), bytes)
        }
        InType::DOUBLE => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::F64(f64::from_le_bytes(raw)), bytes)
        }
        InType::FILETIME => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::FileTime(u64::from_le_bytes(raw)), bytes)
        }
        InType::POINTER | InType::SIZET if pointer_size == 4 => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::Pointer(u64::from(u32::from_le_bytes(raw))), bytes)
        }
        InType::POINTER | InType::SIZET => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::Pointer(u64::from_le_bytes(raw)), bytes)
        }
        InType::GUID => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::Guid(Guid::from_bytes_le(raw)), bytes)
        }
        InType::SYSTEMTIME => {
            let (raw, bytes) = bytes_at(data, at)?;
            (Value::SystemTime(SystemTime::from_bytes(&raw)), bytes)
        }
        _ => return None,
    })
}

/// Where the first NUL character of `UNIT` bytes (1 or 2) starts in `bytes`, counting in whole
/// characters from the start; sixteen bytes are looked at a time, as two words.
fn first_nul<const UNIT: usize>(bytes: &[u8]) -> Option<usize> {
    // A lane of a word is zero where subtracting 1 from it borrows into its top bit while the
    // lane's own top bit was clear; the lowest such lane is the first zero one (a borrow only
    // runs upwards from a zero lane, so lanes above it may be marked wrongly, never below).
    let (ones, tops) = if UNIT == 2 {
        (0x0001_0001_0001_0001u64, 0x8000_8000_8000_8000u64)
    } else {
        (0x0101_0101_0101_0101u64, 0x8080_8080_8080_8080u64)
    };
    let zero_lanes = |word: &[u8; 8]| {
        let word = u64::from_le_bytes(*word);
        word.wrapping_sub(ones) & !word & tops
    };
    // The first zero lane of a word that has one, as a byte offset in it: the byte of the
    // lowest marked top bit, rounded down to the lane's first (a shift and a mask, where a
    // division by the lane's width took tens of cycles).
    let lane_offset = |zero: u64| {
        usize::try_from(zero.trailing_zeros() >> 3).unwrap_or(0) & !UNIT.wrapping_sub(1)
    };
    let mut pairs = bytes.chunks_exact(16);
    // Within `bytes`, so adding to it does not overflow.
    let mut start = 0usize;
    for pair in pairs.by_ref() {
        let (Some(low), Some(high)) = (pair.first_chunk::<8>(), pair.last_chunk::<8>()) else {
            break;
        };
        let (low, high) = (zero_lanes(low), zero_lanes(high));
        if low | high != 0 {
            return Some(if low != 0 {
                start.wrapping_add(lane_offset(low))
            } else {
                start.wrapping_add(8).wrapping_add(lane_offset(high))
            });
        }
        start = start.wrapping_add(16);
    }
    let mut rest = pairs.remainder();
    if let Some((word, after)) = rest.split_first_chunk::<8>() {
        let zero = zero_lanes(word);
        if zero != 0 {
            return Some(start.wrapping_add(lane_offset(zero)));
        }
        (rest, start) = (after, start.wrapping_add(8));
    }
    let found = rest
        .chunks_exact(UNIT)
        .position(|character| character.iter().all(|byte| *byte == 0))?;
    Some(start.wrapping_add(found.wrapping_mul(UNIT)))
}

impl<'s, 'd, N> Iterator for PayloadDecoder<'s, 'd, N> {
    type Item = Result<Item<'s, 'd, N>, PayloadError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.step()
    }

    /// The same items, handed to `f` where each is made: see
    /// [`PayloadDecoder::for_each_item`]. `for_each` and the adapters built on `fold` take
    /// this path.
    #[inline]
    fn fold<B, F>(mut self, init: B, f: F) -> B
    where
        F: FnMut(B, Self::Item) -> B,
    {
        self.fold_items(init, f)
    }
}

impl<N> core::iter::FusedIterator for PayloadDecoder<'_, '_, N> {}

fn byte(bytes: &[u8], at: usize) -> u8 {
    bytes.get(at).copied().unwrap_or(0)
}

/// The bytes before the first NUL (all of them when there is none).
fn before_nul(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .position(|byte| *byte == 0)
        .unwrap_or(bytes.len());
    bytes.get(..end).unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::{first_nul, fixed_value};
    use crate::payload::types::InType;

    /// `fixed_value` reads every type `InType::fixed_size` sizes, as many bytes as it says,
    /// and no other type: `PayloadDecoder::value` reads those types through it alone.
    #[test]
    fn fixed_value_reads_what_fixed_size_sizes() {
        let data: [u8; 32] = core::array::from_fn(|at| u8::try_from(at).unwrap());
        for pointer_size in [4u8, 8] {
            // Every code TDH and TraceLogging define lies below 512.
            for code in (0..512).chain([0x7fff, 0x8000, u16::MAX]) {
                let in_type = InType(code);
                let read = fixed_value(in_type, &data, 3, pointer_size).map(|(_, bytes)| bytes);
                let size = in_type.fixed_size(pointer_size).map(usize::from);
                assert_eq!(
                    read.map(<[u8]>::len),
                    size,
                    "in-type {code}, pointers of {pointer_size} bytes"
                );
                // The value's bytes are the data's from where it starts.
                if let (Some(bytes), Some(size)) = (read, size.filter(|size| *size > 0)) {
                    assert_eq!(bytes, data.get(3..3 + size).unwrap(), "in-type {code}");
                }
                if let Some(size) = size.filter(|size| *size > 0) {
                    // One byte short: nothing read.
                    let short = data.get(..3 + size - 1).unwrap();
                    assert!(fixed_value(in_type, short, 3, pointer_size).is_none());
                }
            }
        }
    }

    /// The first NUL found a character at a time, as the rule says it.
    fn first_nul_by_character(bytes: &[u8], unit: usize) -> Option<usize> {
        bytes
            .chunks_exact(unit)
            .position(|character| character.iter().all(|byte| *byte == 0))
            .map(|index| index * unit)
    }

    #[test]
    fn first_nul_agrees_with_a_character_at_a_time() {
        // Bytes drawn mostly from the values that trip word-at-a-time scans: 0, 1, 0x80, 0xff
        // and a NUL split across two characters; up to 95 bytes, so that the scan meets up to
        // five steps of sixteen bytes, then a word, then single characters. In half the rounds
        // a zero byte is rare, so that a NUL is often far in, or missing.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        // Under Miri a few hundred rounds: what it adds there is that the words are read in
        // the data's byte order, which any NUL past the first word shows.
        let rounds = if cfg!(miri) { 300 } else { 200_000 };
        for _ in 0..rounds {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = usize::try_from(state % 96).unwrap();
            let sparse = state >> 63 == 1;
            let mut buffer = [0u8; 96];
            let mut draws = state;
            for byte in buffer.iter_mut().take(len) {
                draws ^= draws << 13;
                draws ^= draws >> 7;
                draws ^= draws << 17;
                *byte = match draws >> 60 {
                    0 => 0,
                    1 | 2 if !sparse => 0,
                    3 | 4 => 1,
                    5 | 6 => 0x80,
                    7 | 8 => 0xff,
                    _ => 0x41,
                };
            }
            let bytes = buffer.get(..len).unwrap();
            assert_eq!(
                first_nul::<1>(bytes),
                first_nul_by_character(bytes, 1),
                "{bytes:02x?} in units of 1"
            );
            assert_eq!(
                first_nul::<2>(bytes),
                first_nul_by_character(bytes, 2),
                "{bytes:02x?} in units of 2"
            );
        }
    }
}
