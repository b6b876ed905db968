//! The system configuration the kernel logs at the start and end of a session
//! (`SystemConfig`), and KernelTraceControl's `SysConfig` events.
//!
//! Written from the kernel's MOF (`wmicore.mof`; see the parent module for the sources and
//! the rules that turn its qualifiers into types); task and opcode names as TraceEvent prints
//! them.

use crate::payload::schema::Count;

use super::{
    ansiz, event, filetime, guid, hex32, hex64, pointer, sint32, sint64, uint16, uint32, uint64,
    uint8, utf16_chars, utf16z, Field, KernelEvent, SYSTEM_CONFIG, SYS_CONFIG,
};

// ---- SystemConfig `01853a65-418f-4f36-aefc-dc0f1d2fd235` ----

/// `SystemConfig_V0_CPU`, version 0, event types 10.
const SYSTEM_CONFIG_V0_CPU: &[Field] = &[
    uint32("MHz"),
    uint32("NumberOfProcessors"),
    uint32("MemSize"),
    uint32("PageSize"),
    uint32("AllocationGranularity"),
    utf16_chars("ComputerName", 256),
    utf16_chars("DomainName", 132),
    pointer("HyperThreadingFlag"),
];

/// `SystemConfig_V0_PhyDisk`, version 0, event types 11.
const SYSTEM_CONFIG_V0_PHY_DISK: &[Field] = &[
    uint32("DiskNumber"),
    uint32("BytesPerSector"),
    uint32("SectorsPerTrack"),
    uint32("TracksPerCylinder"),
    uint64("Cylinders"),
    uint32("SCSIPort"),
    uint32("SCSIPath"),
    uint32("SCSITarget"),
    uint32("SCSILun"),
    utf16_chars("Manufacturer", 256),
    uint32("PartitionCount"),
    uint8("WriteCacheEnabled"),
    uint8("Pad"),
    utf16_chars("BootDriveLetter", 3),
    utf16_chars("Spare", 2),
];

/// `SystemConfig_V0_LogDisk`, version 0, event types 12.
const SYSTEM_CONFIG_V0_LOG_DISK: &[Field] = &[
    uint64("StartOffset"),
    uint64("PartitionSize"),
    uint32("DiskNumber"),
    uint32("Size"),
    uint32("DriveType"),
    utf16_chars("DriveLetterString", 4),
    uint32("Pad1"),
    uint32("PartitionNumber"),
    uint32("SectorsPerCluster"),
    uint32("BytesPerSector"),
    uint32("Pad2"),
    sint64("NumberOfFreeClusters"),
    sint64("TotalNumberOfClusters"),
    utf16_chars("FileSystem", 16),
    uint32("VolumeExt"),
];

/// `SystemConfig_V0_NIC`, version 0, event types 13.
const SYSTEM_CONFIG_V0_NIC: &[Field] = &[
    utf16_chars("NICName", 256),
    uint32("Index"),
    uint32("PhysicalAddrLen"),
    utf16_chars("PhysicalAddr", 8),
    uint32("Size"),
    sint32("IpAddress"),
    sint32("SubnetMask"),
    sint32("DhcpServer"),
    sint32("Gateway"),
    sint32("PrimaryWinsServer"),
    sint32("SecondaryWinsServer"),
    sint32("DnsServer1"),
    sint32("DnsServer2"),
    sint32("DnsServer3"),
    sint32("DnsServer4"),
    uint32("Data"),
];

/// `SystemConfig_V0_Video`, version 0, event types 14.
const SYSTEM_CONFIG_V0_VIDEO: &[Field] = &[
    uint32("MemorySize"),
    uint32("XResolution"),
    uint32("YResolution"),
    uint32("BitsPerPixel"),
    uint32("VRefresh"),
    utf16_chars("ChipType", 256),
    utf16_chars("DACType", 256),
    utf16_chars("AdapterString", 256),
    utf16_chars("BiosString", 256),
    utf16_chars("DeviceId", 256),
    hex32("StateFlags"),
];

/// `SystemConfig_V0_Services`, version 0, event types 15.
const SYSTEM_CONFIG_V0_SERVICES: &[Field] = &[
    utf16_chars("ServiceName", 34),
    utf16_chars("DisplayName", 256),
    utf16_chars("ProcessName", 34),
    uint32("ProcessId"),
];

/// `SystemConfig_V0_Power`, version 0, event types 16.
const SYSTEM_CONFIG_V0_POWER: &[Field] = &[
    uint8("S1"),
    uint8("S2"),
    uint8("S3"),
    uint8("S4"),
    uint8("S5"),
    uint8("Pad1"),
    uint8("Pad2"),
    uint8("Pad3"),
];

/// `SystemConfig_V0_IRQ`, version 0, event types 21.
const SYSTEM_CONFIG_V0_IRQ: &[Field] = &[
    hex64("IRQAffinity"),
    uint32("IRQNum"),
    uint32("DeviceDescriptionLen"),
    utf16z("DeviceDescription"),
];

/// `SystemConfig_V0_PnP`, version 0, event types 22.
const SYSTEM_CONFIG_V0_PN_P: &[Field] = &[
    uint32("IDLength"),
    uint32("DescriptionLength"),
    uint32("FriendlyNameLength"),
    utf16z("DeviceID"),
    utf16z("DeviceDescription"),
    utf16z("FriendlyName"),
];

/// `SystemConfig_V1_CPU`, version 1, event types 10.
const SYSTEM_CONFIG_V1_CPU: &[Field] = &[
    uint32("MHz"),
    uint32("NumberOfProcessors"),
    uint32("MemSize"),
    uint32("PageSize"),
    uint32("AllocationGranularity"),
    utf16_chars("ComputerName", 256),
    utf16_chars("DomainName", 132),
    pointer("HyperThreadingFlag"),
];

/// `SystemConfig_V1_PhyDisk`, version 1, event types 11.
const SYSTEM_CONFIG_V1_PHY_DISK: &[Field] = &[
    uint32("DiskNumber"),
    uint32("BytesPerSector"),
    uint32("SectorsPerTrack"),
    uint32("TracksPerCylinder"),
    uint64("Cylinders"),
    uint32("SCSIPort"),
    uint32("SCSIPath"),
    uint32("SCSITarget"),
    uint32("SCSILun"),
    utf16_chars("Manufacturer", 256),
    uint32("PartitionCount"),
    uint8("WriteCacheEnabled"),
    uint8("Pad"),
    utf16_chars("BootDriveLetter", 3),
    utf16_chars("Spare", 2),
];

/// `SystemConfig_V1_LogDisk`, version 1, event types 12.
const SYSTEM_CONFIG_V1_LOG_DISK: &[Field] = &[
    uint64("StartOffset"),
    uint64("PartitionSize"),
    uint32("DiskNumber"),
    uint32("Size"),
    uint32("DriveType"),
    utf16_chars("DriveLetterString", 4),
    uint32("Pad1"),
    uint32("PartitionNumber"),
    uint32("SectorsPerCluster"),
    uint32("BytesPerSector"),
    uint32("Pad2"),
    sint64("NumberOfFreeClusters"),
    sint64("TotalNumberOfClusters"),
    utf16_chars("FileSystem", 16),
    uint32("VolumeExt"),
];

/// `SystemConfig_V1_NIC`, version 1, event types 13.
const SYSTEM_CONFIG_V1_NIC: &[Field] = &[
    utf16_chars("NICName", 256),
    uint32("Index"),
    uint32("PhysicalAddrLen"),
    utf16_chars("PhysicalAddr", 8),
    uint32("Size"),
    sint32("IpAddress"),
    sint32("SubnetMask"),
    sint32("DhcpServer"),
    sint32("Gateway"),
    sint32("PrimaryWinsServer"),
    sint32("SecondaryWinsServer"),
    sint32("DnsServer1"),
    sint32("DnsServer2"),
    sint32("DnsServer3"),
    sint32("DnsServer4"),
    uint32("Data"),
];

/// `SystemConfig_V1_Video`, version 1, event types 14.
const SYSTEM_CONFIG_V1_VIDEO: &[Field] = &[
    uint32("MemorySize"),
    uint32("XResolution"),
    uint32("YResolution"),
    uint32("BitsPerPixel"),
    uint32("VRefresh"),
    utf16_chars("ChipType", 256),
    utf16_chars("DACType", 256),
    utf16_chars("AdapterString", 256),
    utf16_chars("BiosString", 256),
    utf16_chars("DeviceId", 256),
    hex32("StateFlags"),
];

/// `SystemConfig_V1_Services`, version 1, event types 15.
const SYSTEM_CONFIG_V1_SERVICES: &[Field] = &[
    utf16_chars("ServiceName", 34),
    utf16_chars("DisplayName", 256),
    utf16_chars("ProcessName", 34),
    uint32("ProcessId"),
];

/// `SystemConfig_V1_Power`, version 1, event types 16.
const SYSTEM_CONFIG_V1_POWER: &[Field] = &[
    uint8("S1"),
    uint8("S2"),
    uint8("S3"),
    uint8("S4"),
    uint8("S5"),
    uint8("Pad1"),
    uint8("Pad2"),
    uint8("Pad3"),
];

/// `SystemConfig_V1_IRQ`, version 1, event types 21.
const SYSTEM_CONFIG_V1_IRQ: &[Field] = &[
    hex64("IRQAffinity"),
    uint32("IRQNum"),
    uint32("DeviceDescriptionLen"),
    utf16z("DeviceDescription"),
];

/// `SystemConfig_V1_PnP`, version 1, event types 22.
const SYSTEM_CONFIG_V1_PN_P: &[Field] = &[
    uint32("IDLength"),
    uint32("DescriptionLength"),
    uint32("FriendlyNameLength"),
    utf16z("DeviceID"),
    utf16z("DeviceDescription"),
    utf16z("FriendlyName"),
];

/// `SystemConfig_V2_CPU`, version 2, event types 10.
const SYSTEM_CONFIG_V2_CPU: &[Field] = &[
    uint32("MHz"),
    uint32("NumberOfProcessors"),
    uint32("MemSize"),
    uint32("PageSize"),
    uint32("AllocationGranularity"),
    utf16_chars("ComputerName", 256),
    utf16_chars("DomainName", 134),
    pointer("HyperThreadingFlag"),
];

/// `SystemConfig_V2_PhyDisk`, version 2, event types 11.
const SYSTEM_CONFIG_V2_PHY_DISK: &[Field] = &[
    uint32("DiskNumber"),
    uint32("BytesPerSector"),
    uint32("SectorsPerTrack"),
    uint32("TracksPerCylinder"),
    uint64("Cylinders"),
    uint32("SCSIPort"),
    uint32("SCSIPath"),
    uint32("SCSITarget"),
    uint32("SCSILun"),
    utf16_chars("Manufacturer", 256),
    uint32("PartitionCount"),
    uint8("WriteCacheEnabled"),
    uint8("Pad"),
    utf16_chars("BootDriveLetter", 3),
    utf16_chars("Spare", 2),
];

/// `SystemConfig_V2_LogDisk`, version 2, event types 12.
const SYSTEM_CONFIG_V2_LOG_DISK: &[Field] = &[
    uint64("StartOffset"),
    uint64("PartitionSize"),
    uint32("DiskNumber"),
    uint32("Size"),
    uint32("DriveType"),
    utf16_chars("DriveLetterString", 4),
    uint32("Pad1"),
    uint32("PartitionNumber"),
    uint32("SectorsPerCluster"),
    uint32("BytesPerSector"),
    uint32("Pad2"),
    sint64("NumberOfFreeClusters"),
    sint64("TotalNumberOfClusters"),
    utf16_chars("FileSystem", 16),
    uint32("VolumeExt"),
    uint32("Pad3"),
];

/// `SystemConfig_V2_NIC`, version 2, event types 13.
const SYSTEM_CONFIG_V2_NIC: &[Field] = &[
    hex64("PhysicalAddr"),
    uint32("PhysicalAddrLen"),
    uint32("Ipv4Index"),
    uint32("Ipv6Index"),
    utf16z("NICDescription"),
    utf16z("IpAddresses"),
    utf16z("DnsServerAddresses"),
];

/// `SystemConfig_V2_Video`, version 2, event types 14.
const SYSTEM_CONFIG_V2_VIDEO: &[Field] = &[
    uint32("MemorySize"),
    uint32("XResolution"),
    uint32("YResolution"),
    uint32("BitsPerPixel"),
    uint32("VRefresh"),
    utf16_chars("ChipType", 256),
    utf16_chars("DACType", 256),
    utf16_chars("AdapterString", 256),
    utf16_chars("BiosString", 256),
    utf16_chars("DeviceId", 256),
    hex32("StateFlags"),
];

/// `SystemConfig_V2_Services`, version 2, event types 15.
const SYSTEM_CONFIG_V2_SERVICES: &[Field] = &[
    hex32("ProcessId"),
    hex32("ServiceState"),
    hex32("SubProcessTag"),
    utf16z("ServiceName"),
    utf16z("DisplayName"),
    utf16z("ProcessName"),
];

/// `SystemConfig_V2_Power`, version 2, event types 16.
const SYSTEM_CONFIG_V2_POWER: &[Field] = &[
    uint8("S1"),
    uint8("S2"),
    uint8("S3"),
    uint8("S4"),
    uint8("S5"),
    uint8("Pad1"),
    uint8("Pad2"),
    uint8("Pad3"),
];

/// `SystemConfig_V2_Network`, version 2, event types 17.
const SYSTEM_CONFIG_V2_NETWORK: &[Field] = &[
    uint32("TcbTablePartitions"),
    uint32("MaxHashTableSize"),
    uint32("MaxUserPort"),
    uint32("TcpTimedWaitDelay"),
];

/// `SystemConfig_V2_OpticalMedia`, version 2, event types 18.
const SYSTEM_CONFIG_V2_OPTICAL_MEDIA: &[Field] = &[
    uint16("DiskNumber"),
    uint16("BusType"),
    uint16("DeviceType"),
    uint16("MediaType"),
    uint64("StartingOffset"),
    uint64("Size"),
    uint64("NumberOfFreeBlocks"),
    uint64("TotalNumberOfBlocks"),
    uint64("NextWritableAddress"),
    uint32("NumberOfSessions"),
    uint32("NumberOfTracks"),
    uint32("BytesPerSector"),
    uint16("DiscStatus"),
    uint16("LastSessionStatus"),
    utf16z("DriveLetter"),
    utf16z("FileSystemName"),
    ansiz("DeviceName"),
    ansiz("ManufacturerName"),
];

/// `SystemConfig_V2_IRQ`, version 2, event types 21.
const SYSTEM_CONFIG_V2_IRQ: &[Field] = &[
    hex64("IRQAffinity"),
    uint32("IRQNum"),
    uint32("DeviceDescriptionLen"),
    utf16z("DeviceDescription"),
];

/// `SystemConfig_V2_PnP`, version 2, event types 22.
const SYSTEM_CONFIG_V2_PN_P: &[Field] = &[
    uint32("IDLength"),
    uint32("DescriptionLength"),
    uint32("FriendlyNameLength"),
    utf16z("DeviceID"),
    utf16z("DeviceDescription"),
    utf16z("FriendlyName"),
];

/// `SystemConfig_V2_IDEChannel`, version 2, event types 23.
const SYSTEM_CONFIG_V2_IDE_CHANNEL: &[Field] = &[
    uint32("TargetId"),
    hex32("DeviceType"),
    hex32("DeviceTimingMode"),
    uint32("LocationInformationLen"),
    utf16z("LocationInformation"),
];

/// `SystemConfig_V2_NumaNode`, version 2, event types 24.
const SYSTEM_CONFIG_V2_NUMA_NODE: &[Field] = &[
    uint32("NodeCount"),
    uint64("NodeMap").with_count(Count::FromField(0)),
];

/// `SystemConfig_V2_Platform`, version 2, event types 25.
const SYSTEM_CONFIG_V2_PLATFORM: &[Field] = &[
    utf16z("SystemManufacturer"),
    utf16z("SystemProductName"),
    utf16z("BiosDate"),
    utf16z("BiosVersion"),
];

/// `SystemConfig_V2_ProcGroup`, version 2, event types 26.
const SYSTEM_CONFIG_V2_PROC_GROUP: &[Field] = &[
    uint32("GroupCount"),
    pointer("Affinity").with_count(Count::FromField(0)),
];

/// `SystemConfig_V2_ProcNumber`, version 2, event types 27.
const SYSTEM_CONFIG_V2_PROC_NUMBER: &[Field] = &[
    uint32("ProcessorCount"),
    hex32("ProcessorNumber").with_count(Count::FromField(0)),
];

/// `SystemConfig_V2_DPI`, version 2, event types 28.
const SYSTEM_CONFIG_V2_DPI: &[Field] = &[uint32("MachineDPI"), uint32("UserDPI")];

/// `SystemConfig_V2_CodeIntegrity`, version 2, event types 29.
const SYSTEM_CONFIG_V2_CODE_INTEGRITY: &[Field] = &[uint32("CodeIntegrityInfo")];

/// `SystemConfig_V3_CPU`, version 3, event types 10.
const SYSTEM_CONFIG_V3_CPU: &[Field] = &[
    uint32("MHz"),
    uint32("NumberOfProcessors"),
    uint32("MemSize"),
    uint32("PageSize"),
    uint32("AllocationGranularity"),
    utf16_chars("ComputerName", 256),
    utf16_chars("DomainName", 134),
    pointer("HyperThreadingFlag"),
    pointer("HighestUserAddress"),
    uint16("ProcessorArchitecture"),
    uint16("ProcessorLevel"),
    uint16("ProcessorRevision"),
    uint8("PaeEnabled"),
    uint8("NxEnabled"),
    uint32("MemorySpeed"),
];

/// `SystemConfig_V3_IRQ`, version 3, event types 21.
const SYSTEM_CONFIG_V3_IRQ: &[Field] = &[
    hex64("IRQAffinity"),
    uint16("IRQGroup"),
    uint16("Reserved"),
    uint32("IRQNum"),
    uint32("DeviceDescriptionLen"),
    utf16z("DeviceDescription"),
];

/// `SystemConfig_V3_Services`, version 3, event types 15.
const SYSTEM_CONFIG_V3_SERVICES: &[Field] = &[
    hex32("ProcessId"),
    hex32("ServiceState"),
    hex32("SubProcessTag"),
    utf16z("ServiceName"),
    utf16z("DisplayName"),
    utf16z("ProcessName"),
    utf16z("LoadOrderGroup"),
    utf16z("SvchostGroup"),
];

/// `SystemConfig_V3_PnP`, version 3, event types 22.
const SYSTEM_CONFIG_V3_PN_P: &[Field] = &[
    uint32("IDLength"),
    uint32("DescriptionLength"),
    uint32("FriendlyNameLength"),
    utf16z("DeviceID"),
    utf16z("DeviceDescription"),
    utf16z("FriendlyName"),
    utf16z("PdoName"),
];

/// `SystemConfig_V3_MobilePlatform`, version 3, event types 32.
const SYSTEM_CONFIG_V3_MOBILE_PLATFORM: &[Field] = &[
    utf16z("DeviceManufacturer"),
    utf16z("DeviceManufacturerDisplayName"),
    utf16z("DeviceModel"),
    utf16z("DeviceModelDisplayName"),
    utf16z("MobileOperator"),
    utf16z("MobileOperatorDisplayName"),
    utf16z("HardwareVersion"),
    utf16z("SocVersion"),
    utf16z("RadioHardwareVersion"),
    utf16z("RadioSoftwareVersion"),
    utf16z("BspVersion"),
    utf16z("OemSoftwareVersion"),
];

/// `SystemConfig_V4_PnP`, version 4, event types 22.
const SYSTEM_CONFIG_V4_PN_P: &[Field] = &[
    guid("ClassGuid"),
    uint32("UpperFiltersCount"),
    uint32("LowerFiltersCount"),
    utf16z("DeviceID"),
    utf16z("DeviceDescription"),
    utf16z("FriendlyName"),
    utf16z("PdoName"),
    utf16z("ServiceName"),
    utf16z("UpperFilters").with_count(Count::FromField(1)),
    utf16z("LowerFilters").with_count(Count::FromField(2)),
];

/// `SystemConfig_V4_MobilePlatform`, version 4, event types 32.
const SYSTEM_CONFIG_V4_MOBILE_PLATFORM: &[Field] = &[
    utf16z("DeviceManufacturer"),
    utf16z("DeviceManufacturerDisplayName"),
    utf16z("DeviceModel"),
    utf16z("DeviceModelDisplayName"),
    utf16z("MobileOperator"),
    utf16z("SocVersion"),
    utf16z("BspVersion"),
];

/// `SystemConfig_PnP`, version 5, event types 22.
const SYSTEM_CONFIG_PN_P: &[Field] = &[
    guid("ClassGuid"),
    uint32("UpperFiltersCount"),
    uint32("LowerFiltersCount"),
    uint32("DevStatus"),
    uint32("DevProblem"),
    utf16z("DeviceID"),
    utf16z("DeviceDescription"),
    utf16z("FriendlyName"),
    utf16z("PdoName"),
    utf16z("ServiceName"),
    utf16z("UpperFilters").with_count(Count::FromField(1)),
    utf16z("LowerFilters").with_count(Count::FromField(2)),
];

/// `SystemConfig_V2_TelemetryInfo`, version 2, event types 30.
const SYSTEM_CONFIG_V2_TELEMETRY_INFO: &[Field] = &[guid("MachineId")];

/// `SystemConfig_V2_Defrag`, version 2, event types 31.
const SYSTEM_CONFIG_V2_DEFRAG: &[Field] = &[
    uint64("AlignmentClusters"),
    uint64("AvgFreeSpaceSize"),
    uint64("ClustersPerSlab"),
    uint64("FragmentedDirectoryExtents"),
    uint64("FragmentedExtents"),
    uint64("FreeSpaceCount"),
    uint64("LargestFreeSpaceSize"),
    uint64("LastRunActualPurgeClusters"),
    uint64("LastRunClustersTrimmed"),
    uint64("LastRunFullDefragTime"),
    uint64("LastRunTime"),
    uint64("MFTSize"),
    uint64("TotalClusters"),
    uint64("TotalUsedClusters"),
    uint32("AvgFragmentsPerFile"),
    uint32("BytesPerCluster"),
    uint32("DirectoryCount"),
    uint32("FragmentedDirectories"),
    uint32("FragmentedFiles"),
    uint32("FragmentedSpace"),
    uint32("HardwareIssue"),
    uint32("InUseMFTRecords"),
    uint32("InUseSlabs"),
    uint32("LastRunActualPurgeSlabs"),
    uint32("LastRunInitialBackedSlabs"),
    uint32("LastRunPercentFragmentation"),
    uint32("LastRunPinnedSlabs"),
    uint32("LastRunPotentialPurgeSlabs"),
    uint32("LastRunSpaceInefficientSlabs"),
    uint32("LastRunTrimmedSlabs"),
    uint32("LastRunUnknownEvictFailSlabs"),
    uint32("LastRunVolsnapPinnedSlabs"),
    uint32("MFTFragmentCount"),
    uint32("MovableFiles"),
    uint32("TotalMFTRecords"),
    uint32("TotalSlabs"),
    uint32("UnmovableFiles"),
    guid("VolumeId"),
    utf16z("VolumePathNames"),
];

/// `SystemConfig_V2_MobilePlatform`, version 2, event types 32.
const SYSTEM_CONFIG_V2_MOBILE_PLATFORM: &[Field] = &[
    utf16z("BootLoaderVersion"),
    utf16z("FirmwareRevision"),
    utf16z("FriendlyName"),
    utf16z("HardwareRevision"),
    utf16z("Manufacturer"),
    utf16z("ManufacturerDisplayName"),
    utf16z("ManufacturerModelName"),
    utf16z("MobileOperatorDisplayName"),
    utf16z("MobileOperatorName"),
    utf16z("ModelName"),
    utf16z("RadioHardwareRevision"),
    utf16z("RadioSoftwareRevision"),
    utf16z("ROMVersion"),
    utf16z("SOCVersion"),
    utf16z("HardwareVariant"),
];

/// `SystemConfig_V2_DeviceFamily`, version 2, event types 33.
const SYSTEM_CONFIG_V2_DEVICE_FAMILY: &[Field] = &[
    uint64("UAPInfo"),
    uint32("DeviceFamily"),
    uint32("DeviceForm"),
];

/// `SystemConfig_V2_FlightIds`, version 2, event types 34.
const SYSTEM_CONFIG_V2_FLIGHT_IDS: &[Field] = &[utf16z("UpdateId"), utf16z("FlightIdList")];

/// `SystemConfig_V2_Processors`, version 2, event types 35.
const SYSTEM_CONFIG_V2_PROCESSORS: &[Field] = &[
    uint32("ProcessorIndex"),
    uint32("FeatureSet"),
    uint32("ProcessorSpeed"),
    utf16_chars("ProcessorName", 64),
    utf16_chars("VendorIdentifier", 16),
    utf16_chars("ProcessorIdentifier", 128),
];

/// `SystemConfig_Virtualization`, version 2, event types 36.
const SYSTEM_CONFIG_VIRTUALIZATION: &[Field] = &[
    uint8("VbsEnabled"),
    uint8("HvciEnabled"),
    uint8("HyperVisorEnabled"),
    uint8("Reserved"),
];

/// `SystemConfig_Boot`, version 2, event types 37.
const SYSTEM_CONFIG_BOOT: &[Field] = &[
    uint64("BootFlags"),
    uint32("FirmwareType"),
    uint8("SecureBootEnabled"),
    uint8("SecureBootCapable"),
    uint8("Reserved1"),
    uint8("Reserved2"),
];

/// The events of `SystemConfig`, by event type and version.
#[rustfmt::skip]
pub(super) static SYSTEM_CONFIG_EVENTS: [KernelEvent; 52] = [
    event(SYSTEM_CONFIG, 10, 0, "SystemConfig", "CPU", "SystemConfig_V0_CPU", SYSTEM_CONFIG_V0_CPU),
    event(SYSTEM_CONFIG, 10, 1, "SystemConfig", "CPU", "SystemConfig_V1_CPU", SYSTEM_CONFIG_V1_CPU),
    event(SYSTEM_CONFIG, 10, 2, "SystemConfig", "CPU", "SystemConfig_V2_CPU", SYSTEM_CONFIG_V2_CPU),
    event(SYSTEM_CONFIG, 10, 3, "SystemConfig", "CPU", "SystemConfig_V3_CPU", SYSTEM_CONFIG_V3_CPU),
    event(SYSTEM_CONFIG, 11, 0, "SystemConfig", "PhyDisk", "SystemConfig_V0_PhyDisk", SYSTEM_CONFIG_V0_PHY_DISK),
    event(SYSTEM_CONFIG, 11, 1, "SystemConfig", "PhyDisk", "SystemConfig_V1_PhyDisk", SYSTEM_CONFIG_V1_PHY_DISK),
    event(SYSTEM_CONFIG, 11, 2, "SystemConfig", "PhyDisk", "SystemConfig_V2_PhyDisk", SYSTEM_CONFIG_V2_PHY_DISK),
    event(SYSTEM_CONFIG, 12, 0, "SystemConfig", "LogDisk", "SystemConfig_V0_LogDisk", SYSTEM_CONFIG_V0_LOG_DISK),
    event(SYSTEM_CONFIG, 12, 1, "SystemConfig", "LogDisk", "SystemConfig_V1_LogDisk", SYSTEM_CONFIG_V1_LOG_DISK),
    event(SYSTEM_CONFIG, 12, 2, "SystemConfig", "LogDisk", "SystemConfig_V2_LogDisk", SYSTEM_CONFIG_V2_LOG_DISK),
    event(SYSTEM_CONFIG, 13, 0, "SystemConfig", "NIC", "SystemConfig_V0_NIC", SYSTEM_CONFIG_V0_NIC),
    event(SYSTEM_CONFIG, 13, 1, "SystemConfig", "NIC", "SystemConfig_V1_NIC", SYSTEM_CONFIG_V1_NIC),
    event(SYSTEM_CONFIG, 13, 2, "SystemConfig", "NIC", "SystemConfig_V2_NIC", SYSTEM_CONFIG_V2_NIC),
    event(SYSTEM_CONFIG, 14, 0, "SystemConfig", "Video", "SystemConfig_V0_Video", SYSTEM_CONFIG_V0_VIDEO),
    event(SYSTEM_CONFIG, 14, 1, "SystemConfig", "Video", "SystemConfig_V1_Video", SYSTEM_CONFIG_V1_VIDEO),
    event(SYSTEM_CONFIG, 14, 2, "SystemConfig", "Video", "SystemConfig_V2_Video", SYSTEM_CONFIG_V2_VIDEO),
    event(SYSTEM_CONFIG, 15, 0, "SystemConfig", "Services", "SystemConfig_V0_Services", SYSTEM_CONFIG_V0_SERVICES),
    event(SYSTEM_CONFIG, 15, 1, "SystemConfig", "Services", "SystemConfig_V1_Services", SYSTEM_CONFIG_V1_SERVICES),
    event(SYSTEM_CONFIG, 15, 2, "SystemConfig", "Services", "SystemConfig_V2_Services", SYSTEM_CONFIG_V2_SERVICES),
    event(SYSTEM_CONFIG, 15, 3, "SystemConfig", "Services", "SystemConfig_V3_Services", SYSTEM_CONFIG_V3_SERVICES),
    event(SYSTEM_CONFIG, 16, 0, "SystemConfig", "Power", "SystemConfig_V0_Power", SYSTEM_CONFIG_V0_POWER),
    event(SYSTEM_CONFIG, 16, 1, "SystemConfig", "Power", "SystemConfig_V1_Power", SYSTEM_CONFIG_V1_POWER),
    event(SYSTEM_CONFIG, 16, 2, "SystemConfig", "Power", "SystemConfig_V2_Power", SYSTEM_CONFIG_V2_POWER),
    event(SYSTEM_CONFIG, 17, 2, "SystemConfig", "Network", "SystemConfig_V2_Network", SYSTEM_CONFIG_V2_NETWORK),
    event(SYSTEM_CONFIG, 18, 2, "SystemConfig", "OpticalDisk", "SystemConfig_V2_OpticalMedia", SYSTEM_CONFIG_V2_OPTICAL_MEDIA),
    event(SYSTEM_CONFIG, 21, 0, "SystemConfig", "IRQ", "SystemConfig_V0_IRQ", SYSTEM_CONFIG_V0_IRQ),
    event(SYSTEM_CONFIG, 21, 1, "SystemConfig", "IRQ", "SystemConfig_V1_IRQ", SYSTEM_CONFIG_V1_IRQ),
    event(SYSTEM_CONFIG, 21, 2, "SystemConfig", "IRQ", "SystemConfig_V2_IRQ", SYSTEM_CONFIG_V2_IRQ),
    event(SYSTEM_CONFIG, 21, 3, "SystemConfig", "IRQ", "SystemConfig_V3_IRQ", SYSTEM_CONFIG_V3_IRQ),
    event(SYSTEM_CONFIG, 22, 0, "SystemConfig", "PnP", "SystemConfig_V0_PnP", SYSTEM_CONFIG_V0_PN_P),
    event(SYSTEM_CONFIG, 22, 1, "SystemConfig", "PnP", "SystemConfig_V1_PnP", SYSTEM_CONFIG_V1_PN_P),
    event(SYSTEM_CONFIG, 22, 2, "SystemConfig", "PnP", "SystemConfig_V2_PnP", SYSTEM_CONFIG_V2_PN_P),
    event(SYSTEM_CONFIG, 22, 3, "SystemConfig", "PnP", "SystemConfig_V3_PnP", SYSTEM_CONFIG_V3_PN_P),
    event(SYSTEM_CONFIG, 22, 4, "SystemConfig", "PnP", "SystemConfig_V4_PnP", SYSTEM_CONFIG_V4_PN_P),
    event(SYSTEM_CONFIG, 22, 5, "SystemConfig", "PnP", "SystemConfig_PnP", SYSTEM_CONFIG_PN_P),
    event(SYSTEM_CONFIG, 23, 2, "SystemConfig", "IDEChannel", "SystemConfig_V2_IDEChannel", SYSTEM_CONFIG_V2_IDE_CHANNEL),
    event(SYSTEM_CONFIG, 24, 2, "SystemConfig", "NumaNode", "SystemConfig_V2_NumaNode", SYSTEM_CONFIG_V2_NUMA_NODE),
    event(SYSTEM_CONFIG, 25, 2, "SystemConfig", "Platform", "SystemConfig_V2_Platform", SYSTEM_CONFIG_V2_PLATFORM),
    event(SYSTEM_CONFIG, 26, 2, "SystemConfig", "ProcessorGroup", "SystemConfig_V2_ProcGroup", SYSTEM_CONFIG_V2_PROC_GROUP),
    event(SYSTEM_CONFIG, 27, 2, "SystemConfig", "ProcessorNumber", "SystemConfig_V2_ProcNumber", SYSTEM_CONFIG_V2_PROC_NUMBER),
    event(SYSTEM_CONFIG, 28, 2, "SystemConfig", "DPI", "SystemConfig_V2_DPI", SYSTEM_CONFIG_V2_DPI),
    event(SYSTEM_CONFIG, 29, 2, "SystemConfig", "CodeIntegrity", "SystemConfig_V2_CodeIntegrity", SYSTEM_CONFIG_V2_CODE_INTEGRITY),
    event(SYSTEM_CONFIG, 30, 2, "SystemConfig", "TelemetryConfiguration", "SystemConfig_V2_TelemetryInfo", SYSTEM_CONFIG_V2_TELEMETRY_INFO),
    event(SYSTEM_CONFIG, 31, 2, "SystemConfig", "Defragmentation", "SystemConfig_V2_Defrag", SYSTEM_CONFIG_V2_DEFRAG),
    event(SYSTEM_CONFIG, 32, 2, "SystemConfig", "MobilePlatform", "SystemConfig_V2_MobilePlatform", SYSTEM_CONFIG_V2_MOBILE_PLATFORM),
    event(SYSTEM_CONFIG, 32, 3, "SystemConfig", "MobilePlatform", "SystemConfig_V3_MobilePlatform", SYSTEM_CONFIG_V3_MOBILE_PLATFORM),
    event(SYSTEM_CONFIG, 32, 4, "SystemConfig", "MobilePlatform", "SystemConfig_V4_MobilePlatform", SYSTEM_CONFIG_V4_MOBILE_PLATFORM),
    event(SYSTEM_CONFIG, 33, 2, "SystemConfig", "DeviceFamily", "SystemConfig_V2_DeviceFamily", SYSTEM_CONFIG_V2_DEVICE_FAMILY),
    event(SYSTEM_CONFIG, 34, 2, "SystemConfig", "FlightIds", "SystemConfig_V2_FlightIds", SYSTEM_CONFIG_V2_FLIGHT_IDS),
    event(SYSTEM_CONFIG, 35, 2, "SystemConfig", "Processors", "SystemConfig_V2_Processors", SYSTEM_CONFIG_V2_PROCESSORS),
    event(SYSTEM_CONFIG, 36, 2, "SystemConfig", "Virtualization Config Info", "SystemConfig_Virtualization", SYSTEM_CONFIG_VIRTUALIZATION),
    event(SYSTEM_CONFIG, 37, 2, "SystemConfig", "Boot Config Info", "SystemConfig_Boot", SYSTEM_CONFIG_BOOT),
];

// ---- SysConfig `9b79ee91-b5fd-41c0-a243-4248e266e9d0` ----
// Not in the kernel's MOF: KernelTraceControl writes these events when it merges a trace.
// Layouts from PerfView's KernelTraceEventParser.cs (the class named after each).

/// `BuildInfoTraceData`: the install date (a `FILETIME`, "DateTime.FromFileTime(GetInt64At(0))"),
/// then two NUL-terminated UTF-16 strings.
const BUILD_INFO: &[Field] = &[
    filetime("InstallDate"),
    utf16z("BuildLab"),
    utf16z("ProductName"),
];

/// `SystemPathsTraceData`: two NUL-terminated UTF-16 strings.
const SYSTEM_PATHS: &[Field] = &[utf16z("SystemDirectory"), utf16z("SystemWindowsDirectory")];

/// `StringTraceData` built with `isUnicode: true` for `UnknownVolume`: one NUL-terminated
/// UTF-16 string.
const UNKNOWN_VOLUME: &[Field] = &[utf16z("Value")];

/// `VolumeMappingTraceData`: two NUL-terminated UTF-16 strings.
const VOLUME_MAPPING: &[Field] = &[utf16z("NtPath"), utf16z("DosPath")];

/// The events of KernelTraceControl's `SysConfig` class. PerfView reads them whatever their
/// version; the traces hold version 0, the only one the table has.
#[rustfmt::skip]
pub(super) static SYS_CONFIG_EVENTS: [KernelEvent; 4] = [
    event(SYS_CONFIG, 32, 0, "SysConfig", "BuildInfo", "BuildInfoTraceData", BUILD_INFO),
    event(SYS_CONFIG, 33, 0, "SysConfig", "SystemPaths", "SystemPathsTraceData", SYSTEM_PATHS),
    event(SYS_CONFIG, 34, 0, "SysConfig", "UnknownVolume", "StringTraceData", UNKNOWN_VOLUME),
    event(SYS_CONFIG, 35, 0, "SysConfig", "VolumeMapping", "VolumeMappingTraceData", VOLUME_MAPPING),
];
