//! The `.mof` text Microsoft documents for a classic provider ("Publishing Your Event Schema
//! for a Classic Provider", "Event Tracing MOF Qualifiers", learn.microsoft.com; PAYLOADS.md
//! §5), written from a description, for `mofcomp` on the machine that decodes:
//!
//! ```text
//! #pragma namespace("\\\\.\\root\\wmi")
//!
//! [dynamic: ToInstance, DisplayName("Boot"), Guid("{…}")]
//! class Boot : EventTrace                          the provider class
//! {
//! };
//!
//! [dynamic: ToInstance, DisplayName("Stage"), Guid("{…}"), EventVersion(1)]
//! class Stage : Boot                               an event class: Guid and EventVersion
//! {                                                of its events' headers
//! };
//!
//! [dynamic: ToInstance, EventType(1), EventTypeName("Start")]
//! class Stage_Start : Stage                        one event-type class per event type
//! {
//!     [WmiDataId(1), read] uint32 Stage;           each field in data order
//! };
//! ```
//!
//! A field is declared by its in-type ([`field_declaration`]): integers as `uint8` … `sint64`,
//! `real32`/`real64`, `boolean` (4 bytes in event tracing), `object` with `extension("Guid")`,
//! `uint32` with `pointer` (4 or 8 bytes by the event's pointer size), `datetime` (a
//! FILETIME), `string` with `StringTermination("NullTerminated")` or `("Counted")` and
//! `format("w")` for UTF-16, and `uint8 Name[N]` for `N` bytes of binary.
//!
//! Written through [`core::fmt::Write`], with no allocation.

use core::fmt::{self, Write};

use crate::describe::description::{is_supported, ProviderDescription};
use crate::payload::schema::{FieldSchema, Length};
use crate::payload::types::InType;
use crate::wire::codes::EventType;
use crate::wire::guid::Guid;

/// Why a `.mof` was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum MofWriteError {
    /// The writer failed.
    Write,
    /// The field at this index of an event type is not one a typed payload writes (see
    /// [`ClassDescription::check`](crate::describe::ClassDescription::check)): no
    /// declaration is written for it.
    UnsupportedField(usize),
}

impl From<fmt::Error> for MofWriteError {
    fn from(_: fmt::Error) -> Self {
        Self::Write
    }
}

impl fmt::Display for MofWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Write => write!(f, "the output could not be written"),
            Self::UnsupportedField(index) => write!(
                f,
                "field {index} is not one value of an integer, float, BOOLEAN, GUID, POINTER, FILETIME, string or fixed-length BINARY type"
            ),
        }
    }
}

impl core::error::Error for MofWriteError {}

/// Writes the `.mof` of `provider`: the namespace pragma, its provider class, and for each
/// class its event class and its event-type classes.
///
/// # Errors
/// [`MofWriteError::Write`] when `out` fails. (A description that passed
/// [`ProviderDescription::check`] has only fields a `.mof` declares.)
pub fn write_mof(
    provider: &ProviderDescription,
    out: &mut impl Write,
) -> Result<(), MofWriteError> {
    write_namespace(out)?;
    write_provider_class(out, provider.guid(), provider.name())?;
    for class in provider.classes() {
        write_event_class(
            out,
            provider.name(),
            class.guid(),
            class.name(),
            class.version(),
        )?;
        for event_type in class.event_types() {
            write_event_type_class(
                out,
                class.name(),
                event_type.event_type(),
                event_type.name(),
                event_type.fields(),
            )?;
        }
    }
    Ok(())
}

/// `#pragma namespace("\\\\.\\root\\wmi")`: "the namespace for the MOF classes of event
/// tracing" (Publishing Your Event Schema for a Classic Provider).
///
/// # Errors
/// When `out` fails.
pub fn write_namespace(out: &mut impl Write) -> fmt::Result {
    out.write_str("#pragma namespace(\"\\\\\\\\.\\\\root\\\\wmi\")\n")
}

/// The provider class `name`, derived from `EventTrace`, with the provider's GUID.
///
/// # Errors
/// When `out` fails.
pub fn write_provider_class(out: &mut impl Write, guid: Guid, name: &str) -> fmt::Result {
    write!(
        out,
        "\n[dynamic: ToInstance, DisplayName(\"{name}\"), Guid(\"{{{guid}}}\")]\nclass {name} : EventTrace\n{{\n}};\n"
    )
}

/// The event class `name` of `version`, derived from the provider class `provider`, with the
/// class's GUID (the `Guid` of its events' headers) and `EventVersion` (their
/// `Class.Version`).
///
/// # Errors
/// When `out` fails.
pub fn write_event_class(
    out: &mut impl Write,
    provider: &str,
    guid: Guid,
    name: &str,
    version: u16,
) -> fmt::Result {
    write!(
        out,
        "\n[dynamic: ToInstance, DisplayName(\"{name}\"), Guid(\"{{{guid}}}\"), EventVersion({version})]\nclass {name} : {provider}\n{{\n}};\n"
    )
}

/// The event-type class `<class>_<name>` of the event class `class`: `EventType` and
/// `EventTypeName`, then each field with its `WmiDataId` (1, 2, … in data order).
///
/// # Errors
/// [`MofWriteError::UnsupportedField`] for a field [`field_declaration`] has none for
/// (nothing is written then); [`MofWriteError::Write`] when `out` fails.
pub fn write_event_type_class(
    out: &mut impl Write,
    class: &str,
    event_type: EventType,
    name: &str,
    fields: &[FieldSchema<&str>],
) -> Result<(), MofWriteError> {
    if let Some(index) = fields
        .iter()
        .position(|field| field_declaration(field).is_none())
    {
        return Err(MofWriteError::UnsupportedField(index));
    }
    write!(
        out,
        "\n[dynamic: ToInstance, EventType({}), EventTypeName(\"{name}\")]\nclass {class}_{name} : {class}\n{{\n",
        event_type.0
    )?;
    for (id, field) in (1u32..).zip(fields) {
        if let Some(declaration) = field_declaration(field) {
            write!(out, "    [WmiDataId({id}), read")?;
            for qualifier in declaration.qualifiers.iter().flatten() {
                write!(out, ", {qualifier}")?;
            }
            write!(out, "] {} {}", declaration.mof_type, field.name)?;
            if let Some(len) = declaration.array {
                write!(out, "[{len}]")?;
            }
            out.write_str(";\n")?;
        }
    }
    out.write_str("};\n")?;
    Ok(())
}

/// How a field is declared in a `.mof`: its MOF type, its qualifiers besides `WmiDataId` and
/// `read`, and an array length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldDeclaration {
    /// The MOF type: `uint32`, `string`, `object`, ...
    pub mof_type: &'static str,
    /// Up to two qualifiers (`pointer`, `extension("Guid")`,
    /// `StringTermination("Counted")`, `format("w")`).
    pub qualifiers: [Option<&'static str>; 2],
    /// `[N]` after the name, for `N` bytes of binary.
    pub array: Option<u16>,
}

const fn plain(mof_type: &'static str) -> FieldDeclaration {
    FieldDeclaration {
        mof_type,
        qualifiers: [None, None],
        array: None,
    }
}

const fn string(qualifiers: [Option<&'static str>; 2]) -> FieldDeclaration {
    FieldDeclaration {
        mof_type: "string",
        qualifiers,
        array: None,
    }
}

/// The declaration of `field` (see the module's table); `None` for a field a typed payload
/// does not write.
pub const fn field_declaration(field: &FieldSchema<&str>) -> Option<FieldDeclaration> {
    if !is_supported(field) {
        return None;
    }
    const NULL_TERMINATED: Option<&str> = Some("StringTermination(\"NullTerminated\")");
    const COUNTED: Option<&str> = Some("StringTermination(\"Counted\")");
    const WIDE: Option<&str> = Some("format(\"w\")");
    let declaration = match field.in_type {
        InType::INT8 => plain("sint8"),
        InType::UINT8 => plain("uint8"),
        InType::INT16 => plain("sint16"),
        InType::UINT16 => plain("uint16"),
        InType::INT32 => plain("sint32"),
        InType::UINT32 => plain("uint32"),
        InType::INT64 => plain("sint64"),
        InType::UINT64 => plain("uint64"),
        InType::FLOAT => plain("real32"),
        InType::DOUBLE => plain("real64"),
        InType::BOOLEAN => plain("boolean"),
        InType::FILETIME => plain("datetime"),
        InType::GUID => FieldDeclaration {
            mof_type: "object",
            qualifiers: [Some("extension(\"Guid\")"), None],
            array: None,
        },
        InType::POINTER => FieldDeclaration {
            mof_type: "uint32",
            qualifiers: [Some("pointer"), None],
            array: None,
        },
        InType::ANSI_STRING => string([NULL_TERMINATED, None]),
        InType::UNICODE_STRING => string([NULL_TERMINATED, WIDE]),
        InType::COUNTED_ANSI_STRING => string([COUNTED, None]),
        InType::COUNTED_STRING => string([COUNTED, WIDE]),
        InType::BINARY => match field.length {
            Length::Fixed(len) => FieldDeclaration {
                mof_type: "uint8",
                qualifiers: [None, None],
                array: Some(len),
            },
            _ => return None,
        },
        _ => return None,
    };
    Some(declaration)
}
