//! Disk and file I/O, split I/O and the registry.
//!
//! Written from the kernel's MOF (`wmicore.mof`; see the parent module for the sources and
//! the rules that turn its qualifiers into types); task and opcode names as TraceEvent prints
//! them.

use super::{
    event, guid, hex32, hex64, pointer, sint64, size_t, uint32, uint64, uint8, utf16z, wmi_time,
    Field, KernelEvent, DISK_IO, FILE_IO, REGISTRY, SPLIT_IO,
};

// ---- DiskIo `3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c` ----

/// `DiskIo_V0_TypeGroup1`, version 0, event types 10, 11.
const DISK_IO_V0_TYPE_GROUP1: &[Field] = &[
    uint32("DiskNumber"),
    hex32("IrpFlags"),
    uint32("TransferSize"),
    uint32("Reserved"),
    uint64("ByteOffset"),
    pointer("FileObject"),
];

/// `DiskIo_V1_TypeGroup1`, version 1, event types 10, 11.
const DISK_IO_V1_TYPE_GROUP1: &[Field] = &[
    uint32("DiskNumber"),
    hex32("IrpFlags"),
    uint32("TransferSize"),
    uint32("ResponseTime"),
    uint64("ByteOffset"),
    pointer("FileObject"),
    uint64("HighResResponseTime"),
];

/// `V1_DriverMajorFunctionCall`, version 1, event types 34.
const V1_DRIVER_MAJOR_FUNCTION_CALL: &[Field] = &[
    uint32("UniqMatchId"),
    pointer("RoutineAddr"),
    pointer("Irp"),
    uint32("MajorFunction"),
    uint32("MinorFunction"),
    pointer("FileObject"),
];

/// `V1_DriverMajorFunctionReturn`, version 1, event types 35.
const V1_DRIVER_MAJOR_FUNCTION_RETURN: &[Field] = &[uint32("UniqMatchId"), pointer("Irp")];

/// `V1_DriverCompleteRequest`, version 1, event types 52.
const V1_DRIVER_COMPLETE_REQUEST: &[Field] = &[
    pointer("RoutineAddr"),
    pointer("Irp"),
    uint32("UniqMatchId"),
];

/// `V1_DriverCompleteRequestReturn`, version 1, event types 53.
const V1_DRIVER_COMPLETE_REQUEST_RETURN: &[Field] = &[pointer("Irp"), uint32("UniqMatchId")];

/// `DiskIo_V2_TypeGroup1`, version 2, event types 10, 11.
const DISK_IO_V2_TYPE_GROUP1: &[Field] = &[
    uint32("DiskNumber"),
    hex32("IrpFlags"),
    uint32("TransferSize"),
    uint32("Reserved"),
    uint64("ByteOffset"),
    pointer("FileObject"),
    pointer("Irp"),
    uint64("HighResResponseTime"),
];

/// `DiskIo_V2_TypeGroup2`, version 2, event types 12, 13, 15.
const DISK_IO_V2_TYPE_GROUP2: &[Field] = &[pointer("Irp")];

/// `DiskIo_V2_TypeGroup3`, version 2, event types 14.
const DISK_IO_V2_TYPE_GROUP3: &[Field] = &[
    uint32("DiskNumber"),
    hex32("IrpFlags"),
    uint64("HighResResponseTime"),
    pointer("Irp"),
];

/// `DriverMajorFunctionCall`, version 2, event types 34.
const DRIVER_MAJOR_FUNCTION_CALL: &[Field] = &[
    uint32("MajorFunction"),
    uint32("MinorFunction"),
    pointer("RoutineAddr"),
    pointer("FileObject"),
    pointer("Irp"),
    uint32("UniqMatchId"),
];

/// `DriverMajorFunctionReturn`, version 2, event types 35.
const DRIVER_MAJOR_FUNCTION_RETURN: &[Field] = &[pointer("Irp"), uint32("UniqMatchId")];

/// `DriverCompletionRoutine`, version 2, event types 37.
const DRIVER_COMPLETION_ROUTINE: &[Field] =
    &[pointer("Routine"), pointer("IrpPtr"), uint32("UniqMatchId")];

/// `DriverCompleteRequest`, version 2, event types 52.
const DRIVER_COMPLETE_REQUEST: &[Field] = &[
    pointer("RoutineAddr"),
    pointer("Irp"),
    uint32("UniqMatchId"),
];

/// `DriverCompleteRequestReturn`, version 2, event types 53.
const DRIVER_COMPLETE_REQUEST_RETURN: &[Field] = &[pointer("Irp"), uint32("UniqMatchId")];

/// `DiskIo_TypeGroup1`, version 3, event types 10, 11, 55, 56.
const DISK_IO_TYPE_GROUP1: &[Field] = &[
    uint32("DiskNumber"),
    hex32("IrpFlags"),
    uint32("TransferSize"),
    uint32("Reserved"),
    uint64("ByteOffset"),
    pointer("FileObject"),
    pointer("Irp"),
    uint64("HighResResponseTime"),
    uint32("IssuingThreadId"),
];

/// `DiskIo_TypeGroup3`, version 3, event types 14, 57.
const DISK_IO_TYPE_GROUP3: &[Field] = &[
    uint32("DiskNumber"),
    hex32("IrpFlags"),
    uint64("HighResResponseTime"),
    pointer("Irp"),
    uint32("IssuingThreadId"),
];

/// `DiskIo_TypeGroup2`, version 3, event types 12, 13, 15, 58, 59, 60.
const DISK_IO_TYPE_GROUP2: &[Field] = &[pointer("Irp"), uint32("IssuingThreadId")];

/// The events of `DiskIo`, by event type and version.
#[rustfmt::skip]
pub(super) static DISK_IO_EVENTS: [KernelEvent; 31] = [
    event(DISK_IO, 10, 0, "DiskIO", "Read", "DiskIo_V0_TypeGroup1", DISK_IO_V0_TYPE_GROUP1),
    event(DISK_IO, 10, 1, "DiskIO", "Read", "DiskIo_V1_TypeGroup1", DISK_IO_V1_TYPE_GROUP1),
    event(DISK_IO, 10, 2, "DiskIO", "Read", "DiskIo_V2_TypeGroup1", DISK_IO_V2_TYPE_GROUP1),
    event(DISK_IO, 10, 3, "DiskIO", "Read", "DiskIo_TypeGroup1", DISK_IO_TYPE_GROUP1),
    event(DISK_IO, 11, 0, "DiskIO", "Write", "DiskIo_V0_TypeGroup1", DISK_IO_V0_TYPE_GROUP1),
    event(DISK_IO, 11, 1, "DiskIO", "Write", "DiskIo_V1_TypeGroup1", DISK_IO_V1_TYPE_GROUP1),
    event(DISK_IO, 11, 2, "DiskIO", "Write", "DiskIo_V2_TypeGroup1", DISK_IO_V2_TYPE_GROUP1),
    event(DISK_IO, 11, 3, "DiskIO", "Write", "DiskIo_TypeGroup1", DISK_IO_TYPE_GROUP1),
    event(DISK_IO, 12, 2, "DiskIO", "ReadInit", "DiskIo_V2_TypeGroup2", DISK_IO_V2_TYPE_GROUP2),
    event(DISK_IO, 12, 3, "DiskIO", "ReadInit", "DiskIo_TypeGroup2", DISK_IO_TYPE_GROUP2),
    event(DISK_IO, 13, 2, "DiskIO", "WriteInit", "DiskIo_V2_TypeGroup2", DISK_IO_V2_TYPE_GROUP2),
    event(DISK_IO, 13, 3, "DiskIO", "WriteInit", "DiskIo_TypeGroup2", DISK_IO_TYPE_GROUP2),
    event(DISK_IO, 14, 2, "DiskIO", "FlushBuffers", "DiskIo_V2_TypeGroup3", DISK_IO_V2_TYPE_GROUP3),
    event(DISK_IO, 14, 3, "DiskIO", "FlushBuffers", "DiskIo_TypeGroup3", DISK_IO_TYPE_GROUP3),
    event(DISK_IO, 15, 2, "DiskIO", "FlushInit", "DiskIo_V2_TypeGroup2", DISK_IO_V2_TYPE_GROUP2),
    event(DISK_IO, 15, 3, "DiskIO", "FlushInit", "DiskIo_TypeGroup2", DISK_IO_TYPE_GROUP2),
    event(DISK_IO, 34, 1, "DiskIO", "DriverMajorFunctionCall", "V1_DriverMajorFunctionCall", V1_DRIVER_MAJOR_FUNCTION_CALL),
    event(DISK_IO, 34, 2, "DiskIO", "DriverMajorFunctionCall", "DriverMajorFunctionCall", DRIVER_MAJOR_FUNCTION_CALL),
    event(DISK_IO, 35, 1, "DiskIO", "DriverMajorFunctionReturn", "V1_DriverMajorFunctionReturn", V1_DRIVER_MAJOR_FUNCTION_RETURN),
    event(DISK_IO, 35, 2, "DiskIO", "DriverMajorFunctionReturn", "DriverMajorFunctionReturn", DRIVER_MAJOR_FUNCTION_RETURN),
    event(DISK_IO, 37, 2, "DiskIO", "DriverCompletionRoutine", "DriverCompletionRoutine", DRIVER_COMPLETION_ROUTINE),
    event(DISK_IO, 52, 1, "DiskIO", "DriverCompleteRequest", "V1_DriverCompleteRequest", V1_DRIVER_COMPLETE_REQUEST),
    event(DISK_IO, 52, 2, "DiskIO", "DriverCompleteRequest", "DriverCompleteRequest", DRIVER_COMPLETE_REQUEST),
    event(DISK_IO, 53, 1, "DiskIO", "DriverCompleteRequestReturn", "V1_DriverCompleteRequestReturn", V1_DRIVER_COMPLETE_REQUEST_RETURN),
    event(DISK_IO, 53, 2, "DiskIO", "DriverCompleteRequestReturn", "DriverCompleteRequestReturn", DRIVER_COMPLETE_REQUEST_RETURN),
    event(DISK_IO, 55, 3, "DiskIO", "OpticalRead", "DiskIo_TypeGroup1", DISK_IO_TYPE_GROUP1),
    event(DISK_IO, 56, 3, "DiskIO", "OpticalWrite", "DiskIo_TypeGroup1", DISK_IO_TYPE_GROUP1),
    event(DISK_IO, 57, 3, "DiskIO", "OpticalFlushBuffers", "DiskIo_TypeGroup3", DISK_IO_TYPE_GROUP3),
    event(DISK_IO, 58, 3, "DiskIO", "OpticalReadInit", "DiskIo_TypeGroup2", DISK_IO_TYPE_GROUP2),
    event(DISK_IO, 59, 3, "DiskIO", "OpticalWriteInit", "DiskIo_TypeGroup2", DISK_IO_TYPE_GROUP2),
    event(DISK_IO, 60, 3, "DiskIO", "OpticalFlushInit", "DiskIo_TypeGroup2", DISK_IO_TYPE_GROUP2),
];

// ---- SplitIo `d837ca92-12b9-44a5-ad6a-3a65b3578aa8` ----

/// `SplitIo_Info`, version 2, event types 32.
const SPLIT_IO_INFO: &[Field] = &[pointer("ParentIrp"), pointer("ChildIrp")];

/// The events of `SplitIo`, by event type and version.
#[rustfmt::skip]
pub(super) static SPLIT_IO_EVENTS: [KernelEvent; 1] = [
    event(SPLIT_IO, 32, 2, "SplitIo", "VolMgr", "SplitIo_Info", SPLIT_IO_INFO),
];

// ---- FileIo `90cbdc39-4a3e-11d1-84f4-0000f80464e3` ----

/// `FileIo_V0_Name`, version 0, event types 0.
const FILE_IO_V0_NAME: &[Field] = &[pointer("FileObject"), utf16z("FileName")];

/// `FileIo_V1_Name`, version 1, event types 0, 32.
const FILE_IO_V1_NAME: &[Field] = &[pointer("FileObject"), utf16z("FileName")];

/// `FileIo_V2_Name`, version 2, event types 0, 32, 35, 36.
const FILE_IO_V2_NAME: &[Field] = &[pointer("FileObject"), utf16z("FileName")];

/// `FileIo_V2_Create`, version 2, event types 64.
const FILE_IO_V2_CREATE: &[Field] = &[
    pointer("IrpPtr"),
    pointer("TTID"),
    pointer("FileObject"),
    uint32("CreateOptions"),
    uint32("FileAttributes"),
    uint32("ShareAccess"),
    utf16z("OpenPath"),
];

/// `FileIo_V2_SimpleOp`, version 2, event types 65, 66, 73.
const FILE_IO_V2_SIMPLE_OP: &[Field] = &[
    pointer("IrpPtr"),
    pointer("TTID"),
    pointer("FileObject"),
    pointer("FileKey"),
];

/// `FileIo_V2_ReadWrite`, version 2, event types 67, 68.
const FILE_IO_V2_READ_WRITE: &[Field] = &[
    uint64("Offset"),
    pointer("IrpPtr"),
    pointer("TTID"),
    pointer("FileObject"),
    pointer("FileKey"),
    uint32("IoSize"),
    uint32("IoFlags"),
];

/// `FileIo_V2_Info`, version 2, event types 69, 70, 71, 74, 75.
const FILE_IO_V2_INFO: &[Field] = &[
    pointer("IrpPtr"),
    pointer("TTID"),
    pointer("FileObject"),
    pointer("FileKey"),
    pointer("ExtraInfo"),
    uint32("InfoClass"),
];

/// `FileIo_V2_DirEnum`, version 2, event types 72, 77.
const FILE_IO_V2_DIR_ENUM: &[Field] = &[
    pointer("IrpPtr"),
    pointer("TTID"),
    pointer("FileObject"),
    pointer("FileKey"),
    uint32("Length"),
    uint32("InfoClass"),
    uint32("FileIndex"),
    utf16z("FileName"),
];

/// `FileIo_V2_OpEnd`, version 2, event types 76.
const FILE_IO_V2_OP_END: &[Field] = &[pointer("IrpPtr"), pointer("ExtraInfo"), uint32("NtStatus")];

/// `FileIo_V2_MapFile`, version 2, event types 37, 38, 39, 40.
const FILE_IO_V2_MAP_FILE: &[Field] = &[
    pointer("ViewBase"),
    pointer("FileObject"),
    hex64("MiscInfo"),
    size_t("ViewSize"),
    uint32("ProcessId"),
];

/// `FileIo_Name`, version 3, event types 0, 32, 35, 36.
const FILE_IO_NAME: &[Field] = &[pointer("FileObject"), utf16z("FileName")];

/// `FileIo_Create`, version 3, event types 64.
const FILE_IO_CREATE: &[Field] = &[
    pointer("IrpPtr"),
    pointer("FileObject"),
    uint32("TTID"),
    uint32("CreateOptions"),
    uint32("FileAttributes"),
    uint32("ShareAccess"),
    utf16z("OpenPath"),
];

/// `FileIo_SimpleOp`, version 3, event types 65, 66, 73.
const FILE_IO_SIMPLE_OP: &[Field] = &[
    pointer("IrpPtr"),
    pointer("FileObject"),
    pointer("FileKey"),
    uint32("TTID"),
];

/// `FileIo_ReadWrite`, version 3, event types 67, 68.
const FILE_IO_READ_WRITE: &[Field] = &[
    uint64("Offset"),
    pointer("IrpPtr"),
    pointer("FileObject"),
    pointer("FileKey"),
    uint32("TTID"),
    uint32("IoSize"),
    uint32("IoFlags"),
];

/// `FileIo_Info`, version 3, event types 69, 70, 71, 74, 75.
const FILE_IO_INFO: &[Field] = &[
    pointer("IrpPtr"),
    pointer("FileObject"),
    pointer("FileKey"),
    pointer("ExtraInfo"),
    uint32("TTID"),
    uint32("InfoClass"),
];

/// `FileIo_DirEnum`, version 3, event types 72, 77.
const FILE_IO_DIR_ENUM: &[Field] = &[
    pointer("IrpPtr"),
    pointer("FileObject"),
    pointer("FileKey"),
    uint32("TTID"),
    uint32("Length"),
    uint32("InfoClass"),
    uint32("FileIndex"),
    utf16z("FileName"),
];

/// `FileIo_OpEnd`, version 3, event types 76.
const FILE_IO_OP_END: &[Field] = &[pointer("IrpPtr"), pointer("ExtraInfo"), uint32("NtStatus")];

/// `FileIo_PathOperation`, version 3, event types 79, 80, 81.
const FILE_IO_PATH_OPERATION: &[Field] = &[
    pointer("IrpPtr"),
    pointer("FileObject"),
    pointer("FileKey"),
    pointer("ExtraInfo"),
    uint32("TTID"),
    uint32("InfoClass"),
    utf16z("FileName"),
];

/// `FltIoInit`, version 3, event types 96, 97.
const FLT_IO_INIT: &[Field] = &[
    pointer("RoutineAddr"),
    pointer("FileObject"),
    pointer("FileContext"),
    pointer("IrpPtr"),
    pointer("CallbackDataPtr"),
    uint32("MajorFunction"),
];

/// `FltIoCompletion`, version 3, event types 98, 99.
const FLT_IO_COMPLETION: &[Field] = &[
    wmi_time("InitialTime"),
    pointer("RoutineAddr"),
    pointer("FileObject"),
    pointer("FileContext"),
    pointer("IrpPtr"),
    pointer("CallbackDataPtr"),
    uint32("MajorFunction"),
];

/// `FltIoFailure`, version 3, event types 100, 101.
const FLT_IO_FAILURE: &[Field] = &[
    pointer("RoutineAddr"),
    pointer("FileObject"),
    pointer("FileContext"),
    pointer("IrpPtr"),
    pointer("CallbackDataPtr"),
    uint32("MajorFunction"),
    hex32("Status"),
];

/// The events of `FileIo`, by event type and version.
#[rustfmt::skip]
pub(super) static FILE_IO_EVENTS: [KernelEvent; 52] = [
    event(FILE_IO, 0, 0, "FileIO", "Name", "FileIo_V0_Name", FILE_IO_V0_NAME),
    event(FILE_IO, 0, 1, "FileIO", "Name", "FileIo_V1_Name", FILE_IO_V1_NAME),
    event(FILE_IO, 0, 2, "FileIO", "Name", "FileIo_V2_Name", FILE_IO_V2_NAME),
    event(FILE_IO, 0, 3, "FileIO", "Name", "FileIo_Name", FILE_IO_NAME),
    event(FILE_IO, 32, 1, "FileIO", "FileCreate", "FileIo_V1_Name", FILE_IO_V1_NAME),
    event(FILE_IO, 32, 2, "FileIO", "FileCreate", "FileIo_V2_Name", FILE_IO_V2_NAME),
    event(FILE_IO, 32, 3, "FileIO", "FileCreate", "FileIo_Name", FILE_IO_NAME),
    event(FILE_IO, 35, 2, "FileIO", "FileDelete", "FileIo_V2_Name", FILE_IO_V2_NAME),
    event(FILE_IO, 35, 3, "FileIO", "FileDelete", "FileIo_Name", FILE_IO_NAME),
    event(FILE_IO, 36, 2, "FileIO", "FileRundown", "FileIo_V2_Name", FILE_IO_V2_NAME),
    event(FILE_IO, 36, 3, "FileIO", "FileRundown", "FileIo_Name", FILE_IO_NAME),
    event(FILE_IO, 37, 2, "FileIO", "MapFile", "FileIo_V2_MapFile", FILE_IO_V2_MAP_FILE),
    event(FILE_IO, 38, 2, "FileIO", "UnmapFile", "FileIo_V2_MapFile", FILE_IO_V2_MAP_FILE),
    event(FILE_IO, 39, 2, "FileIO", "MapFileDCStart", "FileIo_V2_MapFile", FILE_IO_V2_MAP_FILE),
    event(FILE_IO, 40, 2, "FileIO", "MapFileDCStop", "FileIo_V2_MapFile", FILE_IO_V2_MAP_FILE),
    event(FILE_IO, 64, 2, "FileIO", "Create", "FileIo_V2_Create", FILE_IO_V2_CREATE),
    event(FILE_IO, 64, 3, "FileIO", "Create", "FileIo_Create", FILE_IO_CREATE),
    event(FILE_IO, 65, 2, "FileIO", "Cleanup", "FileIo_V2_SimpleOp", FILE_IO_V2_SIMPLE_OP),
    event(FILE_IO, 65, 3, "FileIO", "Cleanup", "FileIo_SimpleOp", FILE_IO_SIMPLE_OP),
    event(FILE_IO, 66, 2, "FileIO", "Close", "FileIo_V2_SimpleOp", FILE_IO_V2_SIMPLE_OP),
    event(FILE_IO, 66, 3, "FileIO", "Close", "FileIo_SimpleOp", FILE_IO_SIMPLE_OP),
    event(FILE_IO, 67, 2, "FileIO", "Read", "FileIo_V2_ReadWrite", FILE_IO_V2_READ_WRITE),
    event(FILE_IO, 67, 3, "FileIO", "Read", "FileIo_ReadWrite", FILE_IO_READ_WRITE),
    event(FILE_IO, 68, 2, "FileIO", "Write", "FileIo_V2_ReadWrite", FILE_IO_V2_READ_WRITE),
    event(FILE_IO, 68, 3, "FileIO", "Write", "FileIo_ReadWrite", FILE_IO_READ_WRITE),
    event(FILE_IO, 69, 2, "FileIO", "SetInfo", "FileIo_V2_Info", FILE_IO_V2_INFO),
    event(FILE_IO, 69, 3, "FileIO", "SetInfo", "FileIo_Info", FILE_IO_INFO),
    event(FILE_IO, 70, 2, "FileIO", "Delete", "FileIo_V2_Info", FILE_IO_V2_INFO),
    event(FILE_IO, 70, 3, "FileIO", "Delete", "FileIo_Info", FILE_IO_INFO),
    event(FILE_IO, 71, 2, "FileIO", "Rename", "FileIo_V2_Info", FILE_IO_V2_INFO),
    event(FILE_IO, 71, 3, "FileIO", "Rename", "FileIo_Info", FILE_IO_INFO),
    event(FILE_IO, 72, 2, "FileIO", "DirEnum", "FileIo_V2_DirEnum", FILE_IO_V2_DIR_ENUM),
    event(FILE_IO, 72, 3, "FileIO", "DirEnum", "FileIo_DirEnum", FILE_IO_DIR_ENUM),
    event(FILE_IO, 73, 2, "FileIO", "Flush", "FileIo_V2_SimpleOp", FILE_IO_V2_SIMPLE_OP),
    event(FILE_IO, 73, 3, "FileIO", "Flush", "FileIo_SimpleOp", FILE_IO_SIMPLE_OP),
    event(FILE_IO, 74, 2, "FileIO", "QueryInfo", "FileIo_V2_Info", FILE_IO_V2_INFO),
    event(FILE_IO, 74, 3, "FileIO", "QueryInfo", "FileIo_Info", FILE_IO_INFO),
    event(FILE_IO, 75, 2, "FileIO", "FSControl", "FileIo_V2_Info", FILE_IO_V2_INFO),
    event(FILE_IO, 75, 3, "FileIO", "FSControl", "FileIo_Info", FILE_IO_INFO),
    event(FILE_IO, 76, 2, "FileIO", "OperationEnd", "FileIo_V2_OpEnd", FILE_IO_V2_OP_END),
    event(FILE_IO, 76, 3, "FileIO", "OperationEnd", "FileIo_OpEnd", FILE_IO_OP_END),
    event(FILE_IO, 77, 2, "FileIO", "DirNotify", "FileIo_V2_DirEnum", FILE_IO_V2_DIR_ENUM),
    event(FILE_IO, 77, 3, "FileIO", "DirNotify", "FileIo_DirEnum", FILE_IO_DIR_ENUM),
    event(FILE_IO, 79, 3, "FileIO", "DletePath", "FileIo_PathOperation", FILE_IO_PATH_OPERATION),
    event(FILE_IO, 80, 3, "FileIO", "RenamePath", "FileIo_PathOperation", FILE_IO_PATH_OPERATION),
    event(FILE_IO, 81, 3, "FileIO", "SetLinkPath", "FileIo_PathOperation", FILE_IO_PATH_OPERATION),
    event(FILE_IO, 96, 3, "FileIO", "PreOpInit", "FltIoInit", FLT_IO_INIT),
    event(FILE_IO, 97, 3, "FileIO", "PostOpInit", "FltIoInit", FLT_IO_INIT),
    event(FILE_IO, 98, 3, "FileIO", "PreOpCompletion", "FltIoCompletion", FLT_IO_COMPLETION),
    event(FILE_IO, 99, 3, "FileIO", "PostOpCompletion", "FltIoCompletion", FLT_IO_COMPLETION),
    event(FILE_IO, 100, 3, "FileIO", "PreOpFailure", "FltIoFailure", FLT_IO_FAILURE),
    event(FILE_IO, 101, 3, "FileIO", "PostOpFailure", "FltIoFailure", FLT_IO_FAILURE),
];

// ---- Registry `ae53722e-c863-11d2-8659-00c04fa321a1` ----

/// `Registry_V0_TypeGroup1`, version 0, event types 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21.
const REGISTRY_V0_TYPE_GROUP1: &[Field] = &[
    pointer("Status"),
    pointer("KeyHandle"),
    sint64("ElapsedTime"),
    utf16z("KeyName"),
];

/// `Registry_V1_TypeGroup1`, version 1, event types 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22.
const REGISTRY_V1_TYPE_GROUP1: &[Field] = &[
    pointer("Status"),
    pointer("KeyHandle"),
    sint64("ElapsedTime"),
    uint32("Index"),
    utf16z("KeyName"),
];

/// `Registry_TypeGroup1`, version 2, event types 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29.
const REGISTRY_TYPE_GROUP1: &[Field] = &[
    sint64("InitialTime"),
    uint32("Status"),
    uint32("Index"),
    pointer("KeyHandle"),
    utf16z("KeyName"),
];

/// `Registry_TxR`, version 2, event types 30, 31, 32.
const REGISTRY_TX_R: &[Field] = &[
    guid("TxrGUID"),
    uint32("Status"),
    uint32("UowCount"),
    uint64("OperationTime"),
    utf16z("Hive"),
];

/// `Registry_Counters`, version 2, event types 34.
const REGISTRY_COUNTERS: &[Field] = &[
    uint64("Counter1"),
    uint64("Counter2"),
    uint64("Counter3"),
    uint64("Counter4"),
    uint64("Counter5"),
    uint64("Counter6"),
    uint64("Counter7"),
    uint64("Counter8"),
    uint64("Counter9"),
    uint64("Counter10"),
    uint64("Counter11"),
];

/// `Registry_Config`, version 2, event types 35.
const REGISTRY_CONFIG: &[Field] = &[uint32("CurrentControlSet")];

/// `Registry_HiveInitialize`, version 2, event types 36.
const REGISTRY_HIVE_INITIALIZE: &[Field] = &[
    pointer("Hive"),
    uint32("OperationType"),
    uint32("PoolTag"),
    uint32("Size"),
    utf16z("FileName"),
];

/// `Registry_HiveDestroy`, version 2, event types 37.
const REGISTRY_HIVE_DESTROY: &[Field] = &[pointer("Hive"), utf16z("FileName"), utf16z("Path")];

/// `Registry_HiveLink`, version 2, event types 38.
const REGISTRY_HIVE_LINK: &[Field] = &[pointer("Hive"), utf16z("Path")];

/// `Registry_HiveRundown`, version 2, event types 39.
const REGISTRY_HIVE_RUNDOWN: &[Field] = &[
    uint64("Size"),
    pointer("Hive"),
    uint32("LoadedKeyCount"),
    utf16z("FileName"),
    utf16z("LinkPath"),
];

/// `Registry_HiveDirty`, version 2, event types 40.
const REGISTRY_HIVE_DIRTY: &[Field] = &[pointer("Hive"), utf16z("LinkPath"), uint32("DirtyReason")];

/// `Registry_ChangeNotification`, version 2, event types 48.
const REGISTRY_CHANGE_NOTIFICATION: &[Field] = &[
    pointer("Notification"),
    pointer("KeyHandle"),
    uint8("Type"),
    uint8("WatchSubtree"),
    uint8("Primary"),
];

/// The events of `Registry`, by event type and version.
#[rustfmt::skip]
pub(super) static REGISTRY_EVENTS: [KernelEvent; 56] = [
    event(REGISTRY, 10, 0, "Registry", "Create", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 10, 1, "Registry", "Create", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 10, 2, "Registry", "Create", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 11, 0, "Registry", "Open", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 11, 1, "Registry", "Open", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 11, 2, "Registry", "Open", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 12, 0, "Registry", "Delete", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 12, 1, "Registry", "Delete", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 12, 2, "Registry", "Delete", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 13, 0, "Registry", "Query", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 13, 1, "Registry", "Query", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 13, 2, "Registry", "Query", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 14, 0, "Registry", "SetValue", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 14, 1, "Registry", "SetValue", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 14, 2, "Registry", "SetValue", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 15, 0, "Registry", "DeleteValue", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 15, 1, "Registry", "DeleteValue", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 15, 2, "Registry", "DeleteValue", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 16, 0, "Registry", "QueryValue", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 16, 1, "Registry", "QueryValue", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 16, 2, "Registry", "QueryValue", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 17, 0, "Registry", "EnumerateKey", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 17, 1, "Registry", "EnumerateKey", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 17, 2, "Registry", "EnumerateKey", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 18, 0, "Registry", "EnumerateValueKey", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 18, 1, "Registry", "EnumerateValueKey", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 18, 2, "Registry", "EnumerateValueKey", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 19, 0, "Registry", "QueryMultipleValue", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 19, 1, "Registry", "QueryMultipleValue", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 19, 2, "Registry", "QueryMultipleValue", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 20, 0, "Registry", "SetInformation", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 20, 1, "Registry", "SetInformation", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 20, 2, "Registry", "SetInformation", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 21, 0, "Registry", "Flush", "Registry_V0_TypeGroup1", REGISTRY_V0_TYPE_GROUP1),
    event(REGISTRY, 21, 1, "Registry", "Flush", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 21, 2, "Registry", "Flush", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 22, 1, "Registry", "KCBCreate", "Registry_V1_TypeGroup1", REGISTRY_V1_TYPE_GROUP1),
    event(REGISTRY, 22, 2, "Registry", "KCBCreate", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 23, 2, "Registry", "KCBDelete", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 24, 2, "Registry", "KCBRundownBegin", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 25, 2, "Registry", "KCBRundownEnd", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 26, 2, "Registry", "Virtualize", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 27, 2, "Registry", "Close", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 28, 2, "Registry", "SetSecurity", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 29, 2, "Registry", "QuerySecurity", "Registry_TypeGroup1", REGISTRY_TYPE_GROUP1),
    event(REGISTRY, 30, 2, "Registry", "TxRCommit", "Registry_TxR", REGISTRY_TX_R),
    event(REGISTRY, 31, 2, "Registry", "TxRPrepare", "Registry_TxR", REGISTRY_TX_R),
    event(REGISTRY, 32, 2, "Registry", "TxRRollback", "Registry_TxR", REGISTRY_TX_R),
    event(REGISTRY, 34, 2, "Registry", "Counters", "Registry_Counters", REGISTRY_COUNTERS),
    event(REGISTRY, 35, 2, "Registry", "Config", "Registry_Config", REGISTRY_CONFIG),
    event(REGISTRY, 36, 2, "Registry", "HiveInit", "Registry_HiveInitialize", REGISTRY_HIVE_INITIALIZE),
    event(REGISTRY, 37, 2, "Registry", "HiveDestroy", "Registry_HiveDestroy", REGISTRY_HIVE_DESTROY),
    event(REGISTRY, 38, 2, "Registry", "HiveLink", "Registry_HiveLink", REGISTRY_HIVE_LINK),
    event(REGISTRY, 39, 2, "Registry", "HiveDCEnd", "Registry_HiveRundown", REGISTRY_HIVE_RUNDOWN),
    event(REGISTRY, 40, 2, "Registry", "HiveDirty", "Registry_HiveDirty", REGISTRY_HIVE_DIRTY),
    event(REGISTRY, 48, 2, "Registry", "ChangeNotify", "Registry_ChangeNotification", REGISTRY_CHANGE_NOTIFICATION),
];
