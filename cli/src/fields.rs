//! The JSON form of every layout: SDK member names in snake_case, unions flattened. The
//! headers an .etl file holds are described by `etw_classic_decode::headers` (the JSON lines of
//! `etwc etl` use the same); this module adds the layouts only `etwc decode` shows and encodes
//! JSON back to bytes.
//!
//! Decoding writes every view of every union; encoding takes back what decoding writes: of each
//! union it encodes the first view given (in the order decoding writes them) and checks the keys
//! of the other views given against the bytes written, so that `decode --json` then `encode`
//! gives the same bytes and views that disagree are an error naming the key and both values.
//! Encoding treats missing keys as zero and rejects unknown keys, out-of-range numbers and
//! malformed GUIDs with a message naming the key. Shared by `etwc` and the library's
//! golden-vector tests (`tests/golden_vectors.rs`).

use std::collections::BTreeSet;
use std::fmt;

use etw_classic::{
    wire::{
        EventInstanceInfo32, EventInstanceInfo64, LogInstance, SystemTime, TimeZoneInformation,
        TraceLogfileHeader32, TraceLogfileHeader64, VersionDetail,
    },
    Bitness, BufferContext, Class, ClockType, EventInstanceGuidHeader, EventInstanceHeader,
    EventInstanceInfo, EventTrace, EventTraceHeader, EventType, Guid, GuidOrPtr, HeaderType, Level,
    MarkerFlags, MofField, SystemTraceHeader, TimesOrFlags, TraceLogfileHeader, WnodeFlags,
};
use etw_classic_decode::headers;
use etw_classic_decode::sink::{to_map, Sink};
use serde_json::{json, Map, Value};

/// The layouts the tool knows. A struct with a 32-bit and a 64-bit layout is one variant with
/// the [`Bitness`], decoded and encoded by one piece of code through the library's
/// bitness-generic type (`EventTrace`, `EventInstanceInfo`, `TraceLogfileHeader`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CliLayout {
    TraceHeader,
    InstanceHeader,
    InstanceGuidHeader,
    EventTrace(Bitness),
    InstanceInfo(Bitness),
    MofField,
    SystemHeader,
    LogfileHeader(Bitness),
}

impl CliLayout {
    /// Every layout, in the order the command line lists them.
    pub const ALL: [Self; 11] = [
        Self::TraceHeader,
        Self::InstanceHeader,
        Self::InstanceGuidHeader,
        Self::EventTrace(Bitness::Bits32),
        Self::EventTrace(Bitness::Bits64),
        Self::InstanceInfo(Bitness::Bits32),
        Self::InstanceInfo(Bitness::Bits64),
        Self::MofField,
        Self::SystemHeader,
        Self::LogfileHeader(Bitness::Bits32),
        Self::LogfileHeader(Bitness::Bits64),
    ];

    /// The name on the command line (and in messages).
    pub fn name(self) -> &'static str {
        use Bitness::{Bits32, Bits64};
        match self {
            Self::TraceHeader => "trace-header",
            Self::InstanceHeader => "instance-header",
            Self::InstanceGuidHeader => "instance-guid-header",
            Self::EventTrace(Bits32) => "event-trace32",
            Self::EventTrace(Bits64) => "event-trace64",
            Self::InstanceInfo(Bits32) => "instance-info32",
            Self::InstanceInfo(Bits64) => "instance-info64",
            Self::MofField => "mof-field",
            Self::SystemHeader => "system-header",
            Self::LogfileHeader(Bits32) => "logfile-header32",
            Self::LogfileHeader(Bits64) => "logfile-header64",
        }
    }

    /// The struct's length in bytes.
    pub fn len(self) -> usize {
        match self {
            Self::TraceHeader => EventTraceHeader::LEN,
            Self::InstanceHeader => EventInstanceHeader::LEN,
            Self::InstanceGuidHeader => EventInstanceGuidHeader::LEN,
            Self::EventTrace(_) => EventTrace::LEN,
            Self::InstanceInfo(Bitness::Bits32) => EventInstanceInfo32::LEN,
            Self::InstanceInfo(Bitness::Bits64) => EventInstanceInfo64::LEN,
            Self::MofField => MofField::LEN,
            Self::SystemHeader => SystemTraceHeader::LEN,
            Self::LogfileHeader(Bitness::Bits32) => TraceLogfileHeader32::LEN,
            Self::LogfileHeader(Bitness::Bits64) => TraceLogfileHeader64::LEN,
        }
    }
}

/// A problem with the JSON given to [`encode`], naming the key it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError(pub String);

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FieldError {}

fn fail<T>(message: impl Into<String>) -> Result<T, FieldError> {
    Err(FieldError(message.into()))
}

// ----------------------------------------------------------------------------------------------
// Decoding: struct -> JSON object with every view.

/// Decodes the first `layout.len()` bytes of `bytes` whatever they hold: only the length is
/// checked, so that any header can be looked at (the caller runs the wire checks separately).
/// The error is the library's message for input that is too short.
pub fn decode(layout: CliLayout, bytes: &[u8]) -> Result<Map<String, Value>, String> {
    Ok(match layout {
        CliLayout::TraceHeader => trace_header_json(&EventTraceHeader::from_bytes(prefix(
            bytes,
            EventTraceHeader::parse,
        )?)),
        CliLayout::InstanceHeader => {
            instance_header_json(&EventInstanceHeader::parse(bytes).map_err(text)?.0)
        }
        CliLayout::InstanceGuidHeader => instance_guid_header_json(
            &EventInstanceGuidHeader::from_bytes(prefix(bytes, EventInstanceGuidHeader::parse)?),
        ),
        CliLayout::EventTrace(bitness) => {
            event_trace_json(&EventTrace::parse(bytes, bitness).map_err(text)?.0)
        }
        CliLayout::InstanceInfo(bitness) => {
            instance_info_json(EventInstanceInfo::parse(bytes, bitness).map_err(text)?.0)
        }
        CliLayout::MofField => {
            let field = MofField::parse(bytes).map_err(text)?.0;
            object([
                ("data_ptr", json!(field.data_ptr)),
                ("length", json!(field.length)),
                ("data_type", json!(field.data_type)),
            ])
        }
        CliLayout::SystemHeader => system_header_json(&SystemTraceHeader::from_bytes(prefix(
            bytes,
            SystemTraceHeader::parse,
        )?)),
        CliLayout::LogfileHeader(bitness) => {
            logfile_header_json(&TraceLogfileHeader::parse(bytes, bitness).map_err(text)?.0)
        }
    })
}

/// `SYSTEM_TRACE_HEADER` as a map ([`headers::system_header`]).
pub fn system_header_json(header: &SystemTraceHeader) -> Map<String, Value> {
    to_map(|sink| headers::system_header(sink, header))
}

/// `TRACE_LOGFILE_HEADER` in either layout as a map ([`headers::logfile_header`]).
pub fn logfile_header_json(header: &TraceLogfileHeader) -> Map<String, Value> {
    to_map(|sink| headers::logfile_header(sink, header))
}

/// `EVENT_INSTANCE_INFO` in either layout (`RegHandle` widened to 64 bits).
fn instance_info_json(info: EventInstanceInfo) -> Map<String, Value> {
    object([
        ("reg_handle", json!(info.reg_handle())),
        ("instance_id", json!(info.instance_id())),
    ])
}

/// The first `N` bytes of a wire header whose `parse` also makes the wire checks: when there are
/// fewer, the error is the one `parse` gives for them, the library's message about the length.
fn prefix<'b, const N: usize, T, E: fmt::Display>(
    bytes: &'b [u8],
    parse: impl FnOnce(&'b [u8]) -> Result<T, E>,
) -> Result<&'b [u8; N], String> {
    bytes.first_chunk::<N>().ok_or_else(|| match parse(bytes) {
        Err(error) => error.to_string(),
        Ok(_) => format!("expected {N} bytes, found {}", bytes.len()),
    })
}

/// A library error as the message the tool prints.
fn text(error: impl fmt::Display) -> String {
    error.to_string()
}

fn object<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

/// `EVENT_TRACE_HEADER` as a map ([`headers::trace_header`]).
pub fn trace_header_json(header: &EventTraceHeader) -> Map<String, Value> {
    to_map(|sink| headers::trace_header(sink, header))
}

/// `EVENT_INSTANCE_HEADER`: the classic members, `RegHandle` and the instance ids, every view
/// of the CPU-time union, `ParentRegHandle`.
fn instance_header_json(header: &EventInstanceHeader) -> Map<String, Value> {
    to_map(|sink| {
        headers::classic_common(
            sink,
            header.size,
            header.header_type,
            header.marker_flags,
            header.class,
            header.thread_id,
            header.process_id,
            header.timestamp,
        );
        sink.put_u64("reg_handle", header.reg_handle);
        sink.put_u64("instance_id", header.instance_id.into());
        sink.put_u64("parent_instance_id", header.parent_instance_id.into());
        let times = header.times;
        sink.put_u64("kernel_time", times.kernel_time().into());
        sink.put_u64("user_time", times.user_time().into());
        sink.put_u64("processor_time", times.processor_time());
        sink.put_u64("event_id", times.event_id().into());
        sink.put_u64("flags", times.flags().0.into());
        sink.put_u64("parent_reg_handle", header.parent_reg_handle);
    })
}

/// `EVENT_INSTANCE_GUID_HEADER` as a map ([`headers::instance_guid_header`]).
pub fn instance_guid_header_json(header: &EventInstanceGuidHeader) -> Map<String, Value> {
    to_map(|sink| headers::instance_guid_header(sink, header))
}

/// `EVENT_TRACE` in either layout (`MofData` widened to 64 bits), the embedded header nested.
fn event_trace_json(trace: &EventTrace) -> Map<String, Value> {
    let first = trace.instance_header();
    let context = trace.buffer_context();
    object([
        ("header", Value::Object(trace_header_json(&first.header))),
        ("instance_id", json!(first.instance_id)),
        ("parent_instance_id", json!(first.parent_instance_id)),
        ("parent_guid", json!(first.parent_guid.to_string())),
        ("mof_data", json!(trace.mof_data())),
        ("mof_length", json!(trace.mof_length())),
        ("client_context", json!(context.client_context())),
        ("processor_number", json!(context.processor_number())),
        ("alignment", json!(context.alignment())),
        ("logger_id", json!(context.logger_id())),
    ])
}

// ----------------------------------------------------------------------------------------------
// Encoding: JSON object -> struct, one view per union.

/// Reads keys off a JSON object, remembering which were used so that leftovers are reported.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    context: &'a str,
    used: BTreeSet<&'a str>,
    /// The keys of the views of a union other than the one encoded, given too: each is checked
    /// against the bytes written ([`check_other_views`]).
    others: Vec<OtherView<'a>>,
}

/// A key of a union's view that was given beside the view encoded.
struct OtherView<'a> {
    /// The nested object holding it (`header` of `EVENT_TRACE`), or `None` at the top.
    within: Option<&'a str>,
    context: &'a str,
    union: &'a str,
    /// The keys of the view encoded, `/` between them.
    encoded: String,
    key: &'a str,
    given: &'a Value,
}

impl<'a> Fields<'a> {
    fn new(value: &'a Value, context: &'a str) -> Result<Self, FieldError> {
        match value {
            Value::Object(object) => Ok(Self {
                object,
                context,
                used: BTreeSet::new(),
                others: Vec::new(),
            }),
            other => fail(format!(
                "{context}: expected a JSON object, found {}",
                kind(other)
            )),
        }
    }

    /// Which of a union's views is encoded: the first (in the order `decode` prints them) the
    /// object has keys of, `None` when it names none. The keys of the others it has are what
    /// `decode` prints beside it: they are read off and checked against the bytes written.
    fn view(&mut self, union: &'a str, views: &[&[&'a str]]) -> Option<usize> {
        let object = self.object;
        let mut present = views
            .iter()
            .enumerate()
            .filter(|(_, keys)| keys.iter().any(|key| object.contains_key(*key)));
        let (chosen, chosen_keys) = present.next()?;
        let encoded = chosen_keys
            .iter()
            .map(|key| format!("`{key}`"))
            .collect::<Vec<_>>()
            .join("/");
        for (_, keys) in present {
            for &key in *keys {
                if let Some(given) = self.object.get(key) {
                    self.used.insert(key);
                    self.others.push(OtherView {
                        within: None,
                        context: self.context,
                        union,
                        encoded: encoded.clone(),
                        key,
                        given,
                    });
                }
            }
        }
        Some(chosen)
    }

    fn number(&mut self, key: &'a str) -> Result<Option<&'a serde_json::Number>, FieldError> {
        self.used.insert(key);
        match self.object.get(key) {
            None => Ok(None),
            Some(Value::Number(number)) => Ok(Some(number)),
            Some(other) => fail(format!(
                "{}: `{key}` must be a number, found {}",
                self.context,
                kind(other)
            )),
        }
    }

    fn unsigned<T: TryFrom<u64>>(&mut self, key: &'a str) -> Result<T, FieldError> {
        let context = self.context;
        let Some(number) = self.number(key)? else {
            return T::try_from(0).map_err(|_| FieldError("zero does not fit".into()));
        };
        let max = std::any::type_name::<T>();
        number
            .as_u64()
            .and_then(|value| T::try_from(value).ok())
            .ok_or_else(|| {
                FieldError(format!(
                    "{context}: `{key}` must be an integer that fits {max}, found {number}"
                ))
            })
    }

    /// A pointer or `HANDLE` of the given width, widened to 64 bits: a 32-bit one must fit `u32`.
    fn pointer(&mut self, key: &'a str, bitness: Bitness) -> Result<u64, FieldError> {
        match bitness {
            Bitness::Bits32 => self.unsigned::<u32>(key).map(u64::from),
            Bitness::Bits64 => self.unsigned(key),
        }
    }

    fn signed(&mut self, key: &'a str) -> Result<i64, FieldError> {
        let context = self.context;
        let Some(number) = self.number(key)? else {
            return Ok(0);
        };
        number.as_i64().ok_or_else(|| {
            FieldError(format!(
                "{context}: `{key}` must be an integer that fits i64, found {number}"
            ))
        })
    }

    /// A signed integer that must fit `T` (`LONG` members: `i32`).
    fn signed_as<T: TryFrom<i64>>(&mut self, key: &'a str) -> Result<T, FieldError> {
        let context = self.context;
        let value = self.signed(key)?;
        let max = std::any::type_name::<T>();
        T::try_from(value).map_err(|_| {
            FieldError(format!(
                "{context}: `{key}` must be an integer that fits {max}, found {value}"
            ))
        })
    }

    /// A `WCHAR[32]` name: an array of at most 32 UTF-16 code units, zero-filled.
    fn units(&mut self, key: &'a str) -> Result<[u16; 32], FieldError> {
        self.used.insert(key);
        let context = self.context;
        let mut units = [0u16; 32];
        let Some(value) = self.object.get(key) else {
            return Ok(units);
        };
        let bad = || {
            FieldError(format!(
                "{context}: `{key}` must be an array of at most 32 UTF-16 code units (integers \
                 that fit u16)"
            ))
        };
        let items = value.as_array().ok_or_else(bad)?;
        if items.len() > units.len() {
            return Err(bad());
        }
        for (unit, item) in units.iter_mut().zip(items) {
            *unit = item
                .as_u64()
                .and_then(|number| u16::try_from(number).ok())
                .ok_or_else(bad)?;
        }
        Ok(units)
    }

    fn guid(&mut self, key: &'a str) -> Result<Guid, FieldError> {
        self.used.insert(key);
        match self.object.get(key) {
            None => Ok(Guid::NIL),
            Some(Value::String(text)) => text
                .parse()
                .map_err(|error| FieldError(format!("{}: `{key}`: {error}", self.context))),
            Some(other) => fail(format!(
                "{}: `{key}` must be a GUID string, found {}",
                self.context,
                kind(other)
            )),
        }
    }

    fn nested(&mut self, key: &'a str) -> Option<&'a Value> {
        self.used.insert(key);
        self.object.get(key)
    }

    /// Fails on any key that was not read; else the keys of other views to check.
    fn finish(self) -> Result<Vec<OtherView<'a>>, FieldError> {
        match self
            .object
            .keys()
            .find(|key| !self.used.contains(key.as_str()))
        {
            Some(unknown) => fail(format!("{}: unknown key `{unknown}`", self.context)),
            None => Ok(self.others),
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn class_of(fields: &mut Fields<'_>) -> Result<Class, FieldError> {
    Ok(
        match fields.view(
            "Version/Class",
            &[
                &["version"],
                &["class_type", "class_level", "class_version"],
            ],
        ) {
            Some(0) => Class::from_roll_up(fields.unsigned("version")?),
            _ => Class::new(
                EventType(fields.unsigned("class_type")?),
                Level(fields.unsigned("class_level")?),
                fields.unsigned("class_version")?,
            ),
        },
    )
}

fn guid_of(fields: &mut Fields<'_>) -> Result<GuidOrPtr, FieldError> {
    Ok(
        match fields.view("Guid/GuidPtr", &[&["guid"], &["guid_ptr"]]) {
            Some(1) => GuidOrPtr::from_guid_ptr(fields.unsigned("guid_ptr")?),
            _ => GuidOrPtr::from_guid(fields.guid("guid")?),
        },
    )
}

/// The 0x28 union; `id_key` is `client_context` (trace headers) or `event_id` (instance header).
fn times_of<'a>(fields: &mut Fields<'a>, id_key: &'a str) -> Result<TimesOrFlags, FieldError> {
    let views: [&[&str]; 3] = [
        &["kernel_time", "user_time"],
        &["processor_time"],
        &[id_key, "flags"],
    ];
    Ok(match fields.view("0x28", &views) {
        Some(1) => TimesOrFlags::from_processor_time(fields.unsigned("processor_time")?),
        Some(2) => TimesOrFlags::from_client_context(
            fields.unsigned(id_key)?,
            WnodeFlags(fields.unsigned("flags")?),
        ),
        _ => TimesOrFlags::from_times(
            fields.unsigned("kernel_time")?,
            fields.unsigned("user_time")?,
        ),
    })
}

fn trace_header_of(fields: &mut Fields<'_>) -> Result<EventTraceHeader, FieldError> {
    Ok(EventTraceHeader {
        size: fields.unsigned("size")?,
        header_type: HeaderType(fields.unsigned("header_type")?),
        marker_flags: MarkerFlags(fields.unsigned("marker_flags")?),
        class: class_of(fields)?,
        thread_id: fields.unsigned("thread_id")?,
        process_id: fields.unsigned("process_id")?,
        timestamp: fields.signed("timestamp")?,
        guid: guid_of(fields)?,
        times: times_of(fields, "client_context")?,
    })
}

fn instance_guid_header_of(fields: &mut Fields<'_>) -> Result<EventInstanceGuidHeader, FieldError> {
    Ok(EventInstanceGuidHeader {
        header: trace_header_of(fields)?,
        instance_id: fields.unsigned("instance_id")?,
        parent_instance_id: fields.unsigned("parent_instance_id")?,
        parent_guid: fields.guid("parent_guid")?,
    })
}

/// `EVENT_TRACE`'s own members: the first 0x48 bytes (with the nested `header`) and the context.
fn event_trace_parts(
    fields: &mut Fields<'_>,
) -> Result<(EventInstanceGuidHeader, BufferContext), FieldError> {
    let header = match fields.nested("header") {
        None => EventTraceHeader::default(),
        Some(value) => {
            let mut header_fields = Fields::new(value, "header")?;
            let header = trace_header_of(&mut header_fields)?;
            let others = header_fields.finish()?;
            fields
                .others
                .extend(others.into_iter().map(|other| OtherView {
                    within: Some("header"),
                    ..other
                }));
            header
        }
    };
    let first = EventInstanceGuidHeader {
        header,
        instance_id: fields.unsigned("instance_id")?,
        parent_instance_id: fields.unsigned("parent_instance_id")?,
        parent_guid: fields.guid("parent_guid")?,
    };
    let context = match fields.view(
        "ClientContext/BufferContext",
        &[
            &["client_context"],
            &["processor_number", "alignment", "logger_id"],
        ],
    ) {
        Some(0) => BufferContext::from_client_context(fields.unsigned("client_context")?),
        _ => BufferContext::new(
            fields.unsigned("processor_number")?,
            fields.unsigned("alignment")?,
            fields.unsigned("logger_id")?,
        ),
    };
    Ok((first, context))
}

/// `SYSTEM_TRACE_HEADER`: one view of `Marker`, one of `Header`, and inside the packet one of
/// `HookId`.
fn system_header_of(fields: &mut Fields<'_>) -> Result<SystemTraceHeader, FieldError> {
    let mut header = SystemTraceHeader::default();
    match fields.view(
        "Marker",
        &[&["marker"], &["version", "header_type", "flags"]],
    ) {
        Some(0) => header = header.with_marker(fields.unsigned("marker")?),
        _ => {
            header.version = fields.unsigned("version")?;
            header.header_type = HeaderType(fields.unsigned("header_type")?);
            header.flags = MarkerFlags(fields.unsigned("flags")?);
        }
    }
    match fields.view(
        "Header/Packet",
        &[&["header"], &["size", "hook_id", "type", "group"]],
    ) {
        Some(0) => header = header.with_header(fields.unsigned("header")?),
        _ => {
            header.size = fields.unsigned("size")?;
            header.hook_id = match fields.view("HookId", &[&["hook_id"], &["type", "group"]]) {
                Some(1) => SystemTraceHeader::hook_id_of(
                    fields.unsigned("type")?,
                    fields.unsigned("group")?,
                ),
                _ => fields.unsigned("hook_id")?,
            };
        }
    }
    header.thread_id = fields.unsigned("thread_id")?;
    header.process_id = fields.unsigned("process_id")?;
    header.system_time = fields.signed("system_time")?;
    header.kernel_time = fields.unsigned("kernel_time")?;
    header.user_time = fields.unsigned("user_time")?;
    Ok(header)
}

fn system_time_of(value: Option<&Value>, context: &str) -> Result<SystemTime, FieldError> {
    let Some(value) = value else {
        return Ok(SystemTime::default());
    };
    let mut fields = Fields::new(value, context)?;
    let time = SystemTime {
        year: fields.unsigned("year")?,
        month: fields.unsigned("month")?,
        day_of_week: fields.unsigned("day_of_week")?,
        day: fields.unsigned("day")?,
        hour: fields.unsigned("hour")?,
        minute: fields.unsigned("minute")?,
        second: fields.unsigned("second")?,
        milliseconds: fields.unsigned("milliseconds")?,
    };
    fields.finish()?;
    Ok(time)
}

fn time_zone_of(value: Option<&Value>) -> Result<TimeZoneInformation, FieldError> {
    let Some(value) = value else {
        return Ok(TimeZoneInformation::default());
    };
    let mut fields = Fields::new(value, "time_zone")?;
    let zone = TimeZoneInformation {
        bias: fields.signed_as("bias")?,
        standard_name: fields.units("standard_name")?,
        standard_date: system_time_of(fields.nested("standard_date"), "standard_date")?,
        standard_bias: fields.signed_as("standard_bias")?,
        daylight_name: fields.units("daylight_name")?,
        daylight_date: system_time_of(fields.nested("daylight_date"), "daylight_date")?,
        daylight_bias: fields.signed_as("daylight_bias")?,
    };
    fields.finish()?;
    Ok(zone)
}

/// `TRACE_LOGFILE_HEADER` of either layout: one view of `Version`, one of the union at 0x28;
/// the pointers must fit the layout's width. Padding is zero.
fn logfile_header_of(
    fields: &mut Fields<'_>,
    bitness: Bitness,
) -> Result<TraceLogfileHeader, FieldError> {
    let version = match fields.view(
        "Version/VersionDetail",
        &[
            &["version"],
            &[
                "major_version",
                "minor_version",
                "sub_version",
                "sub_minor_version",
            ],
        ],
    ) {
        Some(0) => VersionDetail::from_roll_up(fields.unsigned("version")?),
        _ => VersionDetail {
            major_version: fields.unsigned("major_version")?,
            minor_version: fields.unsigned("minor_version")?,
            sub_version: fields.unsigned("sub_version")?,
            sub_minor_version: fields.unsigned("sub_minor_version")?,
        },
    };
    let buffer_size = fields.unsigned("buffer_size")?;
    let provider_version = fields.unsigned("provider_version")?;
    let number_of_processors = fields.unsigned("number_of_processors")?;
    let end_time = fields.signed("end_time")?;
    let timer_resolution = fields.unsigned("timer_resolution")?;
    let maximum_file_size = fields.unsigned("maximum_file_size")?;
    let log_file_mode = fields.unsigned("log_file_mode")?;
    let buffers_written = fields.unsigned("buffers_written")?;
    let log_instance = match fields.view(
        "LogInstanceGuid",
        &[
            &["log_instance_guid"],
            &[
                "start_buffers",
                "pointer_size",
                "events_lost",
                "cpu_speed_in_mhz",
            ],
        ],
    ) {
        Some(0) => LogInstance::from_guid(fields.guid("log_instance_guid")?),
        _ => LogInstance::from_counts(
            fields.unsigned("start_buffers")?,
            fields.unsigned("pointer_size")?,
            fields.unsigned("events_lost")?,
            fields.unsigned("cpu_speed_in_mhz")?,
        ),
    };
    let time_zone = time_zone_of(fields.nested("time_zone"))?;
    let boot_time = fields.signed("boot_time")?;
    let perf_freq = fields.signed("perf_freq")?;
    let start_time = fields.signed("start_time")?;
    let reserved_flags = ClockType(fields.unsigned("reserved_flags")?);
    let buffers_lost = fields.unsigned("buffers_lost")?;
    // The two layouts have the same members; only the pointers' width differs, and `unsigned`
    // checks each against the member's type.
    macro_rules! in_layout {
        ($layout:ident) => {
            TraceLogfileHeader::from($layout {
                buffer_size,
                version,
                provider_version,
                number_of_processors,
                end_time,
                timer_resolution,
                maximum_file_size,
                log_file_mode,
                buffers_written,
                log_instance,
                logger_name: fields.unsigned("logger_name")?,
                log_file_name: fields.unsigned("log_file_name")?,
                time_zone,
                padding: [0; 4],
                boot_time,
                perf_freq,
                start_time,
                reserved_flags,
                buffers_lost,
            })
        };
    }
    Ok(match bitness {
        Bitness::Bits32 => in_layout!(TraceLogfileHeader32),
        Bitness::Bits64 => in_layout!(TraceLogfileHeader64),
    })
}

/// Encodes a JSON object in `layout`.
pub fn encode(layout: CliLayout, value: &Value) -> Result<Vec<u8>, FieldError> {
    let mut fields = Fields::new(value, layout.name())?;
    let bytes = match layout {
        CliLayout::TraceHeader => trace_header_of(&mut fields)?.to_bytes().to_vec(),
        CliLayout::InstanceGuidHeader => instance_guid_header_of(&mut fields)?.to_bytes().to_vec(),
        CliLayout::InstanceHeader => EventInstanceHeader {
            size: fields.unsigned("size")?,
            header_type: HeaderType(fields.unsigned("header_type")?),
            marker_flags: MarkerFlags(fields.unsigned("marker_flags")?),
            class: class_of(&mut fields)?,
            thread_id: fields.unsigned("thread_id")?,
            process_id: fields.unsigned("process_id")?,
            timestamp: fields.signed("timestamp")?,
            reg_handle: fields.unsigned("reg_handle")?,
            instance_id: fields.unsigned("instance_id")?,
            parent_instance_id: fields.unsigned("parent_instance_id")?,
            times: times_of(&mut fields, "event_id")?,
            parent_reg_handle: fields.unsigned("parent_reg_handle")?,
        }
        .to_bytes()
        .to_vec(),
        CliLayout::EventTrace(bitness) => {
            let (first, context) = event_trace_parts(&mut fields)?;
            let mof_data: u64 = fields.unsigned("mof_data")?;
            let mof_length = fields.unsigned("mof_length")?;
            EventTrace::new(bitness, first, mof_data, mof_length, context)
                .map_err(|error| FieldError(format!("{}: `mof_data`: {error}", layout.name())))?
                .to_bytes()
                .to_vec()
        }
        CliLayout::InstanceInfo(bitness) => {
            let reg_handle = fields.pointer("reg_handle", bitness)?;
            let info = EventInstanceInfo::new(bitness, reg_handle, fields.unsigned("instance_id")?)
                .map_err(|error| FieldError(format!("{}: `reg_handle`: {error}", layout.name())))?;
            let mut bytes = vec![0; info.byte_len()];
            info.emit(&mut bytes)
                .map_err(|error| FieldError(error.to_string()))?;
            bytes
        }
        CliLayout::MofField => MofField {
            data_ptr: fields.unsigned("data_ptr")?,
            length: fields.unsigned("length")?,
            data_type: fields.unsigned("data_type")?,
        }
        .to_bytes()
        .to_vec(),
        CliLayout::SystemHeader => system_header_of(&mut fields)?.to_bytes().to_vec(),
        CliLayout::LogfileHeader(bitness) => {
            let header = logfile_header_of(&mut fields, bitness)?;
            let mut bytes = vec![0; header.byte_len()];
            header
                .emit(&mut bytes)
                .map_err(|error| FieldError(error.to_string()))?;
            bytes
        }
    };
    let others = fields.finish()?;
    check_other_views(layout, &bytes, &others)?;
    Ok(bytes)
}

/// Checks that the keys of the views not encoded hold what the bytes written hold, as
/// `decode` prints them: what `decode --json` printed encodes back to the same bytes, and a
/// key changed in one view but not the other is an error naming both values. GUIDs compare
/// as GUIDs (any case, braces or not).
fn check_other_views(
    layout: CliLayout,
    bytes: &[u8],
    others: &[OtherView<'_>],
) -> Result<(), FieldError> {
    if others.is_empty() {
        return Ok(());
    }
    let decoded = decode(layout, bytes).map_err(FieldError)?;
    for other in others {
        let object = match other.within {
            None => Some(&decoded),
            Some(key) => decoded.get(key).and_then(Value::as_object),
        };
        let have = object.and_then(|object| object.get(other.key));
        let agree = match (other.given, have) {
            (Value::String(given), Some(Value::String(have))) => {
                match (given.parse::<Guid>(), have.parse::<Guid>()) {
                    (Ok(given), Ok(have)) => given == have,
                    _ => given == have,
                }
            }
            (Value::Number(given), Some(Value::Number(have))) => {
                (given.is_u64() || given.is_i64())
                    && given.as_u64() == have.as_u64()
                    && given.as_i64() == have.as_i64()
            }
            (given, have) => Some(given) == have,
        };
        if !agree {
            return fail(format!(
                "{}: the {} union's views disagree: `{}` is {}, but the view encoded ({}) \
                 makes it {} (give one view, or views that agree)",
                other.context,
                other.union,
                other.key,
                other.given,
                other.encoded,
                have.unwrap_or(&Value::Null)
            ));
        }
    }
    Ok(())
}
