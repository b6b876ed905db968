//! The JSON form of the headers an .etl file holds, as `etwc etl --json` and `etwc decode`
//! show them: every member under its SDK name in snake_case, every view of every union, described
//! to a [`Sink`].
//!
//! Each function writes the members of one struct into the object open, so that an event's
//! line is its position, then the members of its header, then its meaning, in one object.

use etw_classic::wire::{
    ExtendedAndUserData, ExtendedItem, ExtendedPayload, ExtraWords, MessageFields, MessageGuid,
    SystemTime, TimeZoneInformation,
};
use etw_classic::{
    Class, CompactTraceHeader, Event, EventHeader, EventInstanceGuidHeader, EventKind,
    EventTraceHeader, HeaderType, MarkerFlags, MessageTraceHeader, PerfInfoTraceHeader,
    SystemTraceHeader, TraceLogfileHeader,
};

use crate::sink::Sink;

/// The header type's name without its `TRACE_HEADER_TYPE_` prefix (`EVENT_HEADER64`), or
/// `0xNN` for a type with no name: the `kind` of the JSON lines.
pub fn kind_name(header_type: HeaderType) -> String {
    header_type
        .name()
        .map_or_else(|| format!("0x{:02X}", header_type.0), str::to_owned)
}

/// Describes the [`kind_name`] of `header_type` without allocating for a named type.
fn kind<S: Sink>(sink: &mut S, header_type: HeaderType) {
    match header_type.name() {
        Some(name) => sink.str(name),
        None => sink.display(&format_args!("0x{:02X}", header_type.0)),
    }
}

/// The members of `event`'s JSON line that its header gives, decoded as far as its header
/// type allows: the keys of its header, its extra words or extended items, then what follows
/// the header as hex under `data`. Events of a kind with no public layout (`TIMED`, `ERROR`,
/// `WNODE_HEADER`), and those whose header announces more than their `Size` holds (with the
/// reason under `error`), carry `size`, `header_type`, `marker_flags` and the whole event as
/// hex under `bytes`.
pub fn event_members<S: Sink>(sink: &mut S, event: &Event<'_>) {
    match event.kind() {
        EventKind::Full { header, data } => {
            trace_header(sink, &header);
            sink.put_bytes("data", data);
        }
        EventKind::Instance { header, data } => {
            instance_guid_header(sink, &header);
            sink.put_bytes("data", data);
        }
        EventKind::EventHeader { header, body } => event_header(sink, &header, &body),
        EventKind::System {
            header,
            extra,
            data,
        } => {
            system_header(sink, &header);
            extra_words(sink, &extra);
            sink.put_bytes("data", data);
        }
        EventKind::Compact {
            header,
            extra,
            data,
        } => {
            compact_header(sink, &header);
            extra_words(sink, &extra);
            sink.put_bytes("data", data);
        }
        EventKind::PerfInfo {
            header,
            extra,
            data,
        } => {
            perfinfo_header(sink, &header);
            extra_words(sink, &extra);
            sink.put_bytes("data", data);
        }
        EventKind::Message {
            header,
            fields,
            args,
        } => {
            message(sink, &header, &fields);
            sink.put_bytes("data", args);
        }
        EventKind::Malformed { error, .. } => {
            marker(sink, event);
            sink.put_bytes("bytes", event.bytes);
            sink.put_display("error", &error);
        }
        EventKind::Opaque { .. } => {
            marker(sink, event);
            sink.put_bytes("bytes", event.bytes);
        }
        _ => marker(sink, event),
    }
}

/// The members of an event's marker: `size`, `header_type`, `marker_flags`.
fn marker<S: Sink>(sink: &mut S, event: &Event<'_>) {
    sink.put_u64("size", event.size.into());
    sink.put_u64("header_type", event.header_type.0.into());
    sink.put_u64("marker_flags", event.marker_flags.0.into());
}

/// The position and kind of an event: `buffer`, `offset`, `kind`.
pub fn position<S: Sink>(sink: &mut S, buffer: usize, event: &Event<'_>) {
    sink.put_u64("buffer", buffer as u64);
    sink.put_u64("offset", event.offset as u64);
    sink.key("kind");
    kind(sink, event.header_type);
}

/// The members every version-first header (`SystemTraceHeader`, `CompactTraceHeader`,
/// `PerfInfoTraceHeader`) starts with, under the keys of [`system_header`]: the `Marker`
/// view and its members, the `Header` view and its members, `HookId`'s type and group.
macro_rules! version_first {
    ($sink:expr, $header:expr) => {{
        let (sink, header) = ($sink, $header);
        sink.put_u64("marker", header.marker().into());
        sink.put_u64("version", header.version.into());
        sink.put_u64("header_type", header.header_type.0.into());
        sink.put_u64("flags", header.flags.0.into());
        sink.put_u64("header", header.header().into());
        sink.put_u64("size", header.size.into());
        sink.put_u64("hook_id", header.hook_id.into());
        sink.put_u64("type", header.hook_type().into());
        sink.put_u64("group", header.hook_group().into());
    }};
}

/// `SYSTEM_TRACE_HEADER`: both views of the `Marker` and `Header` unions, and `HookId`'s bytes.
pub fn system_header<S: Sink>(sink: &mut S, header: &SystemTraceHeader) {
    version_first!(&mut *sink, header);
    sink.put_u64("thread_id", header.thread_id.into());
    sink.put_u64("process_id", header.process_id.into());
    sink.put_i64("system_time", header.system_time);
    sink.put_u64("kernel_time", header.kernel_time.into());
    sink.put_u64("user_time", header.user_time.into());
}

/// The compact system header: the keys of [`system_header`] without the CPU times.
pub fn compact_header<S: Sink>(sink: &mut S, header: &CompactTraceHeader) {
    version_first!(&mut *sink, header);
    sink.put_u64("thread_id", header.thread_id.into());
    sink.put_u64("process_id", header.process_id.into());
    sink.put_i64("system_time", header.system_time);
}

/// `PERFINFO_TRACE_HEADER`: the version-first members and `SystemTime`.
pub fn perfinfo_header<S: Sink>(sink: &mut S, header: &PerfInfoTraceHeader) {
    version_first!(&mut *sink, header);
    sink.put_i64("system_time", header.system_time);
}

/// The words a version-first header's `Version` announces: `pebs_index` (`null` when there is
/// none) and `pmc_counters` (an array, usually empty).
pub fn extra_words<S: Sink>(sink: &mut S, extra: &ExtraWords<'_>) {
    sink.put_opt_u64("pebs_index", extra.pebs_index());
    sink.put_u64s("pmc_counters", &mut extra.pmc_counters());
}

/// `MESSAGE_TRACE_HEADER` and the optional fields its `OptionFlags` announce, each `null` when
/// absent: `message_guid` for `TRACE_MESSAGE_GUID`, `component_id` for
/// `TRACE_MESSAGE_COMPONENTID`.
pub fn message<S: Sink>(sink: &mut S, header: &MessageTraceHeader, fields: &MessageFields) {
    sink.put_u64("marker", header.marker().into());
    sink.put_u64("size", header.size.into());
    sink.put_u64("reserved", header.reserved.into());
    sink.put_u64("version", header.version.0.into());
    sink.put_u64("header", header.header().into());
    sink.put_u64("message_number", header.message_number.into());
    sink.put_u64("option_flags", header.option_flags.0.into());
    sink.put_opt_u64("sequence", fields.sequence.map(u64::from));
    match fields.message_guid {
        Some(MessageGuid::Guid(guid)) => {
            sink.put_guid("message_guid", &guid);
            sink.put_null("component_id");
        }
        Some(MessageGuid::ComponentId(id)) => {
            sink.put_null("message_guid");
            sink.put_u64("component_id", id.into());
        }
        None => {
            sink.put_null("message_guid");
            sink.put_null("component_id");
        }
    }
    sink.put_opt_i64("timestamp", fields.timestamp);
    let info = fields.system_info;
    sink.put_opt_u64("thread_id", info.map(|info| info.thread_id.into()));
    sink.put_opt_u64("process_id", info.map(|info| info.process_id.into()));
}

/// `TRACE_LOGFILE_HEADER` in either layout (pointers widened to 64 bits), every union view; the
/// time zone in a nested `time_zone` object, its names as arrays of 32 UTF-16 code units.
pub fn logfile_header<S: Sink>(sink: &mut S, header: &TraceLogfileHeader) {
    let version = header.version();
    let instance = header.log_instance();
    sink.put_u64("buffer_size", header.buffer_size().into());
    sink.put_u64("version", version.roll_up().into());
    sink.put_u64("major_version", version.major_version.into());
    sink.put_u64("minor_version", version.minor_version.into());
    sink.put_u64("sub_version", version.sub_version.into());
    sink.put_u64("sub_minor_version", version.sub_minor_version.into());
    sink.put_u64("provider_version", header.provider_version().into());
    sink.put_u64("number_of_processors", header.number_of_processors().into());
    sink.put_i64("end_time", header.end_time());
    sink.put_u64("timer_resolution", header.timer_resolution().into());
    sink.put_u64("maximum_file_size", header.maximum_file_size().into());
    sink.put_u64("log_file_mode", header.log_file_mode().into());
    sink.put_u64("buffers_written", header.buffers_written().into());
    sink.put_guid("log_instance_guid", &instance.log_instance_guid());
    sink.put_u64("start_buffers", instance.start_buffers().into());
    sink.put_u64("pointer_size", instance.pointer_size().into());
    sink.put_u64("events_lost", instance.events_lost().into());
    sink.put_u64("cpu_speed_in_mhz", instance.cpu_speed_in_mhz().into());
    sink.put_u64("logger_name", header.logger_name());
    sink.put_u64("log_file_name", header.log_file_name());
    sink.key("time_zone");
    sink.begin_object();
    time_zone(sink, &header.time_zone());
    sink.end_object();
    sink.put_i64("boot_time", header.boot_time());
    sink.put_i64("perf_freq", header.perf_freq());
    sink.put_i64("start_time", header.start_time());
    sink.put_u64("reserved_flags", header.reserved_flags().0.into());
    sink.put_u64("buffers_lost", header.buffers_lost().into());
}

fn time_zone<S: Sink>(sink: &mut S, zone: &TimeZoneInformation) {
    sink.put_i64("bias", zone.bias.into());
    sink.put_u64s(
        "standard_name",
        &mut zone.standard_name.iter().map(|&unit| u64::from(unit)),
    );
    sink.key("standard_date");
    system_time(sink, &zone.standard_date);
    sink.put_i64("standard_bias", zone.standard_bias.into());
    sink.put_u64s(
        "daylight_name",
        &mut zone.daylight_name.iter().map(|&unit| u64::from(unit)),
    );
    sink.key("daylight_date");
    system_time(sink, &zone.daylight_date);
    sink.put_i64("daylight_bias", zone.daylight_bias.into());
}

/// A `SYSTEMTIME` as an object of its members.
fn system_time<S: Sink>(sink: &mut S, time: &SystemTime) {
    sink.begin_object();
    sink.put_u64("year", time.year.into());
    sink.put_u64("month", time.month.into());
    sink.put_u64("day_of_week", time.day_of_week.into());
    sink.put_u64("day", time.day.into());
    sink.put_u64("hour", time.hour.into());
    sink.put_u64("minute", time.minute.into());
    sink.put_u64("second", time.second.into());
    sink.put_u64("milliseconds", time.milliseconds.into());
    sink.end_object();
}

/// The first line of `etwc etl --json`, the members of its object: `kind`
/// (`LOGFILE_HEADER`), the `system_header` before the logfile header, the `logfile_header`,
/// and the two names that follow it.
pub fn file_members<S: Sink>(
    sink: &mut S,
    system: &SystemTraceHeader,
    header: &TraceLogfileHeader,
    logger_name: &str,
    log_file_name: &str,
) {
    sink.put_str("kind", "LOGFILE_HEADER");
    sink.key("system_header");
    sink.begin_object();
    system_header(sink, system);
    sink.end_object();
    sink.key("logfile_header");
    sink.begin_object();
    logfile_header(sink, header);
    sink.end_object();
    sink.put_str("logger_name", logger_name);
    sink.put_str("log_file_name", log_file_name);
}

/// The keys shared by every classic header's first 0x18 bytes.
#[allow(clippy::too_many_arguments)]
pub fn classic_common<S: Sink>(
    sink: &mut S,
    size: u16,
    header_type: HeaderType,
    marker_flags: MarkerFlags,
    class: Class,
    thread_id: u32,
    process_id: u32,
    timestamp: i64,
) {
    sink.put_u64("size", size.into());
    sink.put_u64("header_type", header_type.0.into());
    sink.put_u64("marker_flags", marker_flags.0.into());
    sink.put_u64("version", class.roll_up().into());
    sink.put_u64("class_type", class.event_type.0.into());
    sink.put_u64("class_level", class.level.0.into());
    sink.put_u64("class_version", class.version.into());
    sink.put_u64("thread_id", thread_id.into());
    sink.put_u64("process_id", process_id.into());
    sink.put_i64("timestamp", timestamp);
}

/// `EVENT_TRACE_HEADER`: the classic members, both views of the GUID union and every view of
/// the CPU-time union.
pub fn trace_header<S: Sink>(sink: &mut S, header: &EventTraceHeader) {
    classic_common(
        sink,
        header.size,
        header.header_type,
        header.marker_flags,
        header.class,
        header.thread_id,
        header.process_id,
        header.timestamp,
    );
    sink.put_guid("guid", &header.guid.guid());
    sink.put_u64("guid_ptr", header.guid.guid_ptr());
    let times = header.times;
    sink.put_u64("kernel_time", times.kernel_time().into());
    sink.put_u64("user_time", times.user_time().into());
    sink.put_u64("processor_time", times.processor_time());
    sink.put_u64("client_context", times.client_context().into());
    sink.put_u64("flags", times.flags().0.into());
}

/// `EVENT_INSTANCE_GUID_HEADER`: the members of [`trace_header`], then the instance's.
pub fn instance_guid_header<S: Sink>(sink: &mut S, header: &EventInstanceGuidHeader) {
    trace_header(sink, &header.header);
    sink.put_u64("instance_id", header.instance_id.into());
    sink.put_u64("parent_instance_id", header.parent_instance_id.into());
    sink.put_guid("parent_guid", &header.parent_guid);
}

/// An `EVENT_HEADER` event: every header member under its SDK name in snake_case (both views of
/// the CPU-time union), `extended_data` with each item, and the user data as hex under `data`.
///
/// An item that breaks the rules ends the list; its error is under `extended_data_error` and
/// `data` is then `null`, as where the user data starts is not known.
pub fn event_header<S: Sink>(sink: &mut S, header: &EventHeader, body: &ExtendedAndUserData<'_>) {
    let descriptor = header.event_descriptor;
    sink.put_u64("size", header.size.into());
    sink.put_u64("header_type", header.header_type.0.into());
    sink.put_u64("marker_flags", header.marker_flags.0.into());
    sink.put_u64("flags", header.flags.0.into());
    sink.put_u64("event_property", header.event_property.0.into());
    sink.put_u64("thread_id", header.thread_id.into());
    sink.put_u64("process_id", header.process_id.into());
    sink.put_i64("timestamp", header.timestamp);
    sink.put_guid("provider_id", &header.provider_id);
    sink.key("event_descriptor");
    sink.begin_object();
    sink.put_u64("id", descriptor.id.into());
    sink.put_u64("version", descriptor.version.into());
    sink.put_u64("channel", descriptor.channel.into());
    sink.put_u64("level", descriptor.level.0.into());
    sink.put_u64("opcode", descriptor.opcode.into());
    sink.put_u64("task", descriptor.task.into());
    sink.put_u64("keyword", descriptor.keyword);
    sink.end_object();
    sink.put_u64("kernel_time", header.times.kernel_time().into());
    sink.put_u64("user_time", header.times.user_time().into());
    sink.put_u64("processor_time", header.times.processor_time());
    sink.put_guid("activity_id", &header.activity_id);
    sink.key("extended_data");
    sink.begin_array();
    let mut walk = body.items();
    let mut error = None;
    for item in walk.by_ref() {
        match item {
            Ok(item) => extended_item(sink, &item),
            Err(problem) => error = Some(problem),
        }
    }
    sink.end_array();
    if let Some(error) = error {
        sink.put_display("extended_data_error", &error);
    }
    sink.key("data");
    match walk.user_data() {
        Some(data) => sink.bytes(data),
        None => sink.null(),
    }
}

/// One extended data item: its header (`item_size` is the on-disk `Reserved1`, `linkage` the
/// whole `Linkage`/`Reserved2` word), the values its type holds, its data and padding as hex.
fn extended_item<S: Sink>(sink: &mut S, item: &ExtendedItem<'_>) {
    let header = item.header;
    sink.begin_object();
    sink.put_u64("ext_type", header.ext_type.0.into());
    sink.put_u64("item_size", header.item_size.into());
    sink.put_u64("linkage", header.linkage.into());
    sink.put_u64("data_size", header.data_size.into());
    match item.payload() {
        Ok(payload) => extended_payload(sink, &payload),
        Err(error) => sink.put_display("payload_error", &error),
    }
    sink.put_bytes("data", item.data);
    sink.put_bytes("padding", item.padding);
    sink.end_object();
}

/// The members of an item's typed data, named after the `EVENT_EXTENDED_ITEM_*` structs.
fn extended_payload<S: Sink>(sink: &mut S, payload: &ExtendedPayload<'_>) {
    match *payload {
        ExtendedPayload::RelatedActivityId(guid) => sink.put_guid("related_activity_id", &guid),
        ExtendedPayload::Sid(sid) => {
            sink.put_display("sid", &sid);
            sink.put_u64("revision", sid.revision.into());
            sink.put_u64("sub_authority_count", sid.sub_authority_count.into());
            sink.put_u64("identifier_authority", sid.identifier_authority_value());
            sink.put_u64s("sub_authority", &mut sid.sub_authorities.map(u64::from));
        }
        ExtendedPayload::TerminalSessionId(session_id) => {
            sink.put_u64("session_id", session_id.into());
        }
        ExtendedPayload::Instance(instance) => {
            sink.put_u64("instance_id", instance.instance_id.into());
            sink.put_u64("parent_instance_id", instance.parent_instance_id.into());
            sink.put_guid("parent_guid", &instance.parent_guid);
        }
        ExtendedPayload::StackTrace32(stack) => {
            sink.put_u64("match_id", stack.match_id);
            sink.put_u64s("address", &mut stack.addresses.map(u64::from));
        }
        ExtendedPayload::StackTrace64(stack) => {
            sink.put_u64("match_id", stack.match_id);
            sink.put_u64s("address", &mut { stack.addresses });
        }
        ExtendedPayload::PebsIndex(pebs_index) => sink.put_u64("pebs_index", pebs_index),
        ExtendedPayload::PmcCounters(counters) => sink.put_u64s("counter", &mut { counters }),
        ExtendedPayload::EventKey(key) => sink.put_u64("key", key),
        ExtendedPayload::ProcessStartKey(key) => sink.put_u64("process_start_key", key),
        ExtendedPayload::ProviderTraits(traits) => {
            sink.put_u64("traits_size", traits.traits_size.into());
            sink.put_str("provider_name", &String::from_utf8_lossy(traits.name));
            sink.key("traits");
            sink.begin_array();
            for provider_trait in traits.traits() {
                sink.begin_object();
                sink.put_u64("trait_size", provider_trait.trait_size.into());
                sink.put_u64("trait_type", provider_trait.trait_type.0.into());
                sink.put_bytes("data", provider_trait.data);
                sink.end_object();
            }
            sink.end_array();
        }
        ExtendedPayload::StackKey32(key) => {
            sink.put_u64("match_id", key.match_id);
            sink.put_u64("stack_key", key.stack_key.into());
            sink.put_u64("padding", key.padding.into());
        }
        ExtendedPayload::StackKey64(key) => {
            sink.put_u64("match_id", key.match_id);
            sink.put_u64("stack_key", key.stack_key);
        }
        // The TraceLogging schema and the types without a public layout: `data` says it all.
        _ => {}
    }
}
