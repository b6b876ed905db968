//! The one description of an event's fields that every source of schemas yields: TraceLogging
//! metadata, `TRACE_EVENT_INFO`, manifests, MOF classes and the kernel's built-in tables.
//!
//! A schema is a slice of [`FieldSchema`] in *preorder*: the event's fields in the order of its
//! data, each structure followed at once by its members (and theirs, depth first). That is the
//! order TraceLogging writes its metadata in ("a struct groups the next `OutType & 0x7F`
//! fields", PAYLOADS.md §2) and the order of a manifest's nested `<struct>`; sources that list
//! a structure's members elsewhere (`TRACE_EVENT_INFO`'s `StructStartIndex`) are put in this
//! order when they are read. A field that takes its count or length from another names that
//! field by its index in the slice, which must be earlier.
//!
//! The name type `N` is the source's: `&str` for TraceLogging metadata read in place and for
//! static tables, owned strings for schemas loaded from text, UTF-16 views for
//! `TRACE_EVENT_INFO` read in place. Decoding never looks at names.

use crate::payload::types::{InType, OutType};

/// How many values a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Count {
    /// One value, not an array.
    #[default]
    One,
    /// An array of this many values, fixed by the schema (TDH's `ParamFixedCount`, the
    /// manifest's `count="4"`, TraceLogging's constant count, MOF's `MAX(4)` on an array).
    Fixed(u16),
    /// An array whose length is the value of the earlier integer field at this index in the
    /// schema (TDH's `ParamCount`, the manifest's `count="FieldName"`, MOF's `WmiSizeIs`).
    FromField(u16),
    /// An array whose length is a `u16` written in the data just before the values
    /// (TraceLogging's variable count, `(InType & 0x60) == 0x40`).
    Prefixed,
}

/// How long a string or binary field is, for the types whose length is not fixed by the type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Length {
    /// As the in-type says: NUL-terminated for strings, a count in the data for the counted
    /// types, the type's size for the fixed-size ones.
    #[default]
    Natural,
    /// This many units (characters for a string, bytes for binary), fixed by the schema.
    Fixed(u16),
    /// As many units as the value of the earlier integer field at this index in the schema.
    FromField(u16),
    /// A `u16` byte count written in the data just before the value (TraceLogging's
    /// `TlgInBINARY` and custom-typed fields).
    Prefixed,
}

/// One field of an event's data: its name, its types, how many values and how long each is.
///
/// ```
/// use etw_classic::payload::{Count, FieldSchema, InType, Length, OutType};
/// let pid = FieldSchema::new("ProcessId", InType::UINT32).with_out_type(OutType::PID);
/// assert_eq!(pid.count, Count::One);
/// let name = FieldSchema::new("ImageName", InType::UNICODE_STRING);
/// assert_eq!(name.length, Length::Natural);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct FieldSchema<N> {
    /// The field's name as the source spells it.
    pub name: N,
    /// How each value is stored.
    pub in_type: InType,
    /// How each value is meant to be shown.
    pub out_type: OutType,
    /// One value or an array.
    pub count: Count,
    /// The length of a string or binary value.
    pub length: Length,
    /// For a structure ([`InType::STRUCT`]): how many of the following fields are its direct
    /// members (each member structure followed by its own). 0 otherwise.
    pub members: u16,
    /// The name of the value map or bit map that names this field's values, if any.
    pub map: Option<N>,
    /// The field's 28-bit tag (TraceLogging's field tag, TDH's `Tags`), 0 when it has none.
    pub tags: u32,
}

impl<N> FieldSchema<N> {
    /// A field holding one value of `in_type`, with no out-type hint, no map and no tag.
    pub const fn new(name: N, in_type: InType) -> Self {
        Self {
            name,
            in_type,
            out_type: OutType::NULL,
            count: Count::One,
            length: Length::Natural,
            members: 0,
            map: None,
            tags: 0,
        }
    }

    /// A structure whose `members` direct members follow it.
    pub const fn structure(name: N, members: u16) -> Self {
        let mut field = Self::new(name, InType::STRUCT);
        field.members = members;
        field
    }

    /// The same field shown as `out_type`.
    #[must_use]
    pub const fn with_out_type(mut self, out_type: OutType) -> Self {
        self.out_type = out_type;
        self
    }

    /// The same field holding `count` values.
    #[must_use]
    pub const fn with_count(mut self, count: Count) -> Self {
        self.count = count;
        self
    }

    /// The same field with `length`.
    #[must_use]
    pub const fn with_length(mut self, length: Length) -> Self {
        self.length = length;
        self
    }

    /// The same field with its values named by the map called `map`.
    #[must_use]
    pub fn with_map(mut self, map: N) -> Self {
        self.map = Some(map);
        self
    }

    /// The same field with `tags`.
    #[must_use]
    pub const fn with_tags(mut self, tags: u32) -> Self {
        self.tags = tags;
        self
    }

    /// Whether this field is a structure.
    pub const fn is_struct(&self) -> bool {
        self.in_type.0 == InType::STRUCT.0
    }

    /// The same field with its name (and map name) turned into another type.
    pub fn map_names<M>(self, mut rename: impl FnMut(N) -> M) -> FieldSchema<M> {
        FieldSchema {
            name: rename(self.name),
            in_type: self.in_type,
            out_type: self.out_type,
            count: self.count,
            length: self.length,
            members: self.members,
            map: self.map.map(rename),
            tags: self.tags,
        }
    }
}

/// How deep structures may nest in a schema: a structure inside a structure ... eight levels
/// (the bound LinuxTracepoints' TraceLogging decoder uses).
pub const MAX_STRUCT_DEPTH: usize = 8;

/// What is wrong with a schema, found before any data is decoded: the fields contradict each
/// other, so no event can be decoded with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SchemaError {
    /// A structure says it has more members than there are fields after it.
    MembersPastEnd {
        /// The structure's index.
        field: u16,
        /// Its member count.
        members: u16,
    },
    /// Structures nest deeper than [`MAX_STRUCT_DEPTH`].
    TooDeep {
        /// The index of the structure one level too deep.
        field: u16,
    },
    /// A count or length names a field that is not an earlier integer field outside any
    /// array of structures the two do not share.
    BadReference {
        /// The field whose count or length it is.
        field: u16,
        /// The index it names.
        names: u16,
    },
    /// A field that is not a structure says it has members.
    MembersOnNonStruct {
        /// The field.
        field: u16,
    },
    /// More fields than a `u16` can index.
    TooManyFields {
        /// How many there are.
        count: usize,
    },
}

impl core::fmt::Display for SchemaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::MembersPastEnd { field, members } => write!(
                f,
                "field #{field} is a structure of {members} members, but the schema ends before them"
            ),
            Self::TooDeep { field } => write!(
                f,
                "field #{field} nests structures deeper than {MAX_STRUCT_DEPTH} levels"
            ),
            Self::BadReference { field, names } => write!(
                f,
                "field #{field} takes its count or length from field #{names}, which is not an earlier integer field"
            ),
            Self::MembersOnNonStruct { field } => {
                write!(f, "field #{field} has members but is not a structure")
            }
            Self::TooManyFields { count } => {
                write!(f, "{count} fields, more than the 65535 a schema can index")
            }
        }
    }
}

impl core::error::Error for SchemaError {}

/// The index just past the subtree of the field at `index` (the field itself, and for a
/// structure every member, depth first), or `None` when the schema ends inside it or nests
/// too deep.
pub(crate) fn subtree_end<N>(fields: &[FieldSchema<N>], index: usize) -> Option<usize> {
    // Members still to pass at each open level; level 0 is the field at `index`'s own.
    let mut open = [0u16; MAX_STRUCT_DEPTH + 1];
    let mut depth = 0usize;
    let mut at = index;
    loop {
        let field = fields.get(at)?;
        at = at.checked_add(1)?;
        if field.is_struct() && field.members > 0 {
            if depth >= MAX_STRUCT_DEPTH {
                return None;
            }
            depth = depth.saturating_add(1);
            *open.get_mut(depth)? = field.members;
            continue;
        }
        // A whole subtree ends at `at`: it is one member of the level above, which may end too.
        loop {
            if depth == 0 {
                return Some(at);
            }
            let left = open.get_mut(depth)?;
            *left = left.saturating_sub(1);
            if *left > 0 {
                break;
            }
            depth = depth.saturating_sub(1);
        }
    }
}

/// Checks that `fields` describe a layout that can be decoded: structures hold the fields
/// after them and nest at most [`MAX_STRUCT_DEPTH`] levels, and every count or length taken
/// from a field names an earlier integer field.
///
/// Sources call it when they load a schema, so that a schema that contradicts itself is an
/// error naming the source's place (the file and line of a manifest, the metadata's offset)
/// rather than an error on every event.
///
/// # Errors
/// The first contradiction found, in field order.
pub fn check_fields<N>(fields: &[FieldSchema<N>]) -> Result<(), SchemaError> {
    if u16::try_from(fields.len()).is_err() {
        return Err(SchemaError::TooManyFields {
            count: fields.len(),
        });
    }
    let mut at = 0usize;
    while at < fields.len() {
        check_subtree(fields, at, 0)?;
        at = subtree_end(fields, at).ok_or(SchemaError::MembersPastEnd {
            field: index_u16(at),
            members: fields.get(at).map_or(0, |field| field.members),
        })?;
    }
    Ok(())
}

fn index_u16(index: usize) -> u16 {
    u16::try_from(index).unwrap_or(u16::MAX)
}

/// Checks the field at `index` and, for a structure, its members, `depth` levels down.
fn check_subtree<N>(
    fields: &[FieldSchema<N>],
    index: usize,
    depth: usize,
) -> Result<(), SchemaError> {
    let Some(field) = fields.get(index) else {
        return Ok(());
    };
    let me = index_u16(index);
    for reference in [count_reference(field.count), length_reference(field.length)]
        .into_iter()
        .flatten()
    {
        let ok = usize::from(reference) < index
            && fields
                .get(usize::from(reference))
                .is_some_and(|named| named.in_type.is_integer() && named.count == Count::One);
        if !ok {
            return Err(SchemaError::BadReference {
                field: me,
                names: reference,
            });
        }
    }
    if !field.is_struct() {
        return if field.members == 0 {
            Ok(())
        } else {
            Err(SchemaError::MembersOnNonStruct { field: me })
        };
    }
    if depth >= MAX_STRUCT_DEPTH {
        return Err(SchemaError::TooDeep { field: me });
    }
    let past_end = SchemaError::MembersPastEnd {
        field: me,
        members: field.members,
    };
    let mut member = index.checked_add(1).ok_or(past_end)?;
    for _ in 0..field.members {
        if member >= fields.len() {
            return Err(past_end);
        }
        check_subtree(fields, member, depth.saturating_add(1))?;
        member = subtree_end(fields, member).ok_or(past_end)?;
    }
    Ok(())
}

const fn count_reference(count: Count) -> Option<u16> {
    match count {
        Count::FromField(index) => Some(index),
        _ => None,
    }
}

const fn length_reference(length: Length) -> Option<u16> {
    match length {
        Length::FromField(index) => Some(index),
        _ => None,
    }
}
