//! The type codes of an event's fields: how a value is stored (`InType`) and how it is meant to
//! be shown (`OutType`), numbered as TDH numbers them (`TDH_INTYPE_*`, `TDH_OUTTYPE_*` in
//! tdh.h), which is also the numbering of the manifest's `win:` types. TraceLogging's own
//! codes are converted to these when its metadata is read.

open_code! {
    /// How a field's value is stored in the event's data: `TDH_INTYPE_*` (tdh.h), the
    /// manifest's `inType` (`win:UInt32` is [`UINT32`](Self::UINT32)).
    ///
    /// Codes 1 to 25 are shared with TraceLogging's `TlgIn*` values ("TlgInUNICODESTRING = 1,
    /// ... TlgInCOUNTEDBINARY = 25", TraceLoggingProvider.h). [`STRUCT`](Self::STRUCT) is
    /// TraceLogging's `TlgInSTRUCT`; TDH marks a structure with the `PropertyStruct` flag
    /// instead, and the sources that use that flag give it this code. Codes 300 to 310 are the
    /// ones TDH adds for classic (MOF) events. Any other value is kept as it is; a field of
    /// such a type cannot be sized, so decoding stops there with an error.
    pub struct InType(u16) {
        /// No value: zero bytes.
        NULL = 0,
        /// UTF-16LE text, NUL-terminated unless a length is given (in characters).
        UNICODE_STRING = 1,
        /// 8-bit text, NUL-terminated unless a length is given (in bytes).
        ANSI_STRING = 2,
        /// `INT8`.
        INT8 = 3,
        /// `UINT8`.
        UINT8 = 4,
        /// `INT16`, little-endian.
        INT16 = 5,
        /// `UINT16`.
        UINT16 = 6,
        /// `INT32`.
        INT32 = 7,
        /// `UINT32`.
        UINT32 = 8,
        /// `INT64`.
        INT64 = 9,
        /// `UINT64`.
        UINT64 = 10,
        /// IEEE 754 single precision.
        FLOAT = 11,
        /// IEEE 754 double precision.
        DOUBLE = 12,
        /// A 4-byte `BOOL` (0 is false).
        BOOLEAN = 13,
        /// Bytes; their number is the field's length.
        BINARY = 14,
        /// A `GUID`, 16 bytes in Microsoft's mixed-endian order.
        GUID = 15,
        /// A pointer: 4 or 8 bytes by the event's pointer size.
        POINTER = 16,
        /// A `FILETIME`, 8 bytes.
        FILETIME = 17,
        /// A `SYSTEMTIME`, 16 bytes.
        SYSTEMTIME = 18,
        /// A `SID`: 8 bytes, then 4 per sub-authority.
        SID = 19,
        /// A 32-bit integer shown in hexadecimal.
        HEXINT32 = 20,
        /// A 64-bit integer shown in hexadecimal.
        HEXINT64 = 21,
        /// A `u16` byte count, then that many bytes of UTF-16LE.
        MANIFEST_COUNTED_STRING = 22,
        /// A `u16` byte count, then that many bytes of 8-bit text.
        MANIFEST_COUNTED_ANSI_STRING = 23,
        /// A structure: no data of its own, it groups the fields after it (`TlgInSTRUCT`).
        STRUCT = 24,
        /// A `u16` byte count, then that many bytes.
        MANIFEST_COUNTED_BINARY = 25,
        /// A `u16` byte count, then that many bytes of UTF-16LE (classic events).
        COUNTED_STRING = 300,
        /// A `u16` byte count, then that many bytes of 8-bit text.
        COUNTED_ANSI_STRING = 301,
        /// A big-endian `u16` byte count, then that many bytes of UTF-16LE.
        REVERSED_COUNTED_STRING = 302,
        /// A big-endian `u16` byte count, then that many bytes of 8-bit text.
        REVERSED_COUNTED_ANSI_STRING = 303,
        /// UTF-16LE text to the end of the event's data.
        NON_NULL_TERMINATED_STRING = 304,
        /// 8-bit text to the end of the event's data.
        NON_NULL_TERMINATED_ANSI_STRING = 305,
        /// One UTF-16 code unit.
        UNICODE_CHAR = 306,
        /// One 8-bit character.
        ANSI_CHAR = 307,
        /// A `SIZE_T`: 4 or 8 bytes by the event's pointer size.
        SIZET = 308,
        /// A `u32` byte count, then that many bytes.
        HEXDUMP = 309,
        /// The kernel's SID (`extension("Sid")`): a `u32` that is 0 when there is no SID
        /// (4 bytes in all), else a `TOKEN_USER` (two pointers) followed by the SID.
        WBEM_SID = 310,
    }
}

open_code! {
    /// How a field's value is meant to be shown: `TDH_OUTTYPE_*` (tdh.h), the manifest's
    /// `outType` (`xs:unsignedInt`, `win:HexInt32`, ...). A hint for outputs; decoding never
    /// depends on it.
    ///
    /// TraceLogging's `TlgOut*` codes 1 to 18 are numbered differently and are converted when
    /// its metadata is read ([`from_tracelogging`](Self::from_tracelogging)); from 32 up they
    /// are TDH's own.
    pub struct OutType(u16) {
        /// No hint: the in-type's default.
        NULL = 0,
        /// Text (also an integer shown as a character).
        STRING = 1,
        /// A date and time.
        DATETIME = 2,
        /// A signed 8-bit number.
        BYTE = 3,
        /// An unsigned 8-bit number.
        UNSIGNED_BYTE = 4,
        /// A signed 16-bit number.
        SHORT = 5,
        /// An unsigned 16-bit number.
        UNSIGNED_SHORT = 6,
        /// A signed 32-bit number.
        INT = 7,
        /// An unsigned 32-bit number.
        UNSIGNED_INT = 8,
        /// A signed 64-bit number.
        LONG = 9,
        /// An unsigned 64-bit number.
        UNSIGNED_LONG = 10,
        /// A single-precision number.
        FLOAT = 11,
        /// A double-precision number.
        DOUBLE = 12,
        /// `true` or `false`.
        BOOLEAN = 13,
        /// A GUID.
        GUID = 14,
        /// Bytes in hexadecimal.
        HEX_BINARY = 15,
        /// An 8-bit integer in hexadecimal.
        HEX_INT8 = 16,
        /// A 16-bit integer in hexadecimal.
        HEX_INT16 = 17,
        /// A 32-bit integer in hexadecimal.
        HEX_INT32 = 18,
        /// A 64-bit integer in hexadecimal.
        HEX_INT64 = 19,
        /// A process id.
        PID = 20,
        /// A thread id.
        TID = 21,
        /// A TCP/UDP port, stored big-endian.
        PORT = 22,
        /// An IPv4 address (4 bytes, network order).
        IPV4 = 23,
        /// An IPv6 address (16 bytes).
        IPV6 = 24,
        /// A `SOCKADDR`.
        SOCKET_ADDRESS = 25,
        /// A CIM date and time.
        CIM_DATETIME = 26,
        /// An ETW timestamp.
        ETW_TIME = 27,
        /// XML text.
        XML = 28,
        /// An error code.
        ERROR_CODE = 29,
        /// A Win32 error code.
        WIN32_ERROR = 30,
        /// An `NTSTATUS`.
        NTSTATUS = 31,
        /// An `HRESULT`.
        HRESULT = 32,
        /// A date and time shown without culture.
        CULTURE_INSENSITIVE_DATETIME = 33,
        /// JSON text.
        JSON = 34,
        /// 8-bit text in UTF-8.
        UTF8 = 35,
        /// A PKCS#7 message with type information.
        PKCS7_WITH_TYPE_INFO = 36,
        /// An address of code.
        CODE_POINTER = 37,
        /// A date and time in UTC.
        DATETIME_UTC = 38,
        /// Text reduced to a shorter form.
        REDUCED_STRING = 300,
        /// Not shown.
        NO_PRINT = 301,
    }
}

/// Added to a TraceLogging out-type that has no TDH equivalent (`TlgOut` 19 to 31), so that
/// it is kept rather than mapped to another meaning: `OutType(0x8000 | code)`.
pub const TRACELOGGING_UNKNOWN_OUT_TYPE: u16 = 0x8000;

impl InType {
    /// The number of bytes a value of this type always takes, given the event's pointer size
    /// in bytes (4 or 8); `None` for types whose size depends on the data or on the field's
    /// length.
    pub const fn fixed_size(self, pointer_size: u8) -> Option<u8> {
        match self {
            Self::NULL => Some(0),
            Self::INT8 | Self::UINT8 | Self::ANSI_CHAR => Some(1),
            Self::INT16 | Self::UINT16 | Self::UNICODE_CHAR => Some(2),
            Self::INT32 | Self::UINT32 | Self::FLOAT | Self::BOOLEAN | Self::HEXINT32 => Some(4),
            Self::INT64 | Self::UINT64 | Self::DOUBLE | Self::HEXINT64 | Self::FILETIME => Some(8),
            Self::GUID | Self::SYSTEMTIME => Some(16),
            Self::POINTER | Self::SIZET => Some(pointer_size),
            _ => None,
        }
    }

    /// Whether a value of this type is an integer that can give another field its count or
    /// length (TDH's `ParamCount`/`ParamLength` name such a field).
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            Self::INT8
                | Self::UINT8
                | Self::INT16
                | Self::UINT16
                | Self::INT32
                | Self::UINT32
                | Self::INT64
                | Self::UINT64
                | Self::HEXINT32
                | Self::HEXINT64
                | Self::POINTER
                | Self::SIZET
        )
    }
}

impl OutType {
    /// The TDH out-type of a TraceLogging `TlgOut*` code (TraceLoggingProvider.h, "enum
    /// TlgOut"), for a field whose in-type is `in_type`: 0 none, 1 NOPRINT, 2 STRING, 3
    /// BOOLEAN, 4 HEX, 5 PID, 6 TID, 7 PORT, 8 IPV4, 9 IPV6, 10 SOCKETADDRESS, 11 XML, 12 JSON,
    /// 13 WIN32ERROR, 14 NTSTATUS, 15 HRESULT, 16 FILETIME, 17 SIGNED, 18 UNSIGNED; from 32
    /// the TDH codes themselves. `HEX`, `SIGNED` and `UNSIGNED` take the width of the in-type.
    /// A code TraceLogging does not define (19 to 31) is kept as
    /// `0x8000 |` code ([`TRACELOGGING_UNKNOWN_OUT_TYPE`]).
    pub fn from_tracelogging(code: u8, in_type: InType) -> Self {
        let width = in_type.fixed_size(8);
        match code {
            0 => Self::NULL,
            1 => Self::NO_PRINT,
            2 => Self::STRING,
            3 => Self::BOOLEAN,
            4 => match width {
                Some(1) => Self::HEX_INT8,
                Some(2) => Self::HEX_INT16,
                Some(4) => Self::HEX_INT32,
                Some(8) => Self::HEX_INT64,
                _ => Self::HEX_BINARY,
            },
            5 => Self::PID,
            6 => Self::TID,
            7 => Self::PORT,
            8 => Self::IPV4,
            9 => Self::IPV6,
            10 => Self::SOCKET_ADDRESS,
            11 => Self::XML,
            12 => Self::JSON,
            13 => Self::WIN32_ERROR,
            14 => Self::NTSTATUS,
            15 => Self::HRESULT,
            16 => Self::DATETIME,
            17 => match width {
                Some(1) => Self::BYTE,
                Some(2) => Self::SHORT,
                Some(4) => Self::INT,
                _ => Self::LONG,
            },
            18 => match width {
                Some(1) => Self::UNSIGNED_BYTE,
                Some(2) => Self::UNSIGNED_SHORT,
                Some(4) => Self::UNSIGNED_INT,
                _ => Self::UNSIGNED_LONG,
            },
            19..=31 => Self(TRACELOGGING_UNKNOWN_OUT_TYPE | u16::from(code)),
            _ => Self(u16::from(code)),
        }
    }
}
