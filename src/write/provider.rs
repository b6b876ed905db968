//! The provider side of classic ETW: class registration (the role of `RegisterTraceGuids`),
//! instance ids (`CreateTraceInstanceId`), and the checks and header building of
//! `TraceEventInstance` and `TraceEvent`, writing into a [`Session`]'s buffers.

use crate::invariant::{known, not_reached};
use crate::wire::class::Class;
use crate::wire::codes::{HeaderType, MarkerFlags, WnodeFlags};
use crate::wire::guid::Guid;
use crate::wire::headers::event_instance_guid_header::EventInstanceGuidHeader;
use crate::wire::headers::event_instance_header::EventInstanceHeader;
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::layout::Bitness;
use crate::wire::records::event_instance_info::EventInstanceInfo;
use crate::wire::unions::{GuidOrPtr, TimesOrFlags};
use crate::write::error::{InstanceRole, TraceError};
use crate::write::event::{EventBytes, EventData, Payload, Traced};
use crate::write::session::Session;

/// What the logger stamps into every event it writes, supplied by the caller.
///
/// On Windows these come from the calling thread and the session's clock; a firmware or a test
/// provides them here. Only [`timestamp`](Self::timestamp) is required.
pub trait TraceContext {
    /// The time of the event being written (or of the buffer being flushed), in the session's
    /// clock: on Windows a FILETIME (100 ns units since 1601-01-01) or a raw performance
    /// counter; on a firmware any count that does not go backwards.
    fn timestamp(&mut self) -> i64;

    /// `ThreadId`: "identifies the thread that generated the event". Zero by default.
    fn thread_id(&self) -> u32 {
        0
    }

    /// `ProcessId`: "identifies the process that generated the event". Zero by default.
    fn process_id(&self) -> u32 {
        0
    }

    /// `KernelTime` and `UserTime` of the calling thread, in CPU ticks. Zero by default.
    fn cpu_times(&self) -> (u32, u32) {
        (0, 0)
    }

    /// The class GUID a `GuidPtr` points at, for events with `WNODE_FLAG_USE_GUID_PTR`: "When the
    /// event is written, ETW uses the pointer to copy the GUID to the event". The crate holds no
    /// pointers, so the caller resolves them; `None` (the default) for every pointer.
    fn guid_at(&self, guid_ptr: u64) -> Option<Guid> {
        let _ = guid_ptr;
        None
    }
}

/// A [`TraceContext`] with fixed thread, process and CPU times and a clock that advances by a
/// fixed step at each reading: enough for a firmware without a real-time clock, for tests and
/// for examples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SteppingContext {
    /// The timestamp the next reading returns.
    pub now: i64,
    /// How far the clock advances after each reading (wrapping).
    pub step: i64,
    /// The `ThreadId` stamped into every event.
    pub thread_id: u32,
    /// The `ProcessId` stamped into every event.
    pub process_id: u32,
    /// The `KernelTime` stamped into every event.
    pub kernel_time: u32,
    /// The `UserTime` stamped into every event.
    pub user_time: u32,
}

impl TraceContext for SteppingContext {
    fn timestamp(&mut self) -> i64 {
        let now = self.now;
        self.now = now.wrapping_add(self.step);
        now
    }

    fn thread_id(&self) -> u32 {
        self.thread_id
    }

    fn process_id(&self) -> u32 {
        self.process_id
    }

    fn cpu_times(&self) -> (u32, u32) {
        (self.kernel_time, self.user_time)
    }
}

/// One registered event trace class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct Registration {
    /// The class GUID as the wire holds it (`Data1` to `Data3` little-endian), ready to be
    /// copied into each event's `Guid` and `ParentGuid`.
    class_guid: GuidOrPtr,
    /// The last instance id handed out for this class (0 before the first).
    last_instance_id: u32,
}

/// A classic (MOF-based) event provider: its registered event trace classes, the instance ids
/// it creates, and the rules `TraceEventInstance` and `TraceEvent` apply before an event is
/// written.
///
/// `CLASSES` is the capacity of the registration table. The provider writes its events in one
/// pointer width, `INSTANCE32`/`FULL_HEADER32` or `INSTANCE64`/`FULL_HEADER64` (the 32/64 in a
/// header type is "the bitness of the provider that logged the event"), and its
/// `EVENT_INSTANCE_INFO`s are in the same width.
///
/// Registration handles are 1, 2, 3... in registration order, so they fit the 32-bit
/// `EVENT_INSTANCE_INFO` too; zero is never a handle.
///
/// ```
/// use etw_classic::{Bitness, Class, EventData, EventInstanceHeader, EventType, Guid,
///                   Level, Provider, Session, SteppingContext, TimesOrFlags, Traced, WnodeFlags};
///
/// let mut session = Session::<1024, 2>::new(1, Level::VERBOSE);
/// let mut provider = Provider::<2>::new(Bitness::Bits32);
/// let class = provider.register("ce5b6d6b-c6ec-4c7a-8e1b-0f0e1b5d3a11".parse()?)?;
/// let instance = provider.create_instance_id(class)?;
/// let mut context = SteppingContext { now: 1000, step: 10, thread_id: 7, ..Default::default() };
///
/// let data = [1u8, 2, 3];
/// let header = EventInstanceHeader {
///     size: (EventInstanceHeader::LEN + data.len()) as u16,
///     class: Class::new(EventType::START, Level::INFORMATION, 0),
///     reg_handle: class,
///     times: TimesOrFlags::from_event_id(0, WnodeFlags::TRACED_GUID),
///     ..Default::default()
/// };
/// let traced = provider.trace_event_instance(
///     &mut session, &header, EventData::Inline(&data), &instance, None, &mut context)?;
/// assert_eq!(traced, Traced::Written { slot: 0, offset: 0x48, size: 0x48 + 3 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Provider<const CLASSES: usize> {
    bitness: Bitness,
    registrations: heapless::Vec<Registration, CLASSES>,
}

impl<const CLASSES: usize> Provider<CLASSES> {
    /// A provider with no registered class, writing events in the `bitness` layout.
    pub const fn new(bitness: Bitness) -> Self {
        Self {
            bitness,
            registrations: heapless::Vec::new(),
        }
    }

    /// The pointer width of the events and instance infos this provider writes.
    pub const fn bitness(&self) -> Bitness {
        self.bitness
    }

    /// Registers an event trace class, as `RegisterTraceGuids` does with each
    /// `TRACE_GUID_REGISTRATION`, and returns its registration handle (never zero).
    ///
    /// Registering a GUID that is already registered returns its existing handle.
    ///
    /// # Errors
    /// [`TraceError::RegistrationTableFull`] when all `CLASSES` entries are in use.
    pub fn register(&mut self, class_guid: Guid) -> Result<u64, TraceError> {
        if let Some(handle) = self.handle_of(class_guid) {
            return Ok(handle);
        }
        let index = self.registrations.len();
        self.registrations
            .push(Registration {
                class_guid: GuidOrPtr::from_guid(class_guid),
                last_instance_id: 0,
            })
            .map_err(|_| TraceError::RegistrationTableFull { capacity: CLASSES })?;
        Ok(handle_for_index(index))
    }

    /// The registration handle of `class_guid`, if it is registered.
    pub fn handle_of(&self, class_guid: Guid) -> Option<u64> {
        self.registrations
            .iter()
            .position(|registration| registration.class_guid.guid() == class_guid)
            .map(handle_for_index)
    }

    /// The class GUID registered under `reg_handle`.
    pub fn class_guid(&self, reg_handle: u64) -> Option<Guid> {
        self.registration(reg_handle)
            .map(|registration| registration.class_guid.guid())
    }

    /// Creates the next instance id of a registered class, as `CreateTraceInstanceId` does:
    /// "creates a unique transaction identifier and maps it to a registration handle".
    ///
    /// Ids count up from 1 per class and skip zero when they wrap (a zero `InstanceId` is an
    /// empty instance info). The result is in the provider's bitness.
    ///
    /// # Errors
    /// [`TraceError::UnknownRegHandle`] when `reg_handle` is not one of this provider's handles.
    pub fn create_instance_id(&mut self, reg_handle: u64) -> Result<EventInstanceInfo, TraceError> {
        let unknown = TraceError::UnknownRegHandle {
            role: InstanceRole::Event,
            reg_handle,
        };
        let registration = index_for_handle(reg_handle)
            .and_then(|index| self.registrations.get_mut(index))
            .ok_or(unknown)?;
        let instance_id = match registration.last_instance_id.wrapping_add(1) {
            0 => 1,
            id => id,
        };
        registration.last_instance_id = instance_id;
        // Handles count up from 1 and the table holds at most `CLASSES` entries, so a handle
        // always fits a 32-bit `HANDLE`; the error arm is unreachable but costs nothing.
        EventInstanceInfo::new(self.bitness, reg_handle, instance_id).map_err(|_| {
            not_reached();
            unknown
        })
    }

    /// Writes an instance event to `session`, as `TraceEventInstance` does.
    ///
    /// The checks, in order, each with the error it gives:
    /// 1. "Selecting a level higher than 1 will also include events for lower levels": an event
    ///    whose `Class.Level` the session's level does not [enable](crate::wire::Level::enables) is
    ///    not written, and the call returns [`Traced::FilteredOut`]. This comes first, so that
    ///    an event the session does not want costs a comparison and nothing else (a provider
    ///    asks `GetTraceEnableLevel` before it builds an event); such an event is not checked.
    /// 2. `Flags` (offset 0x2C of the header) "must contain WNODE_FLAG_TRACED_GUID":
    ///    [`TraceError::MissingTracedGuidFlag`].
    /// 3. The data matches `WNODE_FLAG_USE_MOF_PTR` ([`TraceError::MofFlagMismatch`]), has at
    ///    most `MAX_MOF_FIELDS` fields ([`TraceError::TooManyMofFields`]), and `Size` is 0x38
    ///    plus the data's length, or 0x38 plus 16 per `MOF_FIELD` ([`TraceError::WrongSize`]).
    /// 4. `instance` (and `parent`, if given) has a non-zero `RegHandle` and `InstanceId`
    ///    ([`TraceError::EmptyInstanceInfo`]), is in the provider's bitness
    ///    ([`TraceError::InstanceInfoBitness`]), holds a handle this provider registered
    ///    ([`TraceError::UnknownRegHandle`]), and the header's `RegHandle` (`ParentRegHandle`)
    ///    is that handle ([`TraceError::RegHandleMismatch`]).
    /// 5. The session writes the event (see [`Session`]): [`TraceError::EventTooLarge`] for an
    ///    event of buffer size − 72 bytes or more, [`TraceError::NoFreeBuffer`] when no buffer
    ///    is free. The clock (`context.timestamp()`) is read only for an event that is written.
    ///
    /// The event written is the `EVENT_INSTANCE_GUID_HEADER` NTDLL builds, followed by the data
    /// (the `MOF_FIELD`s gathered in order):
    /// - `Size` 0x48 plus the data, `HeaderType` `INSTANCE32`/`INSTANCE64` by the provider's
    ///   bitness, `MarkerFlags` 0xC0, `Class` from the header;
    /// - `ThreadId`, `ProcessId`, `KernelTime`/`UserTime` from `context`, `TimeStamp` from
    ///   `context` unless `Flags` has `WNODE_FLAG_USE_TIMESTAMP` (then the header's is kept);
    /// - `Guid`: the class GUID registered under the instance info's handle; `InstanceId` from
    ///   the instance info; `ParentInstanceId` and `ParentGuid` from the parent's instance info
    ///   and registration, or zero without a parent.
    ///
    /// A `TRACEHANDLE` that is NULL or not valid cannot be expressed here: the session is a
    /// reference.
    ///
    /// The level test (1.) is inlined into the caller and the rest is a function of its own,
    /// so that a filtered-out event costs the test and not the frame of the whole call (16
    /// instructions on a Cortex-M4, `docs/FIRMWARE.md`). So is the match on the kind of data,
    /// which goes where the caller's is known.
    ///
    /// # Errors
    /// As listed above; [`TraceError::win32_code`] gives the documented Win32 code of each.
    #[inline(always)]
    pub fn trace_event_instance<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        header: &EventInstanceHeader,
        data: EventData<'_>,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        if !session.enable_level().enables(header.class.level) {
            return Ok(Traced::FilteredOut);
        }
        // One write for each kind of data: the variant is known at most call sites, so the
        // match goes and the slice is passed in registers.
        match data {
            EventData::Inline(bytes) => {
                self.trace_instance_payload(session, header, bytes, instance, parent, context)
            }
            EventData::MofFields(fields) => {
                self.trace_instance_payload(session, header, fields, instance, parent, context)
            }
        }
    }

    /// [`trace_event_instance`](Self::trace_event_instance) after the level test, for one
    /// kind of data: the write, and the outcome built from its `Size` or, when it wrote
    /// nothing, from the error found out of line.
    #[inline(always)]
    fn trace_instance_payload<'d, const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        header: &EventInstanceHeader,
        data: impl Payload<'d>,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        match self.write_instance_event(session, header, data, instance, parent, context) {
            Some(size) => Ok(session.written(size)),
            None => Err(self.instance_event_error(session, header, data, instance, parent)),
        }
    }

    /// [`trace_event_instance`](Self::trace_event_instance) after the level test: checks 2 to
    /// 5 and the event written. Returns the event's `Size`, or `None` when a check fails or
    /// the session refuses the event.
    ///
    /// The outcome is a `u16` in a register, not a `Result` in memory: which check failed and
    /// its error are found again out of line
    /// ([`instance_event_error`](Self::instance_event_error)), and where the event went is
    /// read from the session ([`Session::written`]), so that this function builds no error,
    /// and keeps neither the result's address nor the event's slot and offset live across the
    /// write.
    #[inline]
    fn write_instance_event<'d, const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        header: &EventInstanceHeader,
        data: impl Payload<'d>,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
        context: &mut impl TraceContext,
    ) -> Option<u16> {
        let data = data.event_data();
        let flags = header.times.flags();
        if !flags.contains(WnodeFlags::TRACED_GUID) {
            return None;
        }
        // The event's size in the buffer once the data passes its check.
        let total = data.event_len(
            EventInstanceHeader::LEN,
            EventInstanceGuidHeader::LEN,
            header.size,
            flags,
        )?;
        let class_guid = self.checked_guid(instance, header.reg_handle)?;
        let (parent_instance_id, parent_guid) = match parent {
            Some(parent) => (
                parent.instance_id(),
                self.checked_guid(parent, header.parent_reg_handle)?,
            ),
            None => (0, &GuidOrPtr([0; 16])),
        };
        let header_type = match self.bitness {
            Bitness::Bits32 => HeaderType::INSTANCE32,
            Bitness::Bits64 => HeaderType::INSTANCE64,
        };
        let instance_id = instance.instance_id();
        // The header's `Class` and `TimeStamp` are read where they are written, not kept
        // across the room test and the clock's reading (fewer values live, fewer spills).
        session.write_event::<{ EventInstanceGuidHeader::LEN }, _>(
            total,
            data,
            context,
            |context| event_time(context, flags, header.timestamp),
            |out, size, timestamp, context| {
                // `out` is the header's 0x48 bytes: `emit` has room, and the length check is
                // resolved when the code is built.
                let _ = EventInstanceGuidHeader {
                    header: stamped(
                        context,
                        size,
                        header_type,
                        header.class,
                        timestamp,
                        *class_guid,
                    ),
                    instance_id,
                    parent_instance_id,
                    parent_guid: Guid::NIL,
                }
                .emit(out.as_mut_slice());
                // `ParentGuid`, the header's last 16 bytes, copied as the registration holds
                // it (the optimiser drops the NIL written before), as one `u128`: four word
                // moves, where a 16-byte array copy is a call to `memcpy`.
                if let Some(out) = out.last_chunk_mut::<16>() {
                    *out = u128::from_ne_bytes(parent_guid.0).to_ne_bytes();
                }
            },
        )
    }

    /// Writes a plain event to `session`, as `TraceEvent` does.
    ///
    /// The level filter comes first, as in [`trace_event_instance`](Self::trace_event_instance);
    /// then its checks without the instance infos: `Flags` must contain
    /// `WNODE_FLAG_TRACED_GUID`, `Size` must be 0x30 plus the data (or plus 16 per
    /// `MOF_FIELD`), and the session may refuse the event. With `WNODE_FLAG_USE_GUID_PTR`, "ETW
    /// uses the pointer to copy the GUID to the event": `context.guid_at(GuidPtr)` must resolve
    /// it, else [`TraceError::UnresolvedGuidPtr`].
    ///
    /// The event written is a `FULL_HEADER32`/`FULL_HEADER64` `EVENT_TRACE_HEADER` by the
    /// provider's bitness, `MarkerFlags` 0xC0, `Size` 0x30 plus the data, `Class` and `Guid` from
    /// the header (or the GUID behind `GuidPtr`), the rest stamped from `context` as for
    /// instance events. The class need not be registered.
    ///
    /// As there, the level test is inlined into the caller and the rest is a function of its
    /// own.
    ///
    /// # Errors
    /// As listed above; [`TraceError::win32_code`] gives the documented Win32 code of each.
    #[inline(always)]
    pub fn trace_event<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        header: &EventTraceHeader,
        data: EventData<'_>,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        if !session.enable_level().enables(header.class.level) {
            return Ok(Traced::FilteredOut);
        }
        self.write_plain_event(session, header, data, context)
    }

    /// [`trace_event`](Self::trace_event) after the level test.
    #[inline]
    fn write_plain_event<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        header: &EventTraceHeader,
        data: EventData<'_>,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        let flags = header.times.flags();
        check_traced_guid(flags)?;
        data.check(EventTraceHeader::LEN, header.size, flags)?;
        // The event's size in the buffer (`Some`: the data passed its check).
        let total = known(
            data.event_len(
                EventTraceHeader::LEN,
                EventTraceHeader::LEN,
                header.size,
                flags,
            ),
            usize::MAX,
        );
        let guid = if flags.contains(WnodeFlags::USE_GUID_PTR) {
            let guid_ptr = header.guid.guid_ptr();
            GuidOrPtr::from_guid(
                context
                    .guid_at(guid_ptr)
                    .ok_or(TraceError::UnresolvedGuidPtr { guid_ptr })?,
            )
        } else {
            header.guid
        };
        let header_type = match self.bitness {
            Bitness::Bits32 => HeaderType::FULL_HEADER32,
            Bitness::Bits64 => HeaderType::FULL_HEADER64,
        };
        let (class, timestamp_in_header) = (header.class, header.timestamp);
        let written = session.write_event::<{ EventTraceHeader::LEN }, _>(
            total,
            data,
            context,
            |context| event_time(context, flags, timestamp_in_header),
            |out, size, timestamp, context| {
                // `out` is the header's 0x30 bytes: `emit` has room (see above).
                let _ = stamped(context, size, header_type, class, timestamp, guid)
                    .emit(out.as_mut_slice());
            },
        );
        match written {
            Some(size) => Ok(session.written(size)),
            None => Err(session.write_error(total)),
        }
    }

    /// A plain event of class `guid` and `class`, as [`trace_event`](Self::trace_event) writes
    /// it from a header with `WNODE_FLAG_TRACED_GUID` and no other flag, whose `data_len`
    /// bytes of data `data` writes in place in the session's buffer rather than being copied
    /// from the caller's: the write of typed payloads
    /// ([`TypedEvent`](crate::describe::TypedEvent)). The level test comes first, as there.
    ///
    /// # Errors
    /// What the session refuses: [`TraceError::EventTooLarge`] (a `data_len` that makes
    /// `Size` overflow a `u16` included), [`TraceError::NoFreeBuffer`].
    #[inline(always)]
    pub(crate) fn trace_event_in_place<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        class: Class,
        guid: &Guid,
        data_len: usize,
        data: impl EventBytes,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        if !session.enable_level().enables(class.level) {
            return Ok(Traced::FilteredOut);
        }
        // At most `isize::MAX` plus 0x30: `write_event` refuses it as too large.
        let total = data_len.saturating_add(EventTraceHeader::LEN);
        let header_type = match self.bitness {
            Bitness::Bits32 => HeaderType::FULL_HEADER32,
            Bitness::Bits64 => HeaderType::FULL_HEADER64,
        };
        let written = session.write_event::<{ EventTraceHeader::LEN }, _>(
            total,
            data,
            context,
            |context| context.timestamp(),
            |out, size, timestamp, context| {
                // `out` is the header's 0x30 bytes: `emit` has room (see above).
                let _ = stamped(
                    context,
                    size,
                    header_type,
                    class,
                    timestamp,
                    GuidOrPtr::from_guid(*guid),
                )
                .emit(out.as_mut_slice());
            },
        );
        match written {
            Some(size) => Ok(session.written(size)),
            None => Err(session.write_error(total)),
        }
    }

    /// The class GUID registered under an `EVENT_INSTANCE_INFO` argument's handle when the
    /// argument passes every check against the header's handle (see
    /// [`instance_error`](Self::instance_error) for the checks and their order), `None` when
    /// it fails one.
    #[inline(always)]
    fn checked_guid(&self, info: &EventInstanceInfo, handle_in_header: u64) -> Option<&GuidOrPtr> {
        let (reg_handle, instance_id, bitness) = match info {
            EventInstanceInfo::Bits32(info) => (
                u64::from(info.reg_handle),
                info.instance_id,
                Bitness::Bits32,
            ),
            EventInstanceInfo::Bits64(info) => (info.reg_handle, info.instance_id, Bitness::Bits64),
        };
        // Every check passes: one test each, and the registration's GUID. (A zero handle has
        // no registration.)
        if instance_id != 0 && bitness == self.bitness && handle_in_header == reg_handle {
            if let Some(registration) = self.registration(reg_handle) {
                return Some(&registration.class_guid);
            }
        }
        None
    }

    /// The error of an instance event that [`write_instance_event`](Self::write_instance_event)
    /// did not write: the first of checks 2 to 4 of
    /// [`trace_event_instance`](Self::trace_event_instance) that fails, in their order, else
    /// the session's refusal ([`Session::write_error`]).
    #[cold]
    #[inline(never)]
    fn instance_event_error<'d, const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        session: &Session<BUFFER_SIZE, BUFFER_COUNT>,
        header: &EventInstanceHeader,
        data: impl Payload<'d>,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
    ) -> TraceError {
        let data = data.event_data();
        let flags = header.times.flags();
        if let Err(error) = check_traced_guid(flags)
            .and_then(|()| data.check(EventInstanceHeader::LEN, header.size, flags))
        {
            return error;
        }
        // The instance info, then the parent's.
        if let Some(error) = self.instance_error(InstanceRole::Event, instance, header.reg_handle) {
            return error;
        }
        if let Some(error) = parent.and_then(|parent| {
            self.instance_error(InstanceRole::Parent, parent, header.parent_reg_handle)
        }) {
            return error;
        }
        // Checks 2 to 4 pass, here as in `write_instance_event`, which writes them apart for
        // speed: that it refused the event is the session's doing (too large, or lost). Were
        // the two versions of the checks to disagree, the event would be reported lost and not
        // counted; debug builds stop here instead (and `tests/session_laws.rs` checks every
        // refusal's reason against the rules).
        let total = data.event_len(
            EventInstanceHeader::LEN,
            EventInstanceGuidHeader::LEN,
            header.size,
            flags,
        );
        debug_assert!(
            total.is_some()
                && self.checked_guid(instance, header.reg_handle).is_some()
                && parent.is_none_or(|parent| {
                    self.checked_guid(parent, header.parent_reg_handle)
                        .is_some()
                }),
            "broken invariant: the checks of the write and of its error disagree"
        );
        session.write_error(known(total, usize::MAX))
    }

    /// The error of an `EVENT_INSTANCE_INFO` argument that fails a check, the first of: a
    /// non-zero `RegHandle` and `InstanceId` ([`TraceError::EmptyInstanceInfo`]), the
    /// provider's bitness ([`TraceError::InstanceInfoBitness`]), a handle this provider
    /// registered ([`TraceError::UnknownRegHandle`]), the same handle in the header
    /// ([`TraceError::RegHandleMismatch`]); `None` when it passes them all (as
    /// [`checked_guid`](Self::checked_guid) finds it).
    #[inline(never)]
    fn instance_error(
        &self,
        role: InstanceRole,
        info: &EventInstanceInfo,
        handle_in_header: u64,
    ) -> Option<TraceError> {
        let reg_handle = info.reg_handle();
        let instance_id = info.instance_id();
        if reg_handle == 0 || instance_id == 0 {
            return Some(TraceError::EmptyInstanceInfo {
                role,
                reg_handle,
                instance_id,
            });
        }
        if info.bitness() != self.bitness {
            return Some(TraceError::InstanceInfoBitness {
                role,
                expected: self.bitness,
                found: info.bitness(),
            });
        }
        if self.registration(reg_handle).is_none() {
            return Some(TraceError::UnknownRegHandle { role, reg_handle });
        }
        (handle_in_header != reg_handle).then_some(TraceError::RegHandleMismatch {
            role,
            in_header: handle_in_header,
            in_instance_info: reg_handle,
        })
    }

    #[inline(always)]
    fn registration(&self, reg_handle: u64) -> Option<&Registration> {
        index_for_handle(reg_handle).and_then(|index| self.registrations.get(index))
    }
}

/// `Flags` "must contain WNODE_FLAG_TRACED_GUID".
#[inline(always)]
fn check_traced_guid(flags: WnodeFlags) -> Result<(), TraceError> {
    if flags.contains(WnodeFlags::TRACED_GUID) {
        Ok(())
    } else {
        Err(TraceError::MissingTracedGuidFlag { flags })
    }
}

/// `TimeStamp`: the caller's with `WNODE_FLAG_USE_TIMESTAMP`, else a reading of the clock.
#[inline(always)]
fn event_time(context: &mut impl TraceContext, flags: WnodeFlags, timestamp_in_header: i64) -> i64 {
    if flags.contains(WnodeFlags::USE_TIMESTAMP) {
        timestamp_in_header
    } else {
        context.timestamp()
    }
}

/// The `EVENT_TRACE_HEADER` part every written event shares, stamped by the logger from
/// `context` (its `ThreadId`, `ProcessId` and CPU times) and the event's time.
#[inline(always)]
fn stamped(
    context: &impl TraceContext,
    size: u16,
    header_type: HeaderType,
    class: Class,
    timestamp: i64,
    guid: GuidOrPtr,
) -> EventTraceHeader {
    let (kernel_time, user_time) = context.cpu_times();
    EventTraceHeader {
        size,
        header_type,
        marker_flags: MarkerFlags::EVENT_TRACE_HEADER,
        class,
        thread_id: context.thread_id(),
        process_id: context.process_id(),
        timestamp,
        guid,
        times: TimesOrFlags::from_times(kernel_time, user_time),
    }
}

/// The handle of the registration at `index` in the table: `index + 1`.
// `index` is below `CLASSES`, a `usize`, and `usize` is at most 64 bits wide on every target:
// neither the conversion nor the sum loses anything.
#[allow(clippy::as_conversions, clippy::arithmetic_side_effects)]
fn handle_for_index(index: usize) -> u64 {
    index as u64 + 1
}

#[inline]
fn index_for_handle(reg_handle: u64) -> Option<usize> {
    reg_handle
        .checked_sub(1)
        .and_then(|index| usize::try_from(index).ok())
}
