//! Page faults and memory, PerfInfo (sampled profile, interrupts, DPCs, system calls, ...) and
//! stack walks.
//!
//! Written from the kernel's MOF (`wmicore.mof`; see the parent module for the sources and
//! the rules that turn its qualifiers into types); task and opcode names as TraceEvent prints
//! them.

use crate::payload::schema::Count;

use super::{
    ansiz, event, hex16, hex32, hex64, pointer, size_t, uint16, uint32, uint64, uint8, utf16_chars,
    utf16z, with_tail, wmi_time, Field, KernelEvent, Tail, MAX_STACK_FRAMES, PAGE_FAULT, PERF_INFO,
    STACK_WALK,
};

// ---- PageFault `3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c` ----

/// `PageFault_TypeGroup1`, version 2, event types 10, 11, 12, 13, 14, 15.
const PAGE_FAULT_TYPE_GROUP1: &[Field] = &[pointer("VirtualAddress"), pointer("ProgramCounter")];

/// `PageFault_HardFault`, version 2, event types 32.
const PAGE_FAULT_HARD_FAULT: &[Field] = &[
    wmi_time("InitialTime"),
    hex64("ReadOffset"),
    pointer("VirtualAddress"),
    pointer("FileObject"),
    hex32("TThreadId"),
    uint32("ByteCount"),
];

/// `PageFault_HeapRangeRundown_V2`, version 2, event types 100.
const PAGE_FAULT_HEAP_RANGE_RUNDOWN_V2: &[Field] = &[
    pointer("HeapHandle"),
    hex32("HRFlags"),
    hex32("HRPid"),
    uint32("HRRangeCount"),
];

/// `PageFault_HeapRangeCreate`, version 2, event types 101.
const PAGE_FAULT_HEAP_RANGE_CREATE: &[Field] = &[
    pointer("HeapHandle"),
    size_t("FirstRangeSize"),
    hex32("HRCreateFlags"),
];

/// `PageFault_HeapRangeTypeGroup`, version 2, event types 102, 103.
const PAGE_FAULT_HEAP_RANGE_TYPE_GROUP: &[Field] = &[
    pointer("HeapHandle"),
    pointer("HRAddress"),
    size_t("HRSize"),
];

/// `PageFault_HeapRangeDestroy`, version 2, event types 104.
const PAGE_FAULT_HEAP_RANGE_DESTROY: &[Field] = &[pointer("HeapHandle")];

/// `PageFault_ImageLoadBacked`, version 2, event types 105.
const PAGE_FAULT_IMAGE_LOAD_BACKED: &[Field] = &[
    pointer("FileObject"),
    hex32("DeviceChar"),
    hex16("FileChar"),
    hex16("LoadFlags"),
];

/// `PageFault_VirtualAlloc`, version 2, event types 98, 99.
const PAGE_FAULT_VIRTUAL_ALLOC: &[Field] = &[
    pointer("BaseAddress"),
    size_t("RegionSize"),
    uint32("ProcessId"),
    hex32("Flags"),
];

/// `PageFault_VirtualAllocRundown`, version 2, event types 128, 129.
const PAGE_FAULT_VIRTUAL_ALLOC_RUNDOWN: &[Field] = &[
    pointer("BaseAddress"),
    size_t("RegionSize"),
    uint32("ProcessId"),
    hex32("Flags"),
    size_t("CommitSizeInBytes"),
];

/// `PageFault_VirtualRotate`, version 2, event types 127.
const PAGE_FAULT_VIRTUAL_ROTATE: &[Field] = &[
    pointer("BaseAddress"),
    size_t("SizeInBytes"),
    uint32("Flags"),
];

/// `PageFault_MemReset`, version 2, event types 134.
const PAGE_FAULT_MEM_RESET: &[Field] = &[
    pointer("BaseAddress"),
    size_t("SizeInBytes"),
    uint32("Flags"),
];

/// `PageFault_HeapRangeRundown_V4`, version 4, event types 100.
const PAGE_FAULT_HEAP_RANGE_RUNDOWN_V4: &[Field] = &[
    pointer("HeapHandle"),
    hex32("HRFlags"),
    hex32("HRPid"),
    uint32("HRRangeCount"),
    uint64("HRHeapTag"),
];

/// `PageFault_HeapRangeRundown_V3`, version 3, event types 100.
const PAGE_FAULT_HEAP_RANGE_RUNDOWN_V3: &[Field] = &[
    pointer("HeapHandle"),
    hex32("HRFlags"),
    hex32("HRPid"),
    uint32("HRRangeCount"),
    uint32("Reserved"),
];

/// The events of `PageFault`, by event type and version.
#[rustfmt::skip]
pub(super) static PAGE_FAULT_EVENTS: [KernelEvent; 21] = [
    event(PAGE_FAULT, 10, 2, "Memory", "TransitionFault", "PageFault_TypeGroup1", PAGE_FAULT_TYPE_GROUP1),
    event(PAGE_FAULT, 11, 2, "Memory", "DemandZeroFault", "PageFault_TypeGroup1", PAGE_FAULT_TYPE_GROUP1),
    event(PAGE_FAULT, 12, 2, "Memory", "CopyOnWrite", "PageFault_TypeGroup1", PAGE_FAULT_TYPE_GROUP1),
    event(PAGE_FAULT, 13, 2, "Memory", "GuardMemory", "PageFault_TypeGroup1", PAGE_FAULT_TYPE_GROUP1),
    event(PAGE_FAULT, 14, 2, "Memory", "HardMemory", "PageFault_TypeGroup1", PAGE_FAULT_TYPE_GROUP1),
    event(PAGE_FAULT, 15, 2, "Memory", "AccessViolation", "PageFault_TypeGroup1", PAGE_FAULT_TYPE_GROUP1),
    event(PAGE_FAULT, 32, 2, "Memory", "HardFault", "PageFault_HardFault", PAGE_FAULT_HARD_FAULT),
    event(PAGE_FAULT, 98, 2, "VirtualMem", "Alloc", "PageFault_VirtualAlloc", PAGE_FAULT_VIRTUAL_ALLOC),
    event(PAGE_FAULT, 99, 2, "VirtualMem", "Free", "PageFault_VirtualAlloc", PAGE_FAULT_VIRTUAL_ALLOC),
    event(PAGE_FAULT, 100, 2, "Memory", "HeapRangeRundown", "PageFault_HeapRangeRundown_V2", PAGE_FAULT_HEAP_RANGE_RUNDOWN_V2),
    event(PAGE_FAULT, 100, 3, "Memory", "HeapRangeRundown", "PageFault_HeapRangeRundown_V3", PAGE_FAULT_HEAP_RANGE_RUNDOWN_V3),
    event(PAGE_FAULT, 100, 4, "Memory", "HeapRangeRundown", "PageFault_HeapRangeRundown_V4", PAGE_FAULT_HEAP_RANGE_RUNDOWN_V4),
    event(PAGE_FAULT, 101, 2, "Memory", "HeapRangeCreate", "PageFault_HeapRangeCreate", PAGE_FAULT_HEAP_RANGE_CREATE),
    event(PAGE_FAULT, 102, 2, "Memory", "HeapRangeReserve", "PageFault_HeapRangeTypeGroup", PAGE_FAULT_HEAP_RANGE_TYPE_GROUP),
    event(PAGE_FAULT, 103, 2, "Memory", "HeapRangeRelease", "PageFault_HeapRangeTypeGroup", PAGE_FAULT_HEAP_RANGE_TYPE_GROUP),
    event(PAGE_FAULT, 104, 2, "Memory", "HeapRangeDestroy", "PageFault_HeapRangeDestroy", PAGE_FAULT_HEAP_RANGE_DESTROY),
    event(PAGE_FAULT, 105, 2, "Memory", "ImageLoadBacked", "PageFault_ImageLoadBacked", PAGE_FAULT_IMAGE_LOAD_BACKED),
    event(PAGE_FAULT, 127, 2, "Memory", "VirtualRotate", "PageFault_VirtualRotate", PAGE_FAULT_VIRTUAL_ROTATE),
    event(PAGE_FAULT, 128, 2, "Memory", "VirtualAllocDCStart", "PageFault_VirtualAllocRundown", PAGE_FAULT_VIRTUAL_ALLOC_RUNDOWN),
    event(PAGE_FAULT, 129, 2, "Memory", "VirtualAllocDCStop", "PageFault_VirtualAllocRundown", PAGE_FAULT_VIRTUAL_ALLOC_RUNDOWN),
    event(PAGE_FAULT, 134, 2, "Memory", "MemResetInfo", "PageFault_MemReset", PAGE_FAULT_MEM_RESET),
];

// ---- PerfInfo `ce1dbfb4-137e-4da6-87b0-3f59aa102cbc` ----

/// `Mark_V0`, version 0, event types 34.
const MARK_V0: &[Field] = &[ansiz("Message"), utf16_chars("Padding", 1)];

/// `ISR_V1`, version 1, event types 67, 95.
const ISR_V1: &[Field] = &[
    wmi_time("InitialTime"),
    pointer("Routine"),
    uint32("ReturnValue"),
];

/// `DPC_V1`, version 1, event types 68, 69.
const DPC_V1: &[Field] = &[wmi_time("InitialTime"), pointer("Routine")];

/// `SampledProfile_V1`, version 1, event types 46.
const SAMPLED_PROFILE_V1: &[Field] = &[
    pointer("InstructionPointer"),
    uint32("ThreadId"),
    uint16("Count"),
];

/// `SampledProfile`, version 2, event types 46.
const SAMPLED_PROFILE: &[Field] = &[
    pointer("InstructionPointer"),
    uint32("ThreadId"),
    uint16("Count"),
    uint16("Reserved"),
];

/// `PmcCounterProfile`, version 2, event types 47.
const PMC_COUNTER_PROFILE: &[Field] = &[
    pointer("InstructionPointer"),
    uint32("ThreadId"),
    uint16("ProfileSource"),
    uint16("Reserved"),
];

/// `SampledProfileInterval_V2`, version 2, event types 72, 73, 74.
const SAMPLED_PROFILE_INTERVAL_V2: &[Field] = &[
    uint32("Source"),
    uint32("NewInterval"),
    uint32("OldInterval"),
];

/// `PmcCounterConfig_V2`, version 2, event types 48.
const PMC_COUNTER_CONFIG_V2: &[Field] = &[
    uint32("CounterCount"),
    utf16z("CounterName").with_count(Count::FromField(0)),
];

/// `SpinLockConfig_V2`, version 2, event types 75, 76.
const SPIN_LOCK_CONFIG_V2: &[Field] = &[
    uint32("SpinLockSpinThreshold"),
    uint32("SpinLockContentionSampleRate"),
    uint32("SpinLockAcquireSampleRate"),
];

/// `SysCallEnter`, version 2, event types 51.
const SYS_CALL_ENTER: &[Field] = &[pointer("SysCallAddress")];

/// `SysCallExit`, version 2, event types 52.
const SYS_CALL_EXIT: &[Field] = &[hex32("SysCallNtStatus")];

/// `ISR`, version 2, event types 67, 95.
const ISR: &[Field] = &[
    wmi_time("InitialTime"),
    pointer("Routine"),
    uint8("ReturnValue"),
    uint16("Vector"),
    uint8("Reserved"),
];

/// `ISR_MSI`, version 2, event types 50.
const ISR_MSI: &[Field] = &[
    wmi_time("InitialTime"),
    pointer("Routine"),
    uint8("ReturnValue"),
    uint16("Vector"),
    uint8("Reserved"),
    uint32("MessageNumber"),
];

/// `ISR_Unexpected`, version 2, event types 92.
const ISR_UNEXPECTED: &[Field] = &[uint16("Vector")];

/// `DPC`, version 2, event types 66, 68, 69, 70.
const DPC: &[Field] = &[wmi_time("InitialTime"), pointer("Routine")];

/// `WDF_DPC`, version 2, event types 98.
const WDF_DPC: &[Field] = &[pointer("Routine")];

/// `WDF_ISR`, version 2, event types 96, 97.
const WDF_ISR: &[Field] = &[pointer("Routine")];

/// `WDF_WorkItem`, version 2, event types 103.
const WDF_WORK_ITEM: &[Field] = &[pointer("Routine")];

/// `DebuggerEnabled`, version 2, event types 58.
const DEBUGGER_ENABLED: &[Field] = &[];

/// `IoTimerEvent`, version 2, event types 93, 94.
const IO_TIMER_EVENT: &[Field] = &[pointer("DeviceObject"), pointer("TimerRoutine")];

/// `SetOrExpireKTimer2`, version 2, event types 104, 105.
const SET_OR_EXPIRE_K_TIMER2: &[Field] = &[
    uint64("DueTime"),
    uint64("MaximumDueTime"),
    uint64("Period"),
    pointer("Timer"),
    pointer("Callback"),
    pointer("CallbackContext"),
    uint8("TimerFlags"),
];

/// `CancelKTimer2`, version 2, event types 106.
const CANCEL_K_TIMER2: &[Field] = &[pointer("Timer")];

/// `DisableKTimer2`, version 2, event types 107.
const DISABLE_K_TIMER2: &[Field] = &[
    pointer("Timer"),
    pointer("DisableCallback"),
    pointer("DisableContext"),
    uint8("TimerFlags"),
];

/// `FinalizeKTimer2`, version 2, event types 108.
const FINALIZE_K_TIMER2: &[Field] = &[
    pointer("Timer"),
    pointer("DisableCallback"),
    pointer("DisableContext"),
];

/// `SampledProfileInterval_V3`, version 3, event types 73, 74.
const SAMPLED_PROFILE_INTERVAL_V3: &[Field] = &[
    uint32("Source"),
    uint32("NewInterval"),
    uint32("OldInterval"),
    utf16z("SourceName"),
];

/// `SpinLockConfig_V3`, version 3, event types 75, 76.
const SPIN_LOCK_CONFIG_V3: &[Field] = &[
    uint32("SpinLockSpinThreshold"),
    uint32("SpinLockContentionSampleRate"),
    uint32("SpinLockAcquireSampleRate"),
    uint32("SpinLockHoldThreshold"),
];

/// `HV_Hypercall`, version 2, event types 114.
const HV_HYPERCALL: &[Field] = &[uint32("CallCode"), uint8("IsFast"), uint8("IsNested")];

/// `ContextRegistersAMD64`, version 2, event types 122.
const CONTEXT_REGISTERS_AMD64: &[Field] = &[
    uint64("Rip"),
    uint64("Rax"),
    uint64("Rcx"),
    uint64("Rdx"),
    uint64("Rbx"),
    uint64("Rsp"),
    uint64("Rbp"),
    uint64("Rsi"),
    uint64("Rdi"),
    uint64("R8"),
    uint64("R9"),
    uint64("R10"),
    uint64("R11"),
    uint64("R12"),
    uint64("R13"),
    uint64("R14"),
    uint64("R15"),
];

/// `ContextRegistersARM64`, version 2, event types 123.
const CONTEXT_REGISTERS_ARM64: &[Field] = &[
    uint32("Cpsr"),
    uint64("X0"),
    uint64("X1"),
    uint64("X2"),
    uint64("X3"),
    uint64("X4"),
    uint64("X5"),
    uint64("X6"),
    uint64("X7"),
    uint64("X8"),
    uint64("X9"),
    uint64("X10"),
    uint64("X11"),
    uint64("X12"),
    uint64("X13"),
    uint64("X14"),
    uint64("X15"),
    uint64("X16"),
    uint64("X17"),
    uint64("X18"),
    uint64("X19"),
    uint64("X20"),
    uint64("X21"),
    uint64("X22"),
    uint64("X23"),
    uint64("X24"),
    uint64("X25"),
    uint64("X26"),
    uint64("X27"),
    uint64("X28"),
    uint64("Fp"),
    uint64("Lr"),
    uint64("Sp"),
    uint64("Pc"),
];

/// The events of `PerfInfo`, by event type and version.
#[rustfmt::skip]
pub(super) static PERF_INFO_EVENTS: [KernelEvent; 43] = [
    event(PERF_INFO, 34, 0, "PerfInfo", "Mark", "Mark_V0", MARK_V0),
    event(PERF_INFO, 46, 1, "PerfInfo", "Sample", "SampledProfile_V1", SAMPLED_PROFILE_V1),
    event(PERF_INFO, 46, 2, "PerfInfo", "Sample", "SampledProfile", SAMPLED_PROFILE),
    event(PERF_INFO, 47, 2, "PerfInfo", "PMCSample", "PmcCounterProfile", PMC_COUNTER_PROFILE),
    event(PERF_INFO, 48, 2, "PerfInfo", "PmcCtrConfig", "PmcCounterConfig_V2", PMC_COUNTER_CONFIG_V2),
    event(PERF_INFO, 50, 2, "PerfInfo", "ISR", "ISR_MSI", ISR_MSI),
    event(PERF_INFO, 51, 2, "PerfInfo", "SysClEnter", "SysCallEnter", SYS_CALL_ENTER),
    event(PERF_INFO, 52, 2, "PerfInfo", "SysClExit", "SysCallExit", SYS_CALL_EXIT),
    event(PERF_INFO, 58, 2, "PerfInfo", "DebuggerEnabled", "DebuggerEnabled", DEBUGGER_ENABLED),
    event(PERF_INFO, 66, 2, "PerfInfo", "ThreadedDPC", "DPC", DPC),
    event(PERF_INFO, 67, 1, "PerfInfo", "ISR", "ISR_V1", ISR_V1),
    event(PERF_INFO, 67, 2, "PerfInfo", "ISR", "ISR", ISR),
    event(PERF_INFO, 68, 1, "PerfInfo", "DPC", "DPC_V1", DPC_V1),
    event(PERF_INFO, 68, 2, "PerfInfo", "DPC", "DPC", DPC),
    event(PERF_INFO, 69, 1, "PerfInfo", "TimerDPC", "DPC_V1", DPC_V1),
    event(PERF_INFO, 69, 2, "PerfInfo", "TimerDPC", "DPC", DPC),
    event(PERF_INFO, 70, 2, "PerfInfo", "IOTimer", "DPC", DPC),
    event(PERF_INFO, 72, 2, "PerfInfo", "SetInterval", "SampledProfileInterval_V2", SAMPLED_PROFILE_INTERVAL_V2),
    event(PERF_INFO, 73, 2, "PerfInfo", "CollectionStart", "SampledProfileInterval_V2", SAMPLED_PROFILE_INTERVAL_V2),
    event(PERF_INFO, 73, 3, "PerfInfo", "CollectionStart", "SampledProfileInterval_V3", SAMPLED_PROFILE_INTERVAL_V3),
    event(PERF_INFO, 74, 2, "PerfInfo", "CollectionEnd", "SampledProfileInterval_V2", SAMPLED_PROFILE_INTERVAL_V2),
    event(PERF_INFO, 74, 3, "PerfInfo", "CollectionEnd", "SampledProfileInterval_V3", SAMPLED_PROFILE_INTERVAL_V3),
    event(PERF_INFO, 75, 2, "PerfInfo", "CollectionStart", "SpinLockConfig_V2", SPIN_LOCK_CONFIG_V2),
    event(PERF_INFO, 75, 3, "PerfInfo", "CollectionStart", "SpinLockConfig_V3", SPIN_LOCK_CONFIG_V3),
    event(PERF_INFO, 76, 2, "PerfInfo", "CollectionEnd", "SpinLockConfig_V2", SPIN_LOCK_CONFIG_V2),
    event(PERF_INFO, 76, 3, "PerfInfo", "CollectionEnd", "SpinLockConfig_V3", SPIN_LOCK_CONFIG_V3),
    event(PERF_INFO, 92, 2, "PerfInfo", "ISR-Unexpected", "ISR_Unexpected", ISR_UNEXPECTED),
    event(PERF_INFO, 93, 2, "PerfInfo", "IoStartTimer", "IoTimerEvent", IO_TIMER_EVENT),
    event(PERF_INFO, 94, 2, "PerfInfo", "IoStopTimer", "IoTimerEvent", IO_TIMER_EVENT),
    event(PERF_INFO, 95, 1, "PerfInfo", "ISR-PASS", "ISR_V1", ISR_V1),
    event(PERF_INFO, 95, 2, "PerfInfo", "ISR-PASS", "ISR", ISR),
    event(PERF_INFO, 96, 2, "PerfInfo", "WdfISR", "WDF_ISR", WDF_ISR),
    event(PERF_INFO, 97, 2, "PerfInfo", "WdfPassiveISR", "WDF_ISR", WDF_ISR),
    event(PERF_INFO, 98, 2, "PerfInfo", "WdfDPC", "WDF_DPC", WDF_DPC),
    event(PERF_INFO, 103, 2, "PerfInfo", "WdfWorkItem", "WDF_WorkItem", WDF_WORK_ITEM),
    event(PERF_INFO, 104, 2, "PerfInfo", "SetKTimer2", "SetOrExpireKTimer2", SET_OR_EXPIRE_K_TIMER2),
    event(PERF_INFO, 105, 2, "PerfInfo", "ExpireKTimer2", "SetOrExpireKTimer2", SET_OR_EXPIRE_K_TIMER2),
    event(PERF_INFO, 106, 2, "PerfInfo", "CancelKTimer2", "CancelKTimer2", CANCEL_K_TIMER2),
    event(PERF_INFO, 107, 2, "PerfInfo", "DisableKTimer2", "DisableKTimer2", DISABLE_K_TIMER2),
    event(PERF_INFO, 108, 2, "PerfInfo", "FinalizeKTimer2", "FinalizeKTimer2", FINALIZE_K_TIMER2),
    event(PERF_INFO, 114, 2, "PerfInfo", "KernelHypercall", "HV_Hypercall", HV_HYPERCALL),
    event(PERF_INFO, 122, 2, "PerfInfo", "ContextRegistersAMD64", "ContextRegistersAMD64", CONTEXT_REGISTERS_AMD64),
    event(PERF_INFO, 123, 2, "PerfInfo", "ContextRegistersARM64", "ContextRegistersARM64", CONTEXT_REGISTERS_ARM64),
];

// ---- StackWalk `def2fe46-7bd6-4b80-bd94-f57fe20d0ce3` ----

/// `StackWalk_Event`, version 2, event types 32.
/// The MOF names 32 frames `Stack1` to `Stack32`; the kernel writes as many as the stack has (PerfView computes `FrameCount` from the event's size), so they are one array `Stack` of at most 192 (`StackWalk_TypeGroup1.StackFrame[192]`), as many as the data holds.
const STACK_WALK_EVENT: &[Field] = &[
    uint64("EventTimeStamp"),
    hex32("StackProcess"),
    uint32("StackThread"),
    pointer("Stack").with_count(Count::Fixed(MAX_STACK_FRAMES)),
];

/// `StackWalk_Key`, version 2, event types 37, 38.
const STACK_WALK_KEY: &[Field] = &[
    uint64("EventTimeStamp"),
    hex32("StackProcess"),
    uint32("StackThread"),
    pointer("StackKey"),
];

/// `StackWalk_TypeGroup1`, version 2, event types 34, 35, 36.
/// `StackFrame[192]` holds as many frames as the stack has: as many as the data holds, at most 192.
const STACK_WALK_TYPE_GROUP1: &[Field] = &[
    pointer("Key"),
    pointer("StackFrame").with_count(Count::Fixed(MAX_STACK_FRAMES)),
];

/// The events of `StackWalk`, by event type and version.
#[rustfmt::skip]
pub(super) static STACK_WALK_EVENTS: [KernelEvent; 6] = [
    with_tail(event(STACK_WALK, 32, 2, "StackWalk", "Stack", "StackWalk_Event", STACK_WALK_EVENT), Tail::LastArrayToEnd),
    with_tail(event(STACK_WALK, 34, 2, "StackWalk", "KeyCreate", "StackWalk_TypeGroup1", STACK_WALK_TYPE_GROUP1), Tail::LastArrayToEnd),
    with_tail(event(STACK_WALK, 35, 2, "StackWalk", "KeyDelete", "StackWalk_TypeGroup1", STACK_WALK_TYPE_GROUP1), Tail::LastArrayToEnd),
    with_tail(event(STACK_WALK, 36, 2, "StackWalk", "KeyRundown", "StackWalk_TypeGroup1", STACK_WALK_TYPE_GROUP1), Tail::LastArrayToEnd),
    event(STACK_WALK, 37, 2, "StackWalk", "StackKeyKernel", "StackWalk_Key", STACK_WALK_KEY),
    event(STACK_WALK, 38, 2, "StackWalk", "StackKeyUser", "StackWalk_Key", STACK_WALK_KEY),
];
