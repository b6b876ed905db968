//! TraceLogging's self-describing events: the event metadata of extended item 11
//! (`EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL`), read in place into the one schema description.
//!
//! The rules, from the Windows SDK's TraceLoggingProvider.h ("How to encode metadata") and
//! microsoft/tracelogging's TraceLoggingDynamic.h (PAYLOADS.md §2):
//! - event metadata: `u16 Size` (of the structure; the extended item may be longer, so it is
//!   read by `Size`), one or more tag bytes, the UTF-8 NUL-terminated event name, then field
//!   descriptions to the end of `Size`;
//! - tag bytes: read until a byte with bit 7 clear; the first four give a 28-bit tag, 7 bits
//!   each, high bits first; later ones are ignored;
//! - a field: UTF-8 NUL-terminated name; `u8 InType`; if `InType & 0x80`, `u8 OutType`; if
//!   `OutType & 0x80`, tag bytes; if `(InType & 0x60) == 0x20` (constant count) a `u16`
//!   count; if `(InType & 0x60) == 0x60` (custom) a `u16` type-info size and that many bytes;
//!   `(InType & 0x60) == 0x40` is a variable count, a `u16` in the data before the values;
//!   `InType & 0x1F` is the type;
//! - a structure (type 24) has no data of its own and groups the next `OutType & 0x7F` fields.
//!
//! The provider's name (extended item 12) is read by
//! [`ProviderTraits`](crate::wire::ProviderTraits).

use crate::payload::schema::{check_fields, Count, FieldSchema, Length, SchemaError};
use crate::payload::types::{InType, OutType};

/// What is wrong with TraceLogging metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum MetadataErrorKind {
    /// The metadata's `Size` is smaller than its own `u16`, or larger than the item.
    Size {
        /// `Size`.
        size: u16,
        /// The extended item's data length.
        item_len: usize,
    },
    /// The metadata ends inside tag bytes.
    Tags,
    /// A name has no NUL before the end of the metadata.
    UnterminatedName,
    /// A name is not UTF-8.
    NameNotUtf8,
    /// The metadata ends where a field's `InType` should be.
    MissingInType,
    /// The metadata ends where a field's `OutType` should be.
    MissingOutType,
    /// The metadata ends where a field's constant count should be.
    MissingCount,
    /// The metadata ends inside a custom field's type information.
    MissingTypeInfo {
        /// The type information's stated size.
        size: u16,
    },
    /// A structure without the `OutType` byte that holds its member count.
    StructWithoutCount,
    /// More fields than the caller's capacity.
    TooManyFields {
        /// The capacity.
        capacity: usize,
    },
    /// The fields contradict each other (a structure with more members than fields follow it,
    /// or nested deeper than eight levels).
    Schema(SchemaError),
}

/// Where and why TraceLogging metadata could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub struct MetadataError {
    /// The offset in the metadata (from its `Size`) of the part that is wrong.
    pub offset: usize,
    /// What is wrong.
    pub kind: MetadataErrorKind,
}

impl core::fmt::Display for MetadataError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "TraceLogging metadata at offset {}: ", self.offset)?;
        match self.kind {
            MetadataErrorKind::Size { size, item_len } => write!(
                f,
                "Size {size} must be at least 2 and at most the item's {item_len} bytes"
            ),
            MetadataErrorKind::Tags => f.write_str("the metadata ends inside tag bytes"),
            MetadataErrorKind::UnterminatedName => {
                f.write_str("a name has no NUL before the end of the metadata")
            }
            MetadataErrorKind::NameNotUtf8 => f.write_str("a name is not UTF-8"),
            MetadataErrorKind::MissingInType => f.write_str("a field has no InType byte"),
            MetadataErrorKind::MissingOutType => {
                f.write_str("InType says an OutType byte follows, but the metadata ends")
            }
            MetadataErrorKind::MissingCount => {
                f.write_str("a constant-count field has no u16 count")
            }
            MetadataErrorKind::MissingTypeInfo { size } => write!(
                f,
                "a custom field's {size} bytes of type information run past the metadata"
            ),
            MetadataErrorKind::StructWithoutCount => {
                f.write_str("a structure has no OutType byte holding its member count")
            }
            MetadataErrorKind::TooManyFields { capacity } => {
                write!(f, "more than {capacity} fields")
            }
            MetadataErrorKind::Schema(error) => write!(f, "{error}"),
        }
    }
}

impl core::error::Error for MetadataError {}

/// The metadata of one TraceLogging event: its name and tags, and its fields read in place.
///
/// ```
/// use etw_classic::payload::{InType, TraceLoggingEvent};
/// // Size 14, tag byte 0, "Ping\0", then "n\0" UINT32 and "s\0" ANSISTRING.
/// let metadata = b"\x0e\x00\x00Ping\x00n\x00\x08s\x00\x02";
/// let event = TraceLoggingEvent::parse(metadata)?;
/// assert_eq!(event.name, "Ping");
/// let fields: heapless::Vec<_, 8> = event.collect_fields()?;
/// assert_eq!(fields[0].name, "n");
/// assert_eq!(fields[1].in_type, InType::ANSI_STRING);
/// # Ok::<(), etw_classic::payload::MetadataError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct TraceLoggingEvent<'a> {
    /// The event's name.
    pub name: &'a str,
    /// The event's 28-bit tag.
    pub tags: u32,
    /// The metadata's `Size`.
    pub size: u16,
    /// The field descriptions, from the end of the name to the end of `Size`.
    fields: &'a [u8],
    /// Where `fields` starts in the metadata.
    fields_at: usize,
}

impl<'a> TraceLoggingEvent<'a> {
    /// Reads the metadata at the start of `item` (the data of an extended item 11).
    ///
    /// # Errors
    /// A `Size` that does not fit the item, tag bytes or a name that run past `Size`, or a
    /// name that is not UTF-8.
    pub fn parse(item: &'a [u8]) -> Result<Self, MetadataError> {
        let size = item
            .first_chunk::<2>()
            .map(|size| u16::from_le_bytes(*size))
            .ok_or(MetadataError {
                offset: 0,
                kind: MetadataErrorKind::Size {
                    size: 0,
                    item_len: item.len(),
                },
            })?;
        let metadata = item
            .get(..usize::from(size))
            .filter(|metadata| metadata.len() >= 2)
            .ok_or(MetadataError {
                offset: 0,
                kind: MetadataErrorKind::Size {
                    size,
                    item_len: item.len(),
                },
            })?;
        let mut cursor = Cursor {
            bytes: metadata,
            at: 2,
        };
        let tags = cursor.tags()?;
        let name = cursor.name()?;
        Ok(Self {
            name,
            tags,
            size,
            fields: metadata.get(cursor.at..).unwrap_or_default(),
            fields_at: cursor.at,
        })
    }

    /// The fields' descriptions in order (preorder: a structure, then its members).
    pub fn fields(&self) -> TraceLoggingFields<'a> {
        TraceLoggingFields {
            cursor: Cursor {
                bytes: self.fields,
                at: 0,
            },
            base: self.fields_at,
            failed: false,
        }
    }

    /// The fields collected into a fixed-capacity vector, checked as one schema
    /// ([`check_fields`]).
    ///
    /// # Errors
    /// The first field that cannot be read, more than `CAP` fields, or structures that
    /// contradict the fields after them.
    pub fn collect_fields<const CAP: usize>(
        &self,
    ) -> Result<heapless::Vec<FieldSchema<&'a str>, CAP>, MetadataError> {
        let mut fields = heapless::Vec::new();
        for field in self.fields() {
            let field = field?;
            fields.push(field).map_err(|_| MetadataError {
                offset: self.fields_at,
                kind: MetadataErrorKind::TooManyFields { capacity: CAP },
            })?;
        }
        check_fields(&fields).map_err(|error| MetadataError {
            offset: self.fields_at,
            kind: MetadataErrorKind::Schema(error),
        })?;
        Ok(fields)
    }
}

/// The field descriptions of TraceLogging metadata, read one at a time.
#[derive(Clone, Debug)]
pub struct TraceLoggingFields<'a> {
    cursor: Cursor<'a>,
    /// Where the fields start in the metadata, for error offsets.
    base: usize,
    failed: bool,
}

impl<'a> Iterator for TraceLoggingFields<'a> {
    type Item = Result<FieldSchema<&'a str>, MetadataError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.cursor.at >= self.cursor.bytes.len() {
            return None;
        }
        let field = self.cursor.field().map_err(|mut error| {
            error.offset = error.offset.saturating_add(self.base);
            error
        });
        self.failed = field.is_err();
        Some(field)
    }
}

impl core::iter::FusedIterator for TraceLoggingFields<'_> {}

/// Reads metadata front to back.
#[derive(Clone, Debug)]
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// The shift of each of the first four tag bytes' 7 bits in the 28-bit tag.
const TAG_SHIFTS: [u32; 4] = [21, 14, 7, 0];

impl<'a> Cursor<'a> {
    fn fail(&self, kind: MetadataErrorKind) -> MetadataError {
        MetadataError {
            offset: self.at,
            kind,
        }
    }

    fn byte(&mut self, missing: MetadataErrorKind) -> Result<u8, MetadataError> {
        let byte = self.bytes.get(self.at).copied().ok_or(self.fail(missing))?;
        self.at = self.at.saturating_add(1);
        Ok(byte)
    }

    fn u16(&mut self, missing: MetadataErrorKind) -> Result<u16, MetadataError> {
        let pair = self
            .bytes
            .get(self.at..)
            .and_then(<[u8]>::first_chunk::<2>)
            .ok_or(self.fail(missing))?;
        self.at = self.at.saturating_add(2);
        Ok(u16::from_le_bytes(*pair))
    }

    /// One or more tag bytes, as a 28-bit tag.
    fn tags(&mut self) -> Result<u32, MetadataError> {
        let mut tags = 0u32;
        let mut taken = 0usize;
        loop {
            let byte = self.byte(MetadataErrorKind::Tags)?;
            if let Some(shift) = TAG_SHIFTS.get(taken) {
                tags |= u32::from(byte & 0x7F).checked_shl(*shift).unwrap_or(0);
            }
            taken = taken.saturating_add(1);
            if byte & 0x80 == 0 {
                return Ok(tags);
            }
        }
    }

    /// A UTF-8 NUL-terminated name.
    fn name(&mut self) -> Result<&'a str, MetadataError> {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let len = rest
            .iter()
            .position(|byte| *byte == 0)
            .ok_or(self.fail(MetadataErrorKind::UnterminatedName))?;
        let name = rest
            .get(..len)
            .and_then(|name| core::str::from_utf8(name).ok())
            .ok_or(self.fail(MetadataErrorKind::NameNotUtf8))?;
        self.at = self.at.saturating_add(len).saturating_add(1);
        Ok(name)
    }

    /// One field description.
    fn field(&mut self) -> Result<FieldSchema<&'a str>, MetadataError> {
        let name = self.name()?;
        let in_raw = self.byte(MetadataErrorKind::MissingInType)?;
        let out_raw = if in_raw & 0x80 != 0 {
            Some(self.byte(MetadataErrorKind::MissingOutType)?)
        } else {
            None
        };
        let tags = match out_raw {
            Some(out) if out & 0x80 != 0 => self.tags()?,
            _ => 0,
        };
        let type_code = in_raw & 0x1F;
        let mut in_type = InType(u16::from(type_code));
        let mut count = Count::One;
        let mut length = Length::Natural;
        match in_raw & 0x60 {
            0x20 => count = Count::Fixed(self.u16(MetadataErrorKind::MissingCount)?),
            0x40 => count = Count::Prefixed,
            0x60 => {
                // Custom: the type information describes the bytes (a protobuf or Bond
                // schema, ...); the data holds a u16 byte count and the bytes.
                let size = self.u16(MetadataErrorKind::MissingTypeInfo { size: 0 })?;
                let end = self.at.checked_add(usize::from(size));
                if end.is_none_or(|end| end > self.bytes.len()) {
                    return Err(self.fail(MetadataErrorKind::MissingTypeInfo { size }));
                }
                self.at = end.unwrap_or(self.at);
                in_type = InType::BINARY;
                length = Length::Prefixed;
            }
            _ => {}
        }
        if in_type == InType::BINARY {
            // TlgInBINARY: "a u16 byte count, then the bytes" (PAYLOADS.md §2).
            length = Length::Prefixed;
        }
        let mut field = FieldSchema::new(name, in_type)
            .with_count(count)
            .with_length(length)
            .with_tags(tags);
        if in_type == InType::STRUCT {
            let out = out_raw.ok_or(self.fail(MetadataErrorKind::StructWithoutCount))?;
            field.members = u16::from(out & 0x7F);
        } else if let Some(out) = out_raw {
            field.out_type = OutType::from_tracelogging(out & 0x7F, in_type);
        }
        Ok(field)
    }
}
