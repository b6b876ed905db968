//! What the provider and the session report when an event cannot be traced, and the Win32 code
//! each failure maps to.

use crate::wire::codes::WnodeFlags;
use crate::wire::layout::Bitness;

open_code! {
    /// A Win32 system error code (winerror.h), as `TraceEvent` and `TraceEventInstance` return
    /// them. [`TraceError::win32_code`] maps every failure of this crate's provider to one.
    pub struct Win32Error(u32) {
        /// `ERROR_SUCCESS` (0).
        SUCCESS = 0,
        /// `ERROR_INVALID_HANDLE` (6): "TraceHandle is not valid".
        INVALID_HANDLE = 6,
        /// `ERROR_NOT_ENOUGH_MEMORY` (8): "The session ran out of free buffers to write to".
        NOT_ENOUGH_MEMORY = 8,
        /// `ERROR_OUTOFMEMORY` (14): "There was insufficient memory to complete the function call".
        OUTOFMEMORY = 14,
        /// `ERROR_INVALID_PARAMETER` (87).
        INVALID_PARAMETER = 87,
        /// `ERROR_BUSY` (170): "The requested resource is in use."
        BUSY = 170,
        /// `ERROR_MORE_DATA` (234): "Data from a single event cannot span multiple buffers".
        MORE_DATA = 234,
        /// `ERROR_INVALID_FLAGS` (1004): "The Flags member ... does not contain
        /// WNODE_FLAG_TRACED_GUID".
        INVALID_FLAGS = 1004,
    }
}

/// Which `EVENT_INSTANCE_INFO` argument of `TraceEventInstance` an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum InstanceRole {
    /// `InstInfo`: the event's own registration and instance id.
    Event,
    /// `ParentInstInfo`: the parent's registration and instance id.
    Parent,
}

impl core::fmt::Display for InstanceRole {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Event => "instance info",
            Self::Parent => "parent instance info",
        })
    }
}

/// Why the [`Provider`](crate::write::Provider) did not write an event, or could not register a class.
///
/// Each variant says what was expected and what was found, and
/// [`win32_code`](Self::win32_code) gives the Win32 code Windows documents for the same
/// failure. `Copy`, allocation-free and `#[non_exhaustive]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TraceError {
    /// "The Flags member ... does not contain WNODE_FLAG_TRACED_GUID."
    /// Maps to `ERROR_INVALID_FLAGS`.
    MissingTracedGuidFlag {
        /// The `Flags` found at offset 0x2C of the header.
        flags: WnodeFlags,
    },
    /// "The Size member ... is incorrect": it must be the header's length plus the data
    /// appended to it (with `WNODE_FLAG_USE_MOF_PTR`, plus 16 bytes per `MOF_FIELD`).
    /// Maps to `ERROR_INVALID_PARAMETER`.
    WrongSize {
        /// The `Size` the header and its data call for.
        expected: usize,
        /// The `Size` found in the header.
        found: u16,
    },
    /// More `MOF_FIELD`s than `MAX_MOF_FIELDS` (16). Maps to `ERROR_INVALID_PARAMETER`.
    TooManyMofFields {
        /// The number of fields given.
        count: usize,
    },
    /// The data was given as `MOF_FIELD`s without `WNODE_FLAG_USE_MOF_PTR` in `Flags`, or the
    /// flag is set and the data was given inline. Maps to `ERROR_INVALID_PARAMETER`.
    MofFlagMismatch {
        /// Whether `Flags` has `WNODE_FLAG_USE_MOF_PTR`.
        flag_set: bool,
    },
    /// `Flags` has `WNODE_FLAG_USE_GUID_PTR` and the [`TraceContext`](crate::write::TraceContext) could
    /// not resolve `GuidPtr` to a GUID. Maps to `ERROR_INVALID_PARAMETER`.
    UnresolvedGuidPtr {
        /// The `GuidPtr` found at offset 0x18.
        guid_ptr: u64,
    },
    /// "The members of pInstInfo are NULL": a zero `RegHandle` or `InstanceId`.
    /// Maps to `ERROR_INVALID_PARAMETER`.
    EmptyInstanceInfo {
        /// Which argument.
        role: InstanceRole,
        /// The `RegHandle` found.
        reg_handle: u64,
        /// The `InstanceId` found.
        instance_id: u32,
    },
    /// The `EVENT_INSTANCE_INFO` is in the other pointer width than the provider's.
    /// Maps to `ERROR_INVALID_PARAMETER`.
    InstanceInfoBitness {
        /// Which argument.
        role: InstanceRole,
        /// The provider's bitness.
        expected: Bitness,
        /// The layout of the instance info given.
        found: Bitness,
    },
    /// The header's `RegHandle` (or `ParentRegHandle`) is not the registration of the matching
    /// `EVENT_INSTANCE_INFO`. Maps to `ERROR_INVALID_PARAMETER`.
    RegHandleMismatch {
        /// Which argument.
        role: InstanceRole,
        /// The handle in the `EVENT_INSTANCE_HEADER`.
        in_header: u64,
        /// The handle in the `EVENT_INSTANCE_INFO`.
        in_instance_info: u64,
    },
    /// A registration handle this provider never returned. Maps to `ERROR_INVALID_HANDLE`.
    UnknownRegHandle {
        /// Which argument.
        role: InstanceRole,
        /// The handle found.
        reg_handle: u64,
    },
    /// "Size must be less than the size of the event tracing session's buffer minus 72 (0x48)",
    /// and no event exceeds 64 KiB (`Size` is a `u16`). The rule is applied to the `Size` the
    /// event has in the buffer. Maps to `ERROR_MORE_DATA`.
    EventTooLarge {
        /// The event's size in the buffer, header included.
        size: usize,
        /// The smallest size that is refused: the buffer size minus 72, or 0x10000.
        limit: usize,
    },
    /// No free buffer was left: "Rather than blocking until more buffers become available,
    /// TraceEvent discards the event." The event was counted as lost.
    /// Maps to `ERROR_NOT_ENOUGH_MEMORY`.
    NoFreeBuffer {
        /// Events lost by the session so far, this one included.
        events_lost: u32,
    },
    /// A `SharedSession` (feature `critical-section`) was called while the same context was
    /// already inside a call on it (from the closure given to its `with`, or from the
    /// [`TraceContext`](crate::write::TraceContext) a trace call reads); nothing was done.
    /// Windows has no such case (its sessions take no lock); maps to `ERROR_BUSY`.
    SessionBusy,
    /// The provider's registration table is full: no class can be added.
    /// Maps to `ERROR_OUTOFMEMORY`.
    RegistrationTableFull {
        /// The table's capacity.
        capacity: usize,
    },
}

impl TraceError {
    /// The Win32 error code Windows documents for this failure.
    ///
    /// | variant | code |
    /// |---|---|
    /// | [`MissingTracedGuidFlag`](Self::MissingTracedGuidFlag) | `ERROR_INVALID_FLAGS` (1004) |
    /// | [`WrongSize`](Self::WrongSize), [`TooManyMofFields`](Self::TooManyMofFields), [`MofFlagMismatch`](Self::MofFlagMismatch), [`UnresolvedGuidPtr`](Self::UnresolvedGuidPtr), [`EmptyInstanceInfo`](Self::EmptyInstanceInfo), [`InstanceInfoBitness`](Self::InstanceInfoBitness), [`RegHandleMismatch`](Self::RegHandleMismatch) | `ERROR_INVALID_PARAMETER` (87) |
    /// | [`UnknownRegHandle`](Self::UnknownRegHandle) | `ERROR_INVALID_HANDLE` (6) |
    /// | [`EventTooLarge`](Self::EventTooLarge) | `ERROR_MORE_DATA` (234) |
    /// | [`NoFreeBuffer`](Self::NoFreeBuffer) | `ERROR_NOT_ENOUGH_MEMORY` (8) |
    /// | [`RegistrationTableFull`](Self::RegistrationTableFull) | `ERROR_OUTOFMEMORY` (14) |
    /// | [`SessionBusy`](Self::SessionBusy) | `ERROR_BUSY` (170) |
    pub const fn win32_code(&self) -> Win32Error {
        match self {
            Self::MissingTracedGuidFlag { .. } => Win32Error::INVALID_FLAGS,
            Self::WrongSize { .. }
            | Self::TooManyMofFields { .. }
            | Self::MofFlagMismatch { .. }
            | Self::UnresolvedGuidPtr { .. }
            | Self::EmptyInstanceInfo { .. }
            | Self::InstanceInfoBitness { .. }
            | Self::RegHandleMismatch { .. } => Win32Error::INVALID_PARAMETER,
            Self::UnknownRegHandle { .. } => Win32Error::INVALID_HANDLE,
            Self::EventTooLarge { .. } => Win32Error::MORE_DATA,
            Self::NoFreeBuffer { .. } => Win32Error::NOT_ENOUGH_MEMORY,
            Self::RegistrationTableFull { .. } => Win32Error::OUTOFMEMORY,
            Self::SessionBusy => Win32Error::BUSY,
        }
    }
}

impl core::fmt::Display for TraceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::MissingTracedGuidFlag { flags } => write!(
                f,
                "Flags must contain WNODE_FLAG_TRACED_GUID (0x20000), found {:#x}",
                flags.0
            ),
            Self::WrongSize { expected, found } => write!(
                f,
                "Size must be {expected:#x} (header plus event data), found {found:#x}"
            ),
            Self::TooManyMofFields { count } => write!(
                f,
                "at most {} MOF_FIELDs fit an event (MAX_MOF_FIELDS), found {count}",
                crate::wire::codes::MAX_MOF_FIELDS
            ),
            Self::MofFlagMismatch { flag_set: true } => f.write_str(
                "Flags has WNODE_FLAG_USE_MOF_PTR, so the data must be MOF_FIELDs, found inline data",
            ),
            Self::MofFlagMismatch { flag_set: false } => f.write_str(
                "the data is MOF_FIELDs, so Flags must have WNODE_FLAG_USE_MOF_PTR, found it clear",
            ),
            Self::UnresolvedGuidPtr { guid_ptr } => write!(
                f,
                "Flags has WNODE_FLAG_USE_GUID_PTR, expected GuidPtr to point at a GUID, found {guid_ptr:#x} unresolved"
            ),
            Self::EmptyInstanceInfo {
                role,
                reg_handle,
                instance_id,
            } => write!(
                f,
                "{role} must have a non-zero RegHandle and InstanceId, found {reg_handle:#x} and {instance_id}"
            ),
            Self::InstanceInfoBitness {
                role,
                expected,
                found,
            } => write!(
                f,
                "{role} must be in the provider's {expected} layout, found the {found} one"
            ),
            Self::RegHandleMismatch {
                role,
                in_header,
                in_instance_info,
            } => write!(
                f,
                "the header's handle must be the {role}'s RegHandle {in_instance_info:#x}, found {in_header:#x}"
            ),
            Self::UnknownRegHandle { role, reg_handle } => write!(
                f,
                "{role} must hold a handle this provider registered, found {reg_handle:#x}"
            ),
            Self::EventTooLarge { size, limit } => write!(
                f,
                "an event must be smaller than {limit:#x} bytes (buffer size minus 72, at most 64 KiB), found {size:#x}"
            ),
            Self::NoFreeBuffer { events_lost } => write!(
                f,
                "expected a free trace buffer, found none: the event was discarded ({events_lost} lost so far)"
            ),
            Self::SessionBusy => f.write_str(
                "expected the shared session to be free, found it in use by a call of the same context",
            ),
            Self::RegistrationTableFull { capacity } => write!(
                f,
                "expected room to register a class, found all {capacity} registrations in use"
            ),
        }
    }
}

impl core::error::Error for TraceError {}
