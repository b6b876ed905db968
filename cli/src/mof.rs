//! `etwc mof`: the `.mof` of the classic event types an .etl file describes in-band, and the
//! descriptions `etwc assemble --describe` writes into an .etl file from a `.mof`.
//!
//! Both go through one model, [`Described`] (one event type: provider, class, version, event
//! type, names and fields), and the library's writers: `etw_classic::describe::mof` writes
//! the `.mof` text, [`EventInfoParts::write`] the `TRACE_EVENT_INFO` bytes, the same code that
//! writes them on a target from a `const` description.
//!
//! In: `MetaData/EventInfo` events whose `DecodingSource` is 1 (WMI MOF), read with the
//! library's `EventInfo` reader; the others (manifest-based descriptions, as Windows writes
//! them into merged traces) describe no classic event type and are counted, not written. Or a
//! `.mof` read by `etw_classic_decode::mof::parse_mof`.

use std::path::{Path, PathBuf};

use etw_classic::describe::mof::{
    write_event_class, write_event_type_class, write_namespace, write_provider_class, MofWriteError,
};
use etw_classic::describe::EventInfoParts;
use etw_classic::payload::{
    Count, EventInfo, FieldSchema, InType, Length, OutType, Utf16Name, EVENT_INFO_TYPE,
    METADATA_GUID,
};
use etw_classic::{EtlReader, EventType, Guid};
use etw_classic_decode::facts::{Facts, Source};
use etw_classic_decode::mof::parse_mof;

/// `etwc mof`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The .etl file whose MetaData/EventInfo events describe classic event types
    pub file: PathBuf,
}

/// One classic event type, as a description gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Described {
    /// The provider's GUID.
    pub provider_guid: Guid,
    /// The provider's name.
    pub provider_name: String,
    /// The event class's GUID, the `Guid` of its events' headers.
    pub class_guid: Guid,
    /// The event class's name (the task name).
    pub class_name: String,
    /// `Class.Version` of its events.
    pub version: u16,
    /// `Class.Type` of its events.
    pub event_type: u8,
    /// The event type's name (the opcode name).
    pub event_type_name: String,
    /// The fields, in data order.
    pub fields: Vec<FieldSchema<String>>,
}

impl Described {
    /// The fields with borrowed names, as the library's writers take them.
    fn borrowed_fields(&self) -> Vec<FieldSchema<&str>> {
        self.fields
            .iter()
            .map(|field| field.clone().map_names(|_| ""))
            .zip(&self.fields)
            .map(|(field, named)| {
                let mut field = field;
                field.name = named.name.as_str();
                field.map = named.map.as_deref();
                field
            })
            .collect()
    }

    /// The `TRACE_EVENT_INFO` that describes it (`DecodingSource` 1), laid out by the library.
    ///
    /// # Errors
    /// What [`EventInfoParts::write`] refuses, with the event type named.
    pub fn event_info(&self) -> Result<Vec<u8>, String> {
        let fields = self.borrowed_fields();
        let parts = EventInfoParts {
            provider_guid: self.provider_guid,
            provider_name: &self.provider_name,
            class_guid: self.class_guid,
            class_name: &self.class_name,
            version: self.version,
            event_type: EventType(self.event_type),
            event_type_name: &self.event_type_name,
            fields: &fields,
        };
        let mut out = vec![0; parts.byte_len()];
        parts
            .write(&mut out)
            .map_err(|error| format!("{}: {error}", self.name()))?;
        Ok(out)
    }

    /// `Provider/Class/EventType`, for messages.
    pub fn name(&self) -> String {
        format!(
            "{}/{}/{} (class {} type {} version {})",
            self.provider_name,
            self.class_name,
            self.event_type_name,
            self.class_guid,
            self.event_type,
            self.version
        )
    }
}

/// The classic event types the `MetaData/EventInfo` events of the .etl file at `path`
/// describe, in the order of the file (the first description of a class, type and version
/// kept), and how many descriptions were not of a classic event type.
///
/// # Errors
/// A file or buffer that cannot be read; a description that cannot be read, with where it is.
pub fn from_trace(path: &Path) -> Result<(Vec<Described>, u64), String> {
    let name = path.display().to_string();
    let mut reader = EtlReader::open(path).map_err(|error| format!("{name}: {error}"))?;
    let mut described: Vec<Described> = Vec::new();
    let mut not_classic = 0u64;
    while let Some(buffer) = reader.next_buffer() {
        let buffer = buffer.map_err(|error| format!("{name}: {error}"))?;
        let position = buffer.position;
        for event in buffer.events() {
            let event = event.map_err(|error| format!("{name}: {error}"))?;
            let facts = Facts::of(&event);
            let is_event_info = facts.source == Some(Source::Provider(METADATA_GUID))
                && facts.classic_type.is_some()
                && facts.opcode == Some(EVENT_INFO_TYPE);
            if !is_event_info {
                continue;
            }
            let place = || {
                format!(
                    "{name}: buffer {} (file offset {:#x}) event offset {:#x}",
                    position.index, position.file_offset, event.offset
                )
            };
            let data = facts.payload.unwrap_or_default();
            let info = EventInfo::parse(data)
                .map_err(|error| format!("{}: MetaData/EventInfo: {error}", place()))?;
            if !info.is_classic() {
                not_classic += 1;
                continue;
            }
            let item = from_event_info(&info)
                .map_err(|error| format!("{}: MetaData/EventInfo: {error}", place()))?;
            let known = described.iter().any(|other| {
                (other.class_guid, other.event_type, other.version)
                    == (item.class_guid, item.event_type, item.version)
            });
            if !known {
                described.push(item);
            }
        }
    }
    Ok((described, not_classic))
}

/// A classic description read by the library's `EventInfo` reader.
fn from_event_info(info: &EventInfo<'_>) -> Result<Described, String> {
    let text = |name: Option<Utf16Name<'_>>, member: &str| {
        name.map(|name| name.to_string())
            .filter(|name| !name.is_empty())
            .ok_or_else(|| format!("no {member}"))
    };
    let capacity = usize::try_from(info.property_count).unwrap_or(0);
    let mut buffer = vec![FieldSchema::new(Utf16Name::EMPTY, InType::NULL); capacity];
    let fields = info
        .collect_fields(&mut buffer)
        .map_err(|error| error.to_string())?;
    Ok(Described {
        provider_guid: info.provider_guid,
        provider_name: text(info.provider_name, "ProviderNameOffset")?,
        class_guid: info.event_guid,
        class_name: text(info.task_name, "TaskNameOffset")?,
        version: u16::from(info.descriptor.version),
        event_type: info.descriptor.opcode,
        event_type_name: text(info.opcode_name, "OpcodeNameOffset")?,
        fields: fields
            .iter()
            .map(|field| field.map_names(|name| name.to_string()))
            .collect(),
    })
}

/// The event types a `.mof` file describes, read by decode's MOF reader: each event type of
/// each event class with its provider's GUID (the provider class derived from `EventTrace`
/// whose name the schema gives). A class without `EventVersion` is version 0.
///
/// # Errors
/// A file that cannot be read or parsed; an event type whose provider has no `Guid`.
pub fn from_mof(path: &Path) -> Result<Vec<Described>, String> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("cannot read {name}: {error}"))?;
    let mof = parse_mof(&text, &name).map_err(|error| error.to_string())?;
    let mut described = Vec::new();
    for (key, event) in &mof.events {
        let schema = &event.schema;
        let provider_name = schema.provider_name.as_deref().unwrap_or_default();
        let provider = mof
            .providers
            .iter()
            .find(|provider| &*provider.name == provider_name);
        let Some(provider_guid) = provider.and_then(|provider| provider.guid) else {
            return Err(format!(
                "{name}: line {}: class {}: its provider class {provider_name:?} has no Guid \
                 qualifier, which the description's ProviderGuid needs",
                event.line, event.class_name
            ));
        };
        let class_name = schema
            .task_name
            .as_deref()
            .unwrap_or(&event.event_class)
            .to_owned();
        let event_type_name = schema.opcode_name.as_deref().ok_or_else(|| {
            format!(
                "{name}: line {}: class {}: event type {} has no EventTypeName",
                event.line, event.class_name, key.event_type
            )
        })?;
        described.push(Described {
            provider_guid,
            provider_name: provider_name.to_owned(),
            class_guid: key.guid,
            class_name,
            version: key.version.unwrap_or(0),
            event_type: key.event_type,
            event_type_name: event_type_name.to_owned(),
            fields: schema
                .fields
                .iter()
                .map(|field| binary_of_bytes(field.clone().map_names(|name| name.to_string())))
                .collect(),
        });
    }
    Ok(described)
}

/// A `uint8` array of a fixed size is how a `.mof` declares fixed-size binary (it has no
/// binary type; `etw_classic::describe::mof` writes `BINARY` of `N` bytes as `uint8 Name[N]`):
/// read back as `BINARY` of that length, what the description it came from said.
fn binary_of_bytes(field: FieldSchema<String>) -> FieldSchema<String> {
    match (field.in_type, field.count, field.length, &field.map) {
        (InType::UINT8, Count::Fixed(len), Length::Natural, None)
            if field.out_type == OutType::NULL && field.members == 0 =>
        {
            let mut binary =
                FieldSchema::new(field.name, InType::BINARY).with_length(Length::Fixed(len));
            binary.tags = field.tags;
            binary
        }
        _ => field,
    }
}

/// Writes the `.mof` of `described` to `out`: the namespace, then each provider's class, its
/// event classes (one per class GUID and version) and their event-type classes, in the order
/// first met.
///
/// # Errors
/// A field the library declares no MOF for, or a class name used by two classes; `out`
/// failing.
pub fn write_mof(described: &[Described], out: &mut String) -> Result<(), String> {
    let failed = |item: &Described, error: MofWriteError| format!("{}: {error}", item.name());
    let fmt_failed = |_| "cannot format the .mof".to_owned();
    write_namespace(out).map_err(fmt_failed)?;
    let mut providers: Vec<Guid> = Vec::new();
    for item in described {
        if providers.contains(&item.provider_guid) {
            continue;
        }
        providers.push(item.provider_guid);
        write_provider_class(out, item.provider_guid, &item.provider_name).map_err(fmt_failed)?;
        let mut classes: Vec<(Guid, u16, &str)> = Vec::new();
        for class in described
            .iter()
            .filter(|other| other.provider_guid == item.provider_guid)
        {
            let key = (class.class_guid, class.version, class.class_name.as_str());
            if classes.contains(&key) {
                continue;
            }
            if let Some(clash) = classes.iter().find(|(_, _, name)| *name == key.2) {
                return Err(format!(
                    "{}: the class name {} is also that of class {} version {}: a .mof has \
                     one class of a name",
                    class.name(),
                    key.2,
                    clash.0,
                    clash.1
                ));
            }
            classes.push(key);
            write_event_class(
                out,
                &item.provider_name,
                class.class_guid,
                &class.class_name,
                class.version,
            )
            .map_err(fmt_failed)?;
            for event_type in described.iter().filter(|other| {
                (other.class_guid, other.version) == (class.class_guid, class.version)
            }) {
                write_event_type_class(
                    out,
                    &event_type.class_name,
                    EventType(event_type.event_type),
                    &event_type.event_type_name,
                    &event_type.borrowed_fields(),
                )
                .map_err(|error| failed(event_type, error))?;
            }
        }
    }
    Ok(())
}

/// Prints the `.mof` of the classic event types `args.file` describes.
///
/// # Errors
/// The file cannot be read, describes no classic event type, or one that a `.mof` cannot
/// declare; the output cannot be written.
pub fn run(args: &Args) -> Result<(), String> {
    let (described, not_classic) = from_trace(&args.file)?;
    if described.is_empty() {
        return Err(format!(
            "{}: no MetaData/EventInfo event describes a classic (WMI MOF) event type{}",
            args.file.display(),
            if not_classic > 0 {
                format!(" ({not_classic} describe manifest or other events)")
            } else {
                String::new()
            }
        ));
    }
    let mut text = String::new();
    write_mof(&described, &mut text)?;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(crate::output_error)
}
