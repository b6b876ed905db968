//! A classic provider, its event classes and their event types, described once as constants:
//! the names, numbers and the fields of each event type as the [`FieldSchema`] slices the
//! decoder reads events with.

use crate::payload::schema::{Count, FieldSchema, Length};
use crate::payload::types::InType;
use crate::wire::codes::EventType;
use crate::wire::guid::Guid;

/// The most bytes of data a classic event can carry: its `Size` is a `u16` and counts the
/// 0x30-byte `EVENT_TRACE_HEADER` ("Size: total number of bytes of the event, including the
/// header", EVENT_TRACE_HEADER, evntrace.h).
pub const MAX_EVENT_DATA_LEN: usize = 0xFFFF - 0x30;

/// One event type of a class: its number (`Class.Type` in the header, MOF's `EventType`),
/// its name (MOF's `EventTypeName`, the opcode name readers show) and its fields in the order
/// of the data (MOF's `WmiDataId` 1, 2, ...).
///
/// The fields are the decoder's own [`FieldSchema`]s: an event written from this description
/// decodes with [`fields`](Self::fields) through
/// [`PayloadDecoder`](crate::payload::PayloadDecoder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EventTypeDescription {
    event_type: EventType,
    name: &'static str,
    fields: &'static [FieldSchema<&'static str>],
}

impl EventTypeDescription {
    /// The event type `event_type` called `name`, whose data is `fields` in that order.
    /// [`ClassDescription::check`] checks it with its class.
    pub const fn new(
        event_type: EventType,
        name: &'static str,
        fields: &'static [FieldSchema<&'static str>],
    ) -> Self {
        Self {
            event_type,
            name,
            fields,
        }
    }

    /// Its number, `Class.Type` of its events.
    pub const fn event_type(&self) -> EventType {
        self.event_type
    }

    /// Its name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Its fields, in the order of the data.
    pub const fn fields(&self) -> &'static [FieldSchema<&'static str>] {
        self.fields
    }
}

/// An event class: its GUID (the `Guid` of its events' headers), its name (the MOF class, the
/// task name readers show), its version (`Class.Version` of its events, MOF's
/// `EventVersion`) and its event types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClassDescription {
    guid: Guid,
    name: &'static str,
    version: u16,
    event_types: &'static [EventTypeDescription],
}

impl ClassDescription {
    /// The class `guid` called `name`, at `version`, with `event_types`.
    pub const fn new(
        guid: Guid,
        name: &'static str,
        version: u16,
        event_types: &'static [EventTypeDescription],
    ) -> Self {
        Self {
            guid,
            name,
            version,
            event_types,
        }
    }

    /// Its GUID.
    pub const fn guid(&self) -> Guid {
        self.guid
    }

    /// Its name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Its version, `Class.Version` of its events.
    pub const fn version(&self) -> u16 {
        self.version
    }

    /// Its event types.
    pub const fn event_types(&self) -> &'static [EventTypeDescription] {
        self.event_types
    }

    /// The event type numbered `event_type`.
    pub const fn event_type(&self, event_type: EventType) -> Option<&'static EventTypeDescription> {
        let mut at = 0;
        while let Some((first, _)) = split_at_const(self.event_types, at) {
            if first.event_type.0 == event_type.0 {
                return Some(first);
            }
            at = at.saturating_add(1);
        }
        None
    }

    /// The fields of an event of this class whose header says `event_type` and `version`:
    /// what a reader decodes its data with. `None` for another version or an unknown type.
    pub const fn schema(
        &self,
        event_type: EventType,
        version: u16,
    ) -> Option<&'static [FieldSchema<&'static str>]> {
        if version != self.version {
            return None;
        }
        match self.event_type(event_type) {
            Some(description) => Some(description.fields),
            None => None,
        }
    }

    /// Checks the class and each of its event types, in order:
    /// - the class's name, each event type's and each field's is a MOF identifier ("a
    ///   letter or an underscore, followed by letters, digits or underscores", the MOF
    ///   grammar of DMTF DSP0221, which `mofcomp` takes for class and property names);
    /// - no two event types have one number or one name, and no two fields of an event type
    ///   one name (a MOF class has one property of a name; TDH looks an event type up by its
    ///   number);
    /// - each field is one of the MOF types a typed payload writes: 8- to 64-bit integers,
    ///   `FLOAT`, `DOUBLE`, the 4-byte `BOOLEAN`, `GUID`, `POINTER`, `FILETIME`, 8-bit and
    ///   UTF-16 strings NUL-terminated (`ANSI_STRING`, `UNICODE_STRING`) or counted
    ///   (`COUNTED_ANSI_STRING`, `COUNTED_STRING`), and `BINARY` of a fixed non-zero length;
    ///   one value each, no structure, no map;
    /// - the version is at most 255: `Class.Version` is two bytes in the header, but a
    ///   reader sees a classic event through an `EVENT_RECORD`, whose
    ///   `EventDescriptor.Version` is one byte (evntprov.h), and the `TRACE_EVENT_INFO` that
    ///   describes it has the same one-byte `Version`; TraceEvent and samply compare versions
    ///   there.
    ///
    /// [`ProviderDescription::check`] checks its classes so, and that each event type's
    /// description fits an event.
    ///
    /// # Errors
    /// The first problem found.
    pub const fn check(&self) -> Result<(), DescriptionError> {
        if !is_identifier(self.name) {
            return Err(DescriptionError::BadName {
                what: Named::Class,
                name: self.name,
            });
        }
        if self.version > 0xFF {
            return Err(DescriptionError::VersionTooLarge {
                class: self.name,
                version: self.version,
            });
        }
        let mut at = 0;
        while let Some((event_type, rest)) = split_at_const(self.event_types, at) {
            if !is_identifier(event_type.name) {
                return Err(DescriptionError::BadName {
                    what: Named::EventType,
                    name: event_type.name,
                });
            }
            let mut later = 0;
            while let Some((other, _)) = split_at_const(rest, later) {
                if other.event_type.0 == event_type.event_type.0 {
                    return Err(DescriptionError::DuplicateEventType {
                        class: self.name,
                        event_type: event_type.event_type,
                    });
                }
                if str_eq(other.name, event_type.name) {
                    return Err(DescriptionError::DuplicateEventTypeName {
                        class: self.name,
                        name: event_type.name,
                    });
                }
                later = later.saturating_add(1);
            }
            if let Err(error) = check_fields(event_type) {
                return Err(error);
            }
            at = at.saturating_add(1);
        }
        Ok(())
    }

    /// Checks that the `TRACE_EVENT_INFO` describing each event type, with the provider named
    /// `provider_name` ([`event_info_len`](Self::event_info_len)), fits the data of one event
    /// ([`MAX_EVENT_DATA_LEN`]): names too long for that format are refused here.
    const fn check_lengths(&self, provider_name: &str) -> Result<(), DescriptionError> {
        let mut at = 0;
        while let Some((event_type, _)) = split_at_const(self.event_types, at) {
            let len = self.event_info_len(provider_name, event_type);
            if len > MAX_EVENT_DATA_LEN {
                return Err(DescriptionError::TooLong {
                    event_type: event_type.name,
                    len,
                });
            }
            at = at.saturating_add(1);
        }
        Ok(())
    }
}

/// A classic provider: its GUID (the control GUID a session enables), its name (the MOF class
/// derived from `EventTrace`, the provider name readers show) and its event classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProviderDescription {
    guid: Guid,
    name: &'static str,
    classes: &'static [ClassDescription],
}

impl ProviderDescription {
    /// The provider `guid` called `name`, with `classes`.
    pub const fn new(guid: Guid, name: &'static str, classes: &'static [ClassDescription]) -> Self {
        Self {
            guid,
            name,
            classes,
        }
    }

    /// Its GUID.
    pub const fn guid(&self) -> Guid {
        self.guid
    }

    /// Its name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Its event classes.
    pub const fn classes(&self) -> &'static [ClassDescription] {
        self.classes
    }

    /// The class whose GUID is `guid`.
    pub const fn class(&self, guid: &Guid) -> Option<&'static ClassDescription> {
        let mut at = 0;
        while let Some((class, _)) = split_at_const(self.classes, at) {
            if guid_eq(&class.guid, guid) {
                return Some(class);
            }
            at = at.saturating_add(1);
        }
        None
    }

    /// The fields of an event whose header says class `guid`, `event_type` and `version`,
    /// as [`ClassDescription::schema`] finds them in the class of that GUID.
    pub const fn schema(
        &self,
        guid: &Guid,
        event_type: EventType,
        version: u16,
    ) -> Option<&'static [FieldSchema<&'static str>]> {
        match self.class(guid) {
            Some(class) => class.schema(event_type, version),
            None => None,
        }
    }

    /// Checks the provider: its name is a MOF identifier, no two classes have one GUID or one
    /// name, each class passes [`ClassDescription::check`], and the `TRACE_EVENT_INFO`
    /// describing each event type ([`ClassDescription::event_info_len`]) fits the data of one
    /// event ([`MAX_EVENT_DATA_LEN`]): names too long for that format are refused here.
    ///
    /// Meant for a constant, so that a mistake stops the build:
    /// ```
    /// use etw_classic::describe::{ClassDescription, ProviderDescription};
    /// use etw_classic::Guid;
    /// const BOOT: ProviderDescription = ProviderDescription::new(
    ///     Guid::from_fields(0x1234_5678, 1, 2, [3; 8]), "Boot", &[]);
    /// const _: () = assert!(BOOT.check().is_ok());
    /// ```
    ///
    /// # Errors
    /// The first problem found.
    pub const fn check(&self) -> Result<(), DescriptionError> {
        if !is_identifier(self.name) {
            return Err(DescriptionError::BadName {
                what: Named::Provider,
                name: self.name,
            });
        }
        let mut at = 0;
        while let Some((class, rest)) = split_at_const(self.classes, at) {
            let mut later = 0;
            while let Some((other, _)) = split_at_const(rest, later) {
                if guid_eq(&other.guid, &class.guid) {
                    return Err(DescriptionError::DuplicateClassGuid {
                        class: other.name,
                        guid: class.guid,
                    });
                }
                if str_eq(other.name, class.name) {
                    return Err(DescriptionError::DuplicateClassName { name: class.name });
                }
                later = later.saturating_add(1);
            }
            if let Err(error) = class.check() {
                return Err(error);
            }
            if let Err(error) = class.check_lengths(self.name) {
                return Err(error);
            }
            at = at.saturating_add(1);
        }
        Ok(())
    }
}

/// What a name in a description names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Named {
    /// The provider.
    Provider,
    /// An event class.
    Class,
    /// An event type.
    EventType,
    /// A field.
    Field,
}

/// A mistake in a description, found by [`ProviderDescription::check`] or
/// [`ClassDescription::check`] (in a `const`, at build time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DescriptionError {
    /// A name that is not a MOF identifier (empty, or a character other than an ASCII
    /// letter, digit or underscore, or a digit first).
    BadName {
        /// What it names.
        what: Named,
        /// The name.
        name: &'static str,
    },
    /// Two classes of a provider with one GUID.
    DuplicateClassGuid {
        /// The second class.
        class: &'static str,
        /// The GUID.
        guid: Guid,
    },
    /// A class's version above 255, which the one-byte `Version` of an `EVENT_DESCRIPTOR`
    /// cannot hold.
    VersionTooLarge {
        /// The class.
        class: &'static str,
        /// Its version.
        version: u16,
    },
    /// Two classes of a provider with one name.
    DuplicateClassName {
        /// The name.
        name: &'static str,
    },
    /// Two event types of a class with one number.
    DuplicateEventType {
        /// The class.
        class: &'static str,
        /// The number.
        event_type: EventType,
    },
    /// Two event types of a class with one name.
    DuplicateEventTypeName {
        /// The class.
        class: &'static str,
        /// The name.
        name: &'static str,
    },
    /// Two fields of an event type with one name.
    DuplicateField {
        /// The event type.
        event_type: &'static str,
        /// The field's name.
        field: &'static str,
    },
    /// A field whose type, count, length, members or map a typed payload does not write.
    UnsupportedField {
        /// The event type.
        event_type: &'static str,
        /// The field.
        field: &'static str,
        /// Its in-type.
        in_type: InType,
    },
    /// The `TRACE_EVENT_INFO` of an event type does not fit an event's data.
    TooLong {
        /// The event type.
        event_type: &'static str,
        /// Its `TRACE_EVENT_INFO`'s length.
        len: usize,
    },
}

impl DescriptionError {
    /// What went wrong, without the names: the message a `const` check can stop the build
    /// with (`panic!("{}", error.message())`; a constant's panic takes no other arguments).
    pub const fn message(&self) -> &'static str {
        match self {
            Self::BadName { .. } => {
                "a name in the description is not a MOF identifier (ASCII letters, digits, _; not a digit first)"
            }
            Self::DuplicateClassGuid { .. } => "two classes of the provider have one GUID",
            Self::DuplicateClassName { .. } => "two classes of the provider have one name",
            Self::VersionTooLarge { .. } => {
                "a class's version is above 255, more than an EVENT_DESCRIPTOR's one-byte Version holds"
            }
            Self::DuplicateEventType { .. } => "two event types of a class have one number",
            Self::DuplicateEventTypeName { .. } => "two event types of a class have one name",
            Self::DuplicateField { .. } => "two fields of an event type have one name",
            Self::UnsupportedField { .. } => {
                "a field is of a type, count, length, structure or map that typed payloads do not write"
            }
            Self::TooLong { .. } => {
                "an event type's TRACE_EVENT_INFO (its names and fields) is longer than an event's data can be (65487 bytes)"
            }
        }
    }
}

impl core::fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::BadName { what, name } => {
                let what = match what {
                    Named::Provider => "provider",
                    Named::Class => "class",
                    Named::EventType => "event type",
                    Named::Field => "field",
                };
                write!(
                    f,
                    "the {what} name {name:?} is not a MOF identifier: expected ASCII letters, digits and _, not a digit first"
                )
            }
            Self::DuplicateClassGuid { class, guid } => {
                write!(f, "class {class} has the GUID {guid} of an earlier class")
            }
            Self::DuplicateClassName { name } => write!(f, "two classes are named {name}"),
            Self::VersionTooLarge { class, version } => write!(
                f,
                "class {class}: version {version} is above 255, the most an EVENT_DESCRIPTOR's one-byte Version holds"
            ),
            Self::DuplicateEventType { class, event_type } => write!(
                f,
                "class {class}: two event types are numbered {}",
                event_type.0
            ),
            Self::DuplicateEventTypeName { class, name } => {
                write!(f, "class {class}: two event types are named {name}")
            }
            Self::DuplicateField { event_type, field } => {
                write!(f, "event type {event_type}: two fields are named {field}")
            }
            Self::UnsupportedField {
                event_type,
                field,
                in_type,
            } => write!(
                f,
                "event type {event_type}: field {field} ({in_type:?}) is not one value of a type typed payloads write (integers, floats, BOOLEAN, GUID, POINTER, FILETIME, strings, BINARY of a fixed length)"
            ),
            Self::TooLong { event_type, len } => write!(
                f,
                "event type {event_type}: its TRACE_EVENT_INFO takes {len} bytes, more than the {MAX_EVENT_DATA_LEN} of an event's data"
            ),
        }
    }
}

impl core::error::Error for DescriptionError {}

/// Checks the fields of `event_type`: names, duplicates, supported types.
const fn check_fields(event_type: &EventTypeDescription) -> Result<(), DescriptionError> {
    let mut at = 0;
    while let Some((field, rest)) = split_at_const(event_type.fields, at) {
        if !is_identifier(field.name) {
            return Err(DescriptionError::BadName {
                what: Named::Field,
                name: field.name,
            });
        }
        let mut later = 0;
        while let Some((other, _)) = split_at_const(rest, later) {
            if str_eq(other.name, field.name) {
                return Err(DescriptionError::DuplicateField {
                    event_type: event_type.name,
                    field: field.name,
                });
            }
            later = later.saturating_add(1);
        }
        if !is_supported(field) {
            return Err(DescriptionError::UnsupportedField {
                event_type: event_type.name,
                field: field.name,
                in_type: field.in_type,
            });
        }
        at = at.saturating_add(1);
    }
    Ok(())
}

/// Whether a typed payload writes `field` (see [`ClassDescription::check`]).
pub(crate) const fn is_supported(field: &FieldSchema<&str>) -> bool {
    let plain = matches!(field.count, Count::One) && field.members == 0 && field.map.is_none();
    let length_ok = match field.in_type {
        InType::BINARY => matches!(field.length, Length::Fixed(1..)),
        InType::INT8
        | InType::UINT8
        | InType::INT16
        | InType::UINT16
        | InType::INT32
        | InType::UINT32
        | InType::INT64
        | InType::UINT64
        | InType::FLOAT
        | InType::DOUBLE
        | InType::BOOLEAN
        | InType::GUID
        | InType::POINTER
        | InType::FILETIME
        | InType::ANSI_STRING
        | InType::UNICODE_STRING
        | InType::COUNTED_ANSI_STRING
        | InType::COUNTED_STRING => matches!(field.length, Length::Natural),
        _ => false,
    };
    plain && length_ok
}

/// The element at `at` of `items` and the elements after it, as `split_first` of
/// `items[at..]` gives them; `None` past the end. (`get` and ranges are not `const`.)
pub(crate) const fn split_at_const<T>(items: &[T], at: usize) -> Option<(&T, &[T])> {
    let mut rest = items;
    let mut skip = at;
    loop {
        match rest.split_first() {
            Some((first, after)) => {
                if skip == 0 {
                    return Some((first, after));
                }
                rest = after;
                skip = skip.saturating_sub(1);
            }
            None => return None,
        }
    }
}

/// Whether `name` is a MOF identifier: an ASCII letter or `_`, then letters, digits or `_`.
pub(crate) const fn is_identifier(name: &str) -> bool {
    let mut rest = name.as_bytes();
    let mut first = true;
    if rest.is_empty() {
        return false;
    }
    while let Some((&byte, after)) = rest.split_first() {
        let ok = byte.is_ascii_alphabetic() || byte == b'_' || (!first && byte.is_ascii_digit());
        if !ok {
            return false;
        }
        first = false;
        rest = after;
    }
    true
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.split_first(), b.split_first()) {
            (Some((x, a_rest)), Some((y, b_rest))) => {
                if *x != *y {
                    return false;
                }
                a = a_rest;
                b = b_rest;
            }
            (None, None) => return true,
            _ => return false,
        }
    }
}

const fn guid_eq(a: &Guid, b: &Guid) -> bool {
    let (a, b) = (a.to_bytes_le(), b.to_bytes_le());
    let mut at = 0;
    while at < 16 {
        if let (Some((x, _)), Some((y, _))) = (split_at_const(&a, at), split_at_const(&b, at)) {
            if *x != *y {
                return false;
            }
        }
        at = at.saturating_add(1);
    }
    true
}
