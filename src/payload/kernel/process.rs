//! Processes, threads (with context switches, ready threads, thread names, ...) and images.
//!
//! Written from the kernel's MOF (`wmicore.mof`; see the parent module for the sources and
//! the rules that turn its qualifiers into types); task and opcode names as TraceEvent prints
//! them.

use crate::payload::schema::Count;

use super::{
    ansiz, boolean, event, hex32, hex64, hex8, pointer, sid, sint32, sint8, size_t, uint16, uint32,
    uint64, uint8, utf16z, Field, KernelEvent, IMAGE, PROCESS, THREAD,
};

// ---- Process `3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c` ----

/// `Process_V0_TypeGroup1`, version 0, event types 1, 2, 3, 4.
const PROCESS_V0_TYPE_GROUP1: &[Field] = &[
    pointer("ProcessId"),
    pointer("ParentId"),
    sid("UserSID"),
    ansiz("ImageFileName"),
];

/// `Process_V1_TypeGroup1`, version 1, event types 1, 2, 3, 4.
const PROCESS_V1_TYPE_GROUP1: &[Field] = &[
    pointer("PageDirectoryBase"),
    hex32("ProcessId"),
    hex32("ParentId"),
    uint32("SessionId"),
    sint32("ExitStatus"),
    sid("UserSID"),
    ansiz("ImageFileName"),
];

/// `Process_V2_TypeGroup1`, version 2, event types 1, 2, 3, 4, 39.
const PROCESS_V2_TYPE_GROUP1: &[Field] = &[
    pointer("UniqueProcessKey"),
    hex32("ProcessId"),
    hex32("ParentId"),
    uint32("SessionId"),
    sint32("ExitStatus"),
    sid("UserSID"),
    ansiz("ImageFileName"),
    utf16z("CommandLine"),
];

/// `Process_Terminate_TypeGroup1`, version 2, event types 11.
const PROCESS_TERMINATE_TYPE_GROUP1: &[Field] = &[hex32("ProcessId")];

/// `Process_V2_TypeGroup2`, version 2, event types 32, 33.
const PROCESS_V2_TYPE_GROUP2: &[Field] = &[
    hex32("ProcessId"),
    uint32("PageFaultCount"),
    uint32("HandleCount"),
    uint32("Reserved"),
    size_t("PeakVirtualSize"),
    size_t("PeakWorkingSetSize"),
    size_t("PeakPagefileUsage"),
    size_t("QuotaPeakPagedPoolUsage"),
    size_t("QuotaPeakNonPagedPoolUsage"),
    size_t("VirtualSize"),
    size_t("WorkingSetSize"),
    size_t("PagefileUsage"),
    size_t("QuotaPagedPoolUsage"),
    size_t("QuotaNonPagedPoolUsage"),
    size_t("PrivatePageCount"),
];

/// `Process_V2_TypeGroup3`, version 2, event types 35.
const PROCESS_V2_TYPE_GROUP3: &[Field] = &[pointer("DirectoryTableBase"), hex32("ProcessId")];

/// `Process_V2_TypeGroup4`, version 2, event types 48, 49, 50, 51, 52, 64, 65, 66, 67, 68, 80, 81, 82, 83, 84.
const PROCESS_V2_TYPE_GROUP4: &[Field] = &[
    pointer("Object"),
    pointer("Tag"),
    hex32("ProcessId"),
    uint32("Count"),
];

/// `Process_V2_TypeGroup5`, version 2, event types 96, 97, 98, 99.
const PROCESS_V2_TYPE_GROUP5: &[Field] = &[pointer("Object")];

/// `Process_V3_TypeGroup1`, version 3, event types 1, 2, 3, 4, 39.
const PROCESS_V3_TYPE_GROUP1: &[Field] = &[
    pointer("UniqueProcessKey"),
    hex32("ProcessId"),
    hex32("ParentId"),
    uint32("SessionId"),
    sint32("ExitStatus"),
    pointer("DirectoryTableBase"),
    sid("UserSID"),
    ansiz("ImageFileName"),
    utf16z("CommandLine"),
];

/// `Process_V4_TypeGroup1`, version 4, event types 1, 2, 3, 4, 39.
const PROCESS_V4_TYPE_GROUP1: &[Field] = &[
    pointer("UniqueProcessKey"),
    hex32("ProcessId"),
    hex32("ParentId"),
    uint32("SessionId"),
    sint32("ExitStatus"),
    pointer("DirectoryTableBase"),
    uint32("Flags"),
    sid("UserSID"),
    ansiz("ImageFileName"),
    utf16z("CommandLine"),
    utf16z("PackageFullName"),
    utf16z("ApplicationId"),
];

/// `Process_Defunct_TypeGroup1`, version 5, event types 39.
const PROCESS_DEFUNCT_TYPE_GROUP1: &[Field] = &[
    pointer("UniqueProcessKey"),
    hex32("ProcessId"),
    hex32("ParentId"),
    uint32("SessionId"),
    sint32("ExitStatus"),
    pointer("DirectoryTableBase"),
    uint32("Flags"),
    sid("UserSID"),
    ansiz("ImageFileName"),
    utf16z("CommandLine"),
    utf16z("PackageFullName"),
    utf16z("ApplicationId"),
    uint64("ExitTime"),
];

/// The events of `Process`, by event type and version.
#[rustfmt::skip]
pub(super) static PROCESS_EVENTS: [KernelEvent; 47] = [
    event(PROCESS, 1, 0, "Process", "Start", "Process_V0_TypeGroup1", PROCESS_V0_TYPE_GROUP1),
    event(PROCESS, 1, 1, "Process", "Start", "Process_V1_TypeGroup1", PROCESS_V1_TYPE_GROUP1),
    event(PROCESS, 1, 2, "Process", "Start", "Process_V2_TypeGroup1", PROCESS_V2_TYPE_GROUP1),
    event(PROCESS, 1, 3, "Process", "Start", "Process_V3_TypeGroup1", PROCESS_V3_TYPE_GROUP1),
    event(PROCESS, 1, 4, "Process", "Start", "Process_V4_TypeGroup1", PROCESS_V4_TYPE_GROUP1),
    event(PROCESS, 2, 0, "Process", "Stop", "Process_V0_TypeGroup1", PROCESS_V0_TYPE_GROUP1),
    event(PROCESS, 2, 1, "Process", "Stop", "Process_V1_TypeGroup1", PROCESS_V1_TYPE_GROUP1),
    event(PROCESS, 2, 2, "Process", "Stop", "Process_V2_TypeGroup1", PROCESS_V2_TYPE_GROUP1),
    event(PROCESS, 2, 3, "Process", "Stop", "Process_V3_TypeGroup1", PROCESS_V3_TYPE_GROUP1),
    event(PROCESS, 2, 4, "Process", "Stop", "Process_V4_TypeGroup1", PROCESS_V4_TYPE_GROUP1),
    event(PROCESS, 3, 0, "Process", "DCStart", "Process_V0_TypeGroup1", PROCESS_V0_TYPE_GROUP1),
    event(PROCESS, 3, 1, "Process", "DCStart", "Process_V1_TypeGroup1", PROCESS_V1_TYPE_GROUP1),
    event(PROCESS, 3, 2, "Process", "DCStart", "Process_V2_TypeGroup1", PROCESS_V2_TYPE_GROUP1),
    event(PROCESS, 3, 3, "Process", "DCStart", "Process_V3_TypeGroup1", PROCESS_V3_TYPE_GROUP1),
    event(PROCESS, 3, 4, "Process", "DCStart", "Process_V4_TypeGroup1", PROCESS_V4_TYPE_GROUP1),
    event(PROCESS, 4, 0, "Process", "DCStop", "Process_V0_TypeGroup1", PROCESS_V0_TYPE_GROUP1),
    event(PROCESS, 4, 1, "Process", "DCStop", "Process_V1_TypeGroup1", PROCESS_V1_TYPE_GROUP1),
    event(PROCESS, 4, 2, "Process", "DCStop", "Process_V2_TypeGroup1", PROCESS_V2_TYPE_GROUP1),
    event(PROCESS, 4, 3, "Process", "DCStop", "Process_V3_TypeGroup1", PROCESS_V3_TYPE_GROUP1),
    event(PROCESS, 4, 4, "Process", "DCStop", "Process_V4_TypeGroup1", PROCESS_V4_TYPE_GROUP1),
    event(PROCESS, 11, 2, "Process", "Terminate", "Process_Terminate_TypeGroup1", PROCESS_TERMINATE_TYPE_GROUP1),
    event(PROCESS, 32, 2, "Process", "PerfCtr", "Process_V2_TypeGroup2", PROCESS_V2_TYPE_GROUP2),
    event(PROCESS, 33, 2, "Process", "PerfCtrRundown", "Process_V2_TypeGroup2", PROCESS_V2_TYPE_GROUP2),
    event(PROCESS, 35, 2, "Process", "InSwap", "Process_V2_TypeGroup3", PROCESS_V2_TYPE_GROUP3),
    event(PROCESS, 39, 2, "Process", "Defunct", "Process_V2_TypeGroup1", PROCESS_V2_TYPE_GROUP1),
    event(PROCESS, 39, 3, "Process", "Defunct", "Process_V3_TypeGroup1", PROCESS_V3_TYPE_GROUP1),
    event(PROCESS, 39, 4, "Process", "Defunct", "Process_V4_TypeGroup1", PROCESS_V4_TYPE_GROUP1),
    event(PROCESS, 39, 5, "Process", "Defunct", "Process_Defunct_TypeGroup1", PROCESS_DEFUNCT_TYPE_GROUP1),
    event(PROCESS, 48, 2, "Process", "WakeChargeUser", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 49, 2, "Process", "WakeChargeExecution", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 50, 2, "Process", "WakeChargeKernel", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 51, 2, "Process", "WakeChargeInstrumentation", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 52, 2, "Process", "WakeChargePreserveProcess", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 64, 2, "Process", "WakeReleaseUser", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 65, 2, "Process", "WakeReleaseExecution", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 66, 2, "Process", "WakeReleaseKernel", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 67, 2, "Process", "WakeReleaseInstrumentation", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 68, 2, "Process", "WakeReleasePreserveProcess", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 80, 2, "Process", "WakeDropUser", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 81, 2, "Process", "WakeDropExecution", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 82, 2, "Process", "WakeDropKernel", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 83, 2, "Process", "WakeDropInstrumentation", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 84, 2, "Process", "WakeDropPreserveProcess", "Process_V2_TypeGroup4", PROCESS_V2_TYPE_GROUP4),
    event(PROCESS, 96, 2, "Process", "WakeEventUser", "Process_V2_TypeGroup5", PROCESS_V2_TYPE_GROUP5),
    event(PROCESS, 97, 2, "Process", "WakeEventExecution", "Process_V2_TypeGroup5", PROCESS_V2_TYPE_GROUP5),
    event(PROCESS, 98, 2, "Process", "WakeEventKernel", "Process_V2_TypeGroup5", PROCESS_V2_TYPE_GROUP5),
    event(PROCESS, 99, 2, "Process", "WakeEventInstrumentation", "Process_V2_TypeGroup5", PROCESS_V2_TYPE_GROUP5),
];

// ---- Thread `3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c` ----

/// `Thread_V0_TypeGroup1`, version 0, event types 1, 2, 3, 4.
const THREAD_V0_TYPE_GROUP1: &[Field] = &[hex32("TThreadId"), hex32("ProcessId")];

/// `Thread_V1_TypeGroup1`, version 1, event types 1, 3, 4.
const THREAD_V1_TYPE_GROUP1: &[Field] = &[
    hex32("ProcessId"),
    hex32("TThreadId"),
    pointer("StackBase"),
    pointer("StackLimit"),
    pointer("UserStackBase"),
    pointer("UserStackLimit"),
    pointer("StartAddr"),
    pointer("Win32StartAddr"),
    sint8("WaitMode"),
];

/// `Thread_V1_TypeGroup2`, version 1, event types 2.
const THREAD_V1_TYPE_GROUP2: &[Field] = &[hex32("ProcessId"), hex32("TThreadId")];

/// `CSwitch_V1`, version 1, event types 36.
const C_SWITCH_V1: &[Field] = &[
    hex32("NewThreadId"),
    hex32("OldThreadId"),
    sint8("NewThreadPriority"),
    sint8("OldThreadPriority"),
    sint8("NewThreadQuantum"),
    sint8("OldThreadQuantum"),
    sint8("OldThreadWaitReason"),
    sint8("OldThreadWaitMode"),
    sint8("OldThreadState"),
    sint8("OldThreadWaitIdealProcessor"),
];

/// `WorkerThread_V1`, version 1, event types 57.
const WORKER_THREAD_V1: &[Field] = &[
    hex32("TThreadId"),
    uint64("StartTime"),
    pointer("ThreadRoutine"),
];

/// `Thread_V2_TypeGroup1`, version 2, event types 1, 2, 3, 4.
const THREAD_V2_TYPE_GROUP1: &[Field] = &[
    hex32("ProcessId"),
    hex32("TThreadId"),
    pointer("StackBase"),
    pointer("StackLimit"),
    pointer("UserStackBase"),
    pointer("UserStackLimit"),
    pointer("StartAddr"),
    pointer("Win32StartAddr"),
    pointer("TebBase"),
    hex32("SubProcessTag"),
];

/// `ThreadSetName`, version 2, event types 72.
const THREAD_SET_NAME: &[Field] = &[hex32("ProcessId"), hex32("ThreadId"), utf16z("ThreadName")];

/// `CSwitch_V2`, version 2, event types 36.
const C_SWITCH_V2: &[Field] = &[
    hex32("NewThreadId"),
    hex32("OldThreadId"),
    sint8("NewThreadPriority"),
    sint8("OldThreadPriority"),
    uint8("PreviousCState"),
    sint8("SpareByte"),
    sint8("OldThreadWaitReason"),
    sint8("OldThreadWaitMode"),
    sint8("OldThreadState"),
    sint8("OldThreadWaitIdealProcessor"),
    hex32("NewThreadWaitTime"),
    uint32("Reserved"),
];

/// `CompCS`, version 2, event types 37.
const COMP_CS: &[Field] = &[];

/// `SpinLock`, version 2, event types 41.
const SPIN_LOCK: &[Field] = &[
    pointer("SpinLockAddress"),
    pointer("CallerAddress"),
    uint64("AcquireTime"),
    uint64("ReleaseTime"),
    uint32("WaitTimeInCycles"),
    uint32("SpinCount"),
    uint32("ThreadId"),
    uint32("InterruptCount"),
    uint8("Irql"),
    uint8("AcquireDepth"),
    uint8("Flag"),
    uint8("Reserved").with_count(Count::Fixed(5)),
];

/// `ReadyThread`, version 2, event types 50.
const READY_THREAD: &[Field] = &[
    hex32("TThreadId"),
    sint8("AdjustReason"),
    sint8("AdjustIncrement"),
    sint8("Flag"),
    sint8("Reserved"),
];

/// `ThreadAffinity`, version 2, event types 53.
const THREAD_AFFINITY: &[Field] = &[
    pointer("Affinity"),
    hex32("ThreadId"),
    uint16("Group"),
    uint16("Reserved"),
];

/// `WorkerThread`, version 2, event types 57.
const WORKER_THREAD: &[Field] = &[
    hex32("TThreadId"),
    uint64("StartTime"),
    pointer("ThreadRoutine"),
];

/// `AntiStarvationBoost`, version 2, event types 60.
const ANTI_STARVATION_BOOST: &[Field] = &[
    hex32("ThreadId"),
    uint16("ProcessorIndex"),
    uint8("Priority"),
    uint8("Reserved"),
];

/// `ThreadMigration`, version 2, event types 61.
const THREAD_MIGRATION: &[Field] = &[
    hex32("ThreadId"),
    uint16("SourceProcessorIndex"),
    uint16("TargetProcessorIndex"),
    uint8("Priority"),
    boolean("IdealProcessorAdjust"),
    uint16("OldIdealProcessorIndex"),
];

/// `KernelQueueEnqueue`, version 2, event types 62.
const KERNEL_QUEUE_ENQUEUE: &[Field] = &[pointer("Entry"), hex32("ThreadId")];

/// `KernelQueueDequeue`, version 2, event types 63.
const KERNEL_QUEUE_DEQUEUE: &[Field] = &[
    hex32("ThreadId"),
    uint32("EntryCount"),
    pointer("Entries").with_count(Count::FromField(1)),
];

/// `WorkerThread_StartStop_V2`, version 2, event types 64, 65.
const WORKER_THREAD_START_STOP_V2: &[Field] = &[pointer("CallbackRoutine")];

/// `AutoBoostSetFloor`, version 2, event types 66.
const AUTO_BOOST_SET_FLOOR: &[Field] = &[
    pointer("Lock"),
    hex32("ThreadId"),
    uint8("NewCpuPriorityFloor"),
    uint8("OldCpuPriority"),
    uint8("IoPriorities"),
    uint8("BoostFlags"),
];

/// `AutoBoostClearFloor`, version 2, event types 67.
const AUTO_BOOST_CLEAR_FLOOR: &[Field] = &[
    pointer("LockAddress"),
    hex32("ThreadId"),
    uint32("BoostBitmap"),
];

/// `AutoBoostEntryExhaustion`, version 2, event types 68.
const AUTO_BOOST_ENTRY_EXHAUSTION: &[Field] = &[pointer("LockAddress"), hex32("ThreadId")];

/// `SubProcessTagChanged`, version 2, event types 69.
const SUB_PROCESS_TAG_CHANGED: &[Field] = &[hex32("OldTag"), hex32("NewTag")];

/// `Thread_V3_TypeGroup1`, version 3, event types 1, 2, 3, 4.
const THREAD_V3_TYPE_GROUP1: &[Field] = &[
    hex32("ProcessId"),
    hex32("TThreadId"),
    pointer("StackBase"),
    pointer("StackLimit"),
    pointer("UserStackBase"),
    pointer("UserStackLimit"),
    pointer("Affinity"),
    pointer("Win32StartAddr"),
    pointer("TebBase"),
    hex32("SubProcessTag"),
    uint8("BasePriority"),
    uint8("PagePriority"),
    uint8("IoPriority"),
    uint8("ThreadFlags"),
];

/// `ThreadPriority`, version 3, event types 48, 49, 51, 52.
const THREAD_PRIORITY: &[Field] = &[
    hex32("ThreadId"),
    uint8("OldPriority"),
    uint8("NewPriority"),
    uint16("Reserved"),
];

/// `CSwitch_V3`, version 3, event types 36.
const C_SWITCH_V3: &[Field] = &[
    hex32("NewThreadId"),
    hex32("OldThreadId"),
    sint8("NewThreadPriority"),
    sint8("OldThreadPriority"),
    uint8("PreviousCState"),
    sint8("SpareByte"),
    sint8("OldThreadWaitReason"),
    sint8("ThreadFlags"),
    sint8("OldThreadState"),
    sint8("OldThreadWaitIdealProcessor"),
    hex32("NewThreadWaitTime"),
    uint32("Reserved"),
];

/// `Thread_TypeGroup1`, version 4, event types 1, 2, 3, 4.
const THREAD_TYPE_GROUP1: &[Field] = &[
    hex32("ProcessId"),
    hex32("TThreadId"),
    pointer("StackBase"),
    pointer("StackLimit"),
    pointer("UserStackBase"),
    pointer("UserStackLimit"),
    pointer("Affinity"),
    pointer("Win32StartAddr"),
    pointer("TebBase"),
    hex32("SubProcessTag"),
    uint8("BasePriority"),
    uint8("PagePriority"),
    uint8("IoPriority"),
    uint8("ThreadFlags"),
    utf16z("ThreadName"),
];

/// `CSwitch_V4`, version 4, event types 36.
const C_SWITCH_V4: &[Field] = &[
    hex32("NewThreadId"),
    hex32("OldThreadId"),
    sint8("NewThreadPriority"),
    sint8("OldThreadPriority"),
    uint8("PreviousCState"),
    sint8("SpareByte"),
    sint8("OldThreadWaitReason"),
    sint8("ThreadFlags"),
    sint8("OldThreadState"),
    sint8("OldThreadWaitIdealProcessor"),
    hex32("NewThreadWaitTime"),
    uint32("Reserved"),
];

/// The events of `Thread`, by event type and version.
#[rustfmt::skip]
pub(super) static THREAD_EVENTS: [KernelEvent; 45] = [
    event(THREAD, 1, 0, "Thread", "Start", "Thread_V0_TypeGroup1", THREAD_V0_TYPE_GROUP1),
    event(THREAD, 1, 1, "Thread", "Start", "Thread_V1_TypeGroup1", THREAD_V1_TYPE_GROUP1),
    event(THREAD, 1, 2, "Thread", "Start", "Thread_V2_TypeGroup1", THREAD_V2_TYPE_GROUP1),
    event(THREAD, 1, 3, "Thread", "Start", "Thread_V3_TypeGroup1", THREAD_V3_TYPE_GROUP1),
    event(THREAD, 1, 4, "Thread", "Start", "Thread_TypeGroup1", THREAD_TYPE_GROUP1),
    event(THREAD, 2, 0, "Thread", "Stop", "Thread_V0_TypeGroup1", THREAD_V0_TYPE_GROUP1),
    event(THREAD, 2, 1, "Thread", "Stop", "Thread_V1_TypeGroup2", THREAD_V1_TYPE_GROUP2),
    event(THREAD, 2, 2, "Thread", "Stop", "Thread_V2_TypeGroup1", THREAD_V2_TYPE_GROUP1),
    event(THREAD, 2, 3, "Thread", "Stop", "Thread_V3_TypeGroup1", THREAD_V3_TYPE_GROUP1),
    event(THREAD, 2, 4, "Thread", "Stop", "Thread_TypeGroup1", THREAD_TYPE_GROUP1),
    event(THREAD, 3, 0, "Thread", "DCStart", "Thread_V0_TypeGroup1", THREAD_V0_TYPE_GROUP1),
    event(THREAD, 3, 1, "Thread", "DCStart", "Thread_V1_TypeGroup1", THREAD_V1_TYPE_GROUP1),
    event(THREAD, 3, 2, "Thread", "DCStart", "Thread_V2_TypeGroup1", THREAD_V2_TYPE_GROUP1),
    event(THREAD, 3, 3, "Thread", "DCStart", "Thread_V3_TypeGroup1", THREAD_V3_TYPE_GROUP1),
    event(THREAD, 3, 4, "Thread", "DCStart", "Thread_TypeGroup1", THREAD_TYPE_GROUP1),
    event(THREAD, 4, 0, "Thread", "DCStop", "Thread_V0_TypeGroup1", THREAD_V0_TYPE_GROUP1),
    event(THREAD, 4, 1, "Thread", "DCStop", "Thread_V1_TypeGroup1", THREAD_V1_TYPE_GROUP1),
    event(THREAD, 4, 2, "Thread", "DCStop", "Thread_V2_TypeGroup1", THREAD_V2_TYPE_GROUP1),
    event(THREAD, 4, 3, "Thread", "DCStop", "Thread_V3_TypeGroup1", THREAD_V3_TYPE_GROUP1),
    event(THREAD, 4, 4, "Thread", "DCStop", "Thread_TypeGroup1", THREAD_TYPE_GROUP1),
    event(THREAD, 36, 1, "Thread", "CSwitch", "CSwitch_V1", C_SWITCH_V1),
    event(THREAD, 36, 2, "Thread", "CSwitch", "CSwitch_V2", C_SWITCH_V2),
    event(THREAD, 36, 3, "Thread", "CSwitch", "CSwitch_V3", C_SWITCH_V3),
    event(THREAD, 36, 4, "Thread", "CSwitch", "CSwitch_V4", C_SWITCH_V4),
    event(THREAD, 37, 2, "Thread", "CompCS", "CompCS", COMP_CS),
    event(THREAD, 41, 2, "Thread", "SpinLock", "SpinLock", SPIN_LOCK),
    event(THREAD, 48, 3, "Thread", "SetPriority", "ThreadPriority", THREAD_PRIORITY),
    event(THREAD, 49, 3, "Thread", "SetBasePriority", "ThreadPriority", THREAD_PRIORITY),
    event(THREAD, 50, 2, "Dispatcher", "ReadyThread", "ReadyThread", READY_THREAD),
    event(THREAD, 51, 3, "Thread", "SetPagePriority", "ThreadPriority", THREAD_PRIORITY),
    event(THREAD, 52, 3, "Thread", "SetIoPriority", "ThreadPriority", THREAD_PRIORITY),
    event(THREAD, 53, 2, "Thread", "ThreadAffinity", "ThreadAffinity", THREAD_AFFINITY),
    event(THREAD, 57, 1, "Thread", "WorkerThread", "WorkerThread_V1", WORKER_THREAD_V1),
    event(THREAD, 57, 2, "Thread", "WorkerThread", "WorkerThread", WORKER_THREAD),
    event(THREAD, 60, 2, "Thread", "AntiStarvationBoost", "AntiStarvationBoost", ANTI_STARVATION_BOOST),
    event(THREAD, 61, 2, "Thread", "Thread Migration", "ThreadMigration", THREAD_MIGRATION),
    event(THREAD, 62, 2, "Thread", "Enqueue", "KernelQueueEnqueue", KERNEL_QUEUE_ENQUEUE),
    event(THREAD, 63, 2, "Thread", "Dequeue", "KernelQueueDequeue", KERNEL_QUEUE_DEQUEUE),
    event(THREAD, 64, 2, "Thread", "Start", "WorkerThread_StartStop_V2", WORKER_THREAD_START_STOP_V2),
    event(THREAD, 65, 2, "Thread", "End", "WorkerThread_StartStop_V2", WORKER_THREAD_START_STOP_V2),
    event(THREAD, 66, 2, "Thread", "AutoBoost Set Floor", "AutoBoostSetFloor", AUTO_BOOST_SET_FLOOR),
    event(THREAD, 67, 2, "Thread", "AutoBoost Clear Floor", "AutoBoostClearFloor", AUTO_BOOST_CLEAR_FLOOR),
    event(THREAD, 68, 2, "Thread", "AutoBoost Entry Exhaustion", "AutoBoostEntryExhaustion", AUTO_BOOST_ENTRY_EXHAUSTION),
    event(THREAD, 69, 2, "Thread", "SubProcessTag Changed", "SubProcessTagChanged", SUB_PROCESS_TAG_CHANGED),
    event(THREAD, 72, 2, "Thread", "SetName", "ThreadSetName", THREAD_SET_NAME),
];

// ---- Image `2cb15d1d-5fc1-11d2-abe1-00a0c911f518` ----

/// `Image_V0_Load`, version 0, event types 10.
const IMAGE_V0_LOAD: &[Field] = &[
    pointer("BaseAddress"),
    uint32("ModuleSize"),
    utf16z("ImageFileName"),
];

/// `Image_V1_Load`, version 1, event types 10.
const IMAGE_V1_LOAD: &[Field] = &[
    pointer("ImageBase"),
    pointer("ImageSize"),
    uint32("ProcessId"),
    utf16z("FileName"),
];

/// `Image_Load_V2`, version 2, event types 10, 2, 3, 4.
const IMAGE_LOAD_V2: &[Field] = &[
    pointer("ImageBase"),
    pointer("ImageSize"),
    uint32("ProcessId"),
    uint32("ImageChecksum"),
    uint32("TimeDateStamp"),
    uint32("Reserved0"),
    pointer("DefaultBase"),
    uint32("Reserved1"),
    uint32("Reserved2"),
    uint32("Reserved3"),
    uint32("Reserved4"),
    utf16z("FileName"),
];

/// `KernelImageBase`, version 2, event types 33.
const KERNEL_IMAGE_BASE: &[Field] = &[pointer("ImageBase")];

/// `HypercallPage`, version 2, event types 34.
const HYPERCALL_PAGE: &[Field] = &[pointer("HypercallPageVa")];

/// `LoaderBasicEvent`, version 2, event types 128, 129, 130, 131, 132, 133, 134, 135.
const LOADER_BASIC_EVENT: &[Field] = &[];

/// `LoaderBaseEvent`, version 2, event types 144, 145, 146, 147, 148, 149, 150.
const LOADER_BASE_EVENT: &[Field] = &[hex64("BaseAddress")];

/// `LoaderCodedEvent`, version 2, event types 160, 161, 162, 163, 164.
const LOADER_CODED_EVENT: &[Field] = &[
    hex64("BaseAddress"),
    hex8("ErrorOpcode"),
    sint8("Code"),
    utf16z("String"),
];

/// `Image_Load`, version 3, event types 10, 2, 3, 4.
const IMAGE_LOAD: &[Field] = &[
    pointer("ImageBase"),
    pointer("ImageSize"),
    uint32("ProcessId"),
    uint32("ImageChecksum"),
    uint32("TimeDateStamp"),
    uint8("SignatureLevel"),
    uint8("SignatureType"),
    uint16("Reserved0"),
    pointer("DefaultBase"),
    uint32("Reserved1"),
    uint32("Reserved2"),
    uint32("Reserved3"),
    uint32("Reserved4"),
    utf16z("FileName"),
];

/// `LoaderCodedEventStatus`, version 3, event types 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 208, 209, 210, 211.
const LOADER_CODED_EVENT_STATUS: &[Field] = &[
    hex64("BaseAddress"),
    hex8("ErrorOpcode"),
    sint8("Code"),
    utf16z("String"),
];

/// `LoaderCodedEventPath`, version 3, event types 192, 193.
const LOADER_CODED_EVENT_PATH: &[Field] = &[
    hex64("BaseAddress"),
    hex8("ErrorOpcode"),
    sint8("Code"),
    utf16z("String1"),
    utf16z("String2"),
];

/// `LoaderNewDllEvent`, version 3, event types 176, 177.
const LOADER_NEW_DLL_EVENT: &[Field] = &[
    pointer("NewDllBaseAddress"),
    pointer("ParentDllBaseAddress"),
    hex32("LoadReason"),
    utf16z("FilePath"),
];

/// `LoaderDllSearchResults`, version 3, event types 212.
const LOADER_DLL_SEARCH_RESULTS: &[Field] = &[
    hex32("LdrLoadFlags"),
    hex32("LdrSearchFlags"),
    hex32("SearchInfo"),
    hex32("LoadReason"),
    utf16z("FullDllName"),
];

/// `LoaderPathSearchResults`, version 3, event types 213.
const LOADER_PATH_SEARCH_RESULTS: &[Field] = &[
    hex32("SearchInfo"),
    utf16z("Cwd"),
    utf16z("AppDir"),
    utf16z("DllDir"),
    utf16z("DllLoadDir"),
];

/// The events of `Image`, by event type and version.
#[rustfmt::skip]
pub(super) static IMAGE_EVENTS: [KernelEvent; 52] = [
    event(IMAGE, 2, 2, "Image", "Unload", "Image_Load_V2", IMAGE_LOAD_V2),
    event(IMAGE, 2, 3, "Image", "Unload", "Image_Load", IMAGE_LOAD),
    event(IMAGE, 3, 2, "Image", "DCStart", "Image_Load_V2", IMAGE_LOAD_V2),
    event(IMAGE, 3, 3, "Image", "DCStart", "Image_Load", IMAGE_LOAD),
    event(IMAGE, 4, 2, "Image", "DCStop", "Image_Load_V2", IMAGE_LOAD_V2),
    event(IMAGE, 4, 3, "Image", "DCStop", "Image_Load", IMAGE_LOAD),
    event(IMAGE, 10, 0, "Image", "Load", "Image_V0_Load", IMAGE_V0_LOAD),
    event(IMAGE, 10, 1, "Image", "Load", "Image_V1_Load", IMAGE_V1_LOAD),
    event(IMAGE, 10, 2, "Image", "Load", "Image_Load_V2", IMAGE_LOAD_V2),
    event(IMAGE, 10, 3, "Image", "Load", "Image_Load", IMAGE_LOAD),
    event(IMAGE, 33, 2, "Image", "KernelBase", "KernelImageBase", KERNEL_IMAGE_BASE),
    event(IMAGE, 34, 2, "Image", "HypercallPage", "HypercallPage", HYPERCALL_PAGE),
    event(IMAGE, 128, 2, "Image", "LoaderLockAttempt", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 129, 2, "Image", "LoaderLockAcquire", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 130, 2, "Image", "LoaderLockTriedAndFailed", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 131, 2, "Image", "LoaderLockWait", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 132, 2, "Image", "ProcessInitDone", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 133, 2, "Image", "CreateSectionBegin", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 134, 2, "Image", "CreateSectionEnd", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 135, 2, "Image", "MapViewBegin", "LoaderBasicEvent", LOADER_BASIC_EVENT),
    event(IMAGE, 144, 2, "Image", "RelocateImageBegin", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 145, 2, "Image", "RelocateImageEnd", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 146, 2, "Image", "HandleOldDescsBegin", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 147, 2, "Image", "HandleOldDescsEnd", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 148, 2, "Image", "HandleNewDescsBegin", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 149, 2, "Image", "HandleNewDescsEnd", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 150, 2, "Image", "DllMainExit", "LoaderBaseEvent", LOADER_BASE_EVENT),
    event(IMAGE, 160, 2, "Image", "FindDllByName", "LoaderCodedEvent", LOADER_CODED_EVENT),
    event(IMAGE, 161, 2, "Image", "MapViewEnd", "LoaderCodedEvent", LOADER_CODED_EVENT),
    event(IMAGE, 162, 2, "Image", "LoaderLockRelease", "LoaderCodedEvent", LOADER_CODED_EVENT),
    event(IMAGE, 163, 2, "Image", "DllMainEnter", "LoaderCodedEvent", LOADER_CODED_EVENT),
    event(IMAGE, 164, 2, "Image", "LoaderError", "LoaderCodedEvent", LOADER_CODED_EVENT),
    event(IMAGE, 165, 3, "Image", "MapViewStart", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 166, 3, "Image", "SnappingStart", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 167, 3, "Image", "SnappingEnd", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 168, 3, "Image", "LoadingStart", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 169, 3, "Image", "LoadingEnd", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 170, 3, "Image", "FoundKnownDll", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 171, 3, "Image", "AbnormalTermination", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 172, 3, "Image", "ModulePlaceHolder", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 173, 3, "Image", "ReadyToInit", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 174, 3, "Image", "ReadyToRun", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 176, 3, "Image", "NewDllLoad", "LoaderNewDllEvent", LOADER_NEW_DLL_EVENT),
    event(IMAGE, 177, 3, "Image", "NewDllLoadAsData", "LoaderNewDllEvent", LOADER_NEW_DLL_EVENT),
    event(IMAGE, 192, 3, "Image", "DllSearchPathExternal", "LoaderCodedEventPath", LOADER_CODED_EVENT_PATH),
    event(IMAGE, 193, 3, "Image", "DllSearchPathInternal", "LoaderCodedEventPath", LOADER_CODED_EVENT_PATH),
    event(IMAGE, 208, 3, "Image", "ApiSetResolving", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 209, 3, "Image", "ApiSetHosted", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 210, 3, "Image", "ApiSetUnhosted", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 211, 3, "Image", "ApiSetUnresolved", "LoaderCodedEventStatus", LOADER_CODED_EVENT_STATUS),
    event(IMAGE, 212, 3, "Image", "DllSearchResults", "LoaderDllSearchResults", LOADER_DLL_SEARCH_RESULTS),
    event(IMAGE, 213, 3, "Image", "DllPathSearchResults", "LoaderPathSearchResults", LOADER_PATH_SEARCH_RESULTS),
];
