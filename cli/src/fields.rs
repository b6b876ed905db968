//! The JSON form of every layout: SDK member names in snake_case, unions flattened.
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
        EventInstanceInfo32, EventInstanceInfo64, ExtendedAndUserData, ExtendedItem,
        ExtendedPayload, ExtraWords, LogInstance, MessageFields, MessageGuid, SystemTime,
        TimeZoneInformation, TraceLogfileHeader32, TraceLogfileHeader64, VersionDetail,
    },
    Bitness, BufferContext, Class, ClockType, CompactTraceHeader, EventHeader,
    EventInstanceGuidHeader, EventInstanceHeader, EventInstanceInfo, EventTrace, EventTraceHeader,
    EventType, Guid, GuidOrPtr, HeaderType, Level, MarkerFlags, MessageTraceHeader, MofField,
    PerfInfoTraceHeader, SystemTraceHeader, TimesOrFlags, TraceLogfileHeader, WnodeFlags,
};
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

/// The members every version-first header (`SystemTraceHeader`, `CompactTraceHeader`,
/// `PerfInfoTraceHeader`) starts with, under the keys of [`system_header_json`]: the `Marker`
/// view and its members, the `Header` view and its members, `HookId`'s type and group.
macro_rules! version_first_json {
    ($header:expr) => {{
        let header = $header;
        object([
            ("marker", json!(header.marker())),
            ("version", json!(header.version)),
            ("header_type", json!(header.header_type.0)),
            ("flags", json!(header.flags.0)),
            ("header", json!(header.header())),
            ("size", json!(header.size)),
            ("hook_id", json!(header.hook_id)),
            ("type", json!(header.hook_type())),
            ("group", json!(header.hook_group())),
        ])
    }};
}

/// `SYSTEM_TRACE_HEADER`: both views of the `Marker` and `Header` unions, and `HookId`'s bytes.
pub fn system_header_json(header: &SystemTraceHeader) -> Map<String, Value> {
    let mut map = version_first_json!(header);
    map.extend(object([
        ("thread_id", json!(header.thread_id)),
        ("process_id", json!(header.process_id)),
        ("system_time", json!(header.system_time)),
        ("kernel_time", json!(header.kernel_time)),
        ("user_time", json!(header.user_time)),
    ]));
    map
}

/// The compact system header: the keys of [`system_header_json`] without the CPU times.
pub fn compact_header_json(header: &CompactTraceHeader) -> Map<String, Value> {
    let mut map = version_first_json!(header);
    map.extend(object([
        ("thread_id", json!(header.thread_id)),
        ("process_id", json!(header.process_id)),
        ("system_time", json!(header.system_time)),
    ]));
    map
}

/// `PERFINFO_TRACE_HEADER`: the version-first members and `SystemTime`.
pub fn perfinfo_header_json(header: &PerfInfoTraceHeader) -> Map<String, Value> {
    let mut map = version_first_json!(header);
    map.insert("system_time".into(), json!(header.system_time));
    map
}

/// The words a version-first header's `Version` announces: `pebs_index` (`null` when there is
/// none) and `pmc_counters` (an array, usually empty).
pub fn extra_words_json(extra: &ExtraWords<'_>) -> Map<String, Value> {
    let counters: Vec<u64> = extra.pmc_counters().collect();
    object([
        ("pebs_index", json!(extra.pebs_index())),
        ("pmc_counters", json!(counters)),
    ])
}

/// `MESSAGE_TRACE_HEADER` and the optional fields its `OptionFlags` announce, each `null` when
/// absent: `message_guid` for `TRACE_MESSAGE_GUID`, `component_id` for
/// `TRACE_MESSAGE_COMPONENTID`.
pub fn message_json(header: &MessageTraceHeader, fields: &MessageFields) -> Map<String, Value> {
    let (message_guid, component_id) = match fields.message_guid {
        Some(MessageGuid::Guid(guid)) => (json!(guid.to_string()), Value::Null),
        Some(MessageGuid::ComponentId(id)) => (Value::Null, json!(id)),
        None => (Value::Null, Value::Null),
    };
    let info = fields.system_info;
    object([
        ("marker", json!(header.marker())),
        ("size", json!(header.size)),
        ("reserved", json!(header.reserved)),
        ("version", json!(header.version.0)),
        ("header", json!(header.header())),
        ("message_number", json!(header.message_number)),
        ("option_flags", json!(header.option_flags.0)),
        ("sequence", json!(fields.sequence)),
        ("message_guid", message_guid),
        ("component_id", component_id),
        ("timestamp", json!(fields.timestamp)),
        ("thread_id", json!(info.map(|info| info.thread_id))),
        ("process_id", json!(info.map(|info| info.process_id))),
    ])
}

/// `TRACE_LOGFILE_HEADER` in either layout (pointers widened to 64 bits), every union view; the
/// time zone in a nested `time_zone` object, its names as arrays of 32 UTF-16 code units.
pub fn logfile_header_json(header: &TraceLogfileHeader) -> Map<String, Value> {
    let version = header.version();
    let instance = header.log_instance();
    object([
        ("buffer_size", json!(header.buffer_size())),
        ("version", json!(version.roll_up())),
        ("major_version", json!(version.major_version)),
        ("minor_version", json!(version.minor_version)),
        ("sub_version", json!(version.sub_version)),
        ("sub_minor_version", json!(version.sub_minor_version)),
        ("provider_version", json!(header.provider_version())),
        ("number_of_processors", json!(header.number_of_processors())),
        ("end_time", json!(header.end_time())),
        ("timer_resolution", json!(header.timer_resolution())),
        ("maximum_file_size", json!(header.maximum_file_size())),
        ("log_file_mode", json!(header.log_file_mode())),
        ("buffers_written", json!(header.buffers_written())),
        (
            "log_instance_guid",
            json!(instance.log_instance_guid().to_string()),
        ),
        ("start_buffers", json!(instance.start_buffers())),
        ("pointer_size", json!(instance.pointer_size())),
        ("events_lost", json!(instance.events_lost())),
        ("cpu_speed_in_mhz", json!(instance.cpu_speed_in_mhz())),
        ("logger_name", json!(header.logger_name())),
        ("log_file_name", json!(header.log_file_name())),
        (
            "time_zone",
            Value::Object(time_zone_json(&header.time_zone())),
        ),
        ("boot_time", json!(header.boot_time())),
        ("perf_freq", json!(header.perf_freq())),
        ("start_time", json!(header.start_time())),
        ("reserved_flags", json!(header.reserved_flags().0)),
        ("buffers_lost", json!(header.buffers_lost())),
    ])
}

fn time_zone_json(zone: &TimeZoneInformation) -> Map<String, Value> {
    object([
        ("bias", json!(zone.bias)),
        ("standard_name", json!(zone.standard_name)),
        (
            "standard_date",
            Value::Object(system_time_json(&zone.standard_date)),
        ),
        ("standard_bias", json!(zone.standard_bias)),
        ("daylight_name", json!(zone.daylight_name)),
        (
            "daylight_date",
            Value::Object(system_time_json(&zone.daylight_date)),
        ),
        ("daylight_bias", json!(zone.daylight_bias)),
    ])
}

fn system_time_json(time: &SystemTime) -> Map<String, Value> {
    object([
        ("year", json!(time.year)),
        ("month", json!(time.month)),
        ("day_of_week", json!(time.day_of_week)),
        ("day", json!(time.day)),
        ("hour", json!(time.hour)),
        ("minute", json!(time.minute)),
        ("second", json!(time.second)),
        ("milliseconds", json!(time.milliseconds)),
    ])
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

/// The keys shared by every classic header's first 0x18 bytes.
fn common_json(
    size: u16,
    header_type: HeaderType,
    marker_flags: MarkerFlags,
    class: Class,
    thread_id: u32,
    process_id: u32,
    timestamp: i64,
) -> Map<String, Value> {
    object([
        ("size", json!(size)),
        ("header_type", json!(header_type.0)),
        ("marker_flags", json!(marker_flags.0)),
        ("version", json!(class.roll_up())),
        ("class_type", json!(class.event_type.0)),
        ("class_level", json!(class.level.0)),
        ("class_version", json!(class.version)),
        ("thread_id", json!(thread_id)),
        ("process_id", json!(process_id)),
        ("timestamp", json!(timestamp)),
    ])
}

pub fn trace_header_json(header: &EventTraceHeader) -> Map<String, Value> {
    let mut map = common_json(
        header.size,
        header.header_type,
        header.marker_flags,
        header.class,
        header.thread_id,
        header.process_id,
        header.timestamp,
    );
    map.insert("guid".into(), json!(header.guid.guid().to_string()));
    map.insert("guid_ptr".into(), json!(header.guid.guid_ptr()));
    let times = header.times;
    map.insert("kernel_time".into(), json!(times.kernel_time()));
    map.insert("user_time".into(), json!(times.user_time()));
    map.insert("processor_time".into(), json!(times.processor_time()));
    map.insert("client_context".into(), json!(times.client_context()));
    map.insert("flags".into(), json!(times.flags().0));
    map
}

fn instance_header_json(header: &EventInstanceHeader) -> Map<String, Value> {
    let mut map = common_json(
        header.size,
        header.header_type,
        header.marker_flags,
        header.class,
        header.thread_id,
        header.process_id,
        header.timestamp,
    );
    map.insert("reg_handle".into(), json!(header.reg_handle));
    map.insert("instance_id".into(), json!(header.instance_id));
    map.insert(
        "parent_instance_id".into(),
        json!(header.parent_instance_id),
    );
    let times = header.times;
    map.insert("kernel_time".into(), json!(times.kernel_time()));
    map.insert("user_time".into(), json!(times.user_time()));
    map.insert("processor_time".into(), json!(times.processor_time()));
    map.insert("event_id".into(), json!(times.event_id()));
    map.insert("flags".into(), json!(times.flags().0));
    map.insert("parent_reg_handle".into(), json!(header.parent_reg_handle));
    map
}

pub fn instance_guid_header_json(header: &EventInstanceGuidHeader) -> Map<String, Value> {
    let mut map = trace_header_json(&header.header);
    map.insert("instance_id".into(), json!(header.instance_id));
    map.insert(
        "parent_instance_id".into(),
        json!(header.parent_instance_id),
    );
    map.insert("parent_guid".into(), json!(header.parent_guid.to_string()));
    map
}

/// Bytes as lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0F)]));
    }
    hex
}

/// An `EVENT_HEADER` event: every header member under its SDK name in snake_case (both views of
/// the CPU-time union), `extended_data` with each item, and the user data as hex under `data`.
///
/// An item that breaks the rules ends the list; its error is under `extended_data_error` and
/// `data` is then `null`, as where the user data starts is not known.
pub fn event_header_json(
    header: &EventHeader,
    body: &ExtendedAndUserData<'_>,
) -> Map<String, Value> {
    let descriptor = header.event_descriptor;
    let mut map = object([
        ("size", json!(header.size)),
        ("header_type", json!(header.header_type.0)),
        ("marker_flags", json!(header.marker_flags.0)),
        ("flags", json!(header.flags.0)),
        ("event_property", json!(header.event_property.0)),
        ("thread_id", json!(header.thread_id)),
        ("process_id", json!(header.process_id)),
        ("timestamp", json!(header.timestamp)),
        ("provider_id", json!(header.provider_id.to_string())),
        (
            "event_descriptor",
            json!({
                "id": descriptor.id,
                "version": descriptor.version,
                "channel": descriptor.channel,
                "level": descriptor.level.0,
                "opcode": descriptor.opcode,
                "task": descriptor.task,
                "keyword": descriptor.keyword,
            }),
        ),
        ("kernel_time", json!(header.times.kernel_time())),
        ("user_time", json!(header.times.user_time())),
        ("processor_time", json!(header.times.processor_time())),
        ("activity_id", json!(header.activity_id.to_string())),
    ]);
    let mut items = Vec::new();
    let mut walk = body.items();
    let mut error = None;
    for item in walk.by_ref() {
        match item {
            Ok(item) => items.push(Value::Object(extended_item_json(&item))),
            Err(problem) => error = Some(problem.to_string()),
        }
    }
    map.insert("extended_data".into(), Value::Array(items));
    if let Some(error) = error {
        map.insert("extended_data_error".into(), json!(error));
    }
    map.insert("data".into(), json!(walk.user_data().map(hex)));
    map
}

/// One extended data item: its header (`item_size` is the on-disk `Reserved1`, `linkage` the
/// whole `Linkage`/`Reserved2` word), the values its type holds, its data and padding as hex.
fn extended_item_json(item: &ExtendedItem<'_>) -> Map<String, Value> {
    let header = item.header;
    let mut map = object([
        ("ext_type", json!(header.ext_type.0)),
        ("item_size", json!(header.item_size)),
        ("linkage", json!(header.linkage)),
        ("data_size", json!(header.data_size)),
    ]);
    match item.payload() {
        Ok(payload) => map.extend(payload_json(&payload)),
        Err(error) => {
            map.insert("payload_error".into(), json!(error.to_string()));
        }
    }
    map.insert("data".into(), json!(hex(item.data)));
    map.insert("padding".into(), json!(hex(item.padding)));
    map
}

/// The members of an item's typed data, named after the `EVENT_EXTENDED_ITEM_*` structs.
fn payload_json(payload: &ExtendedPayload<'_>) -> Map<String, Value> {
    match *payload {
        ExtendedPayload::RelatedActivityId(guid) => {
            object([("related_activity_id", json!(guid.to_string()))])
        }
        ExtendedPayload::Sid(sid) => object([
            ("sid", json!(sid.to_string())),
            ("revision", json!(sid.revision)),
            ("sub_authority_count", json!(sid.sub_authority_count)),
            (
                "identifier_authority",
                json!(sid.identifier_authority_value()),
            ),
            (
                "sub_authority",
                json!(sid.sub_authorities.collect::<Vec<_>>()),
            ),
        ]),
        ExtendedPayload::TerminalSessionId(session_id) => {
            object([("session_id", json!(session_id))])
        }
        ExtendedPayload::Instance(instance) => object([
            ("instance_id", json!(instance.instance_id)),
            ("parent_instance_id", json!(instance.parent_instance_id)),
            ("parent_guid", json!(instance.parent_guid.to_string())),
        ]),
        ExtendedPayload::StackTrace32(stack) => object([
            ("match_id", json!(stack.match_id)),
            ("address", json!(stack.addresses.collect::<Vec<_>>())),
        ]),
        ExtendedPayload::StackTrace64(stack) => object([
            ("match_id", json!(stack.match_id)),
            ("address", json!(stack.addresses.collect::<Vec<_>>())),
        ]),
        ExtendedPayload::PebsIndex(pebs_index) => object([("pebs_index", json!(pebs_index))]),
        ExtendedPayload::PmcCounters(counters) => {
            object([("counter", json!(counters.collect::<Vec<_>>()))])
        }
        ExtendedPayload::EventKey(key) => object([("key", json!(key))]),
        ExtendedPayload::ProcessStartKey(key) => object([("process_start_key", json!(key))]),
        ExtendedPayload::ProviderTraits(traits) => object([
            ("traits_size", json!(traits.traits_size)),
            ("provider_name", json!(String::from_utf8_lossy(traits.name))),
            (
                "traits",
                Value::Array(
                    traits
                        .traits()
                        .map(|provider_trait| {
                            json!({
                                "trait_size": provider_trait.trait_size,
                                "trait_type": provider_trait.trait_type.0,
                                "data": hex(provider_trait.data),
                            })
                        })
                        .collect(),
                ),
            ),
        ]),
        ExtendedPayload::StackKey32(key) => object([
            ("match_id", json!(key.match_id)),
            ("stack_key", json!(key.stack_key)),
            ("padding", json!(key.padding)),
        ]),
        ExtendedPayload::StackKey64(key) => object([
            ("match_id", json!(key.match_id)),
            ("stack_key", json!(key.stack_key)),
        ]),
        // The TraceLogging schema and the types without a public layout: `data` says it all.
        _ => Map::new(),
    }
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
