//! `EVENT_INSTANCE_INFO`: a registration handle and the instance id created for it, in its 32-bit
//! and 64-bit layouts.

use crate::wire::error::CodecError;
use crate::wire::field;
use crate::wire::layout::Bitness;

field::pointer_width_pair! {
    /// `EVENT_INSTANCE_INFO` in the layout a [`Bitness`] value chooses (8 or 16 bytes).
    ///
    /// ```
    /// use etw_classic::{Bitness, EventInstanceInfo};
    /// let info = EventInstanceInfo::new(Bitness::Bits32, 0x1234, 7)?;
    /// let mut out = [0u8; 16];
    /// let rest = info.emit(&mut out)?;
    /// assert_eq!(rest.len(), 8);
    /// assert_eq!(out[..8], [0x34, 0x12, 0, 0, 7, 0, 0, 0]);
    /// assert_eq!(EventInstanceInfo::parse(&out, Bitness::Bits32)?.0, info);
    /// # Ok::<(), etw_classic::CodecError>(())
    /// ```
    pub enum EventInstanceInfo {
        /// `EVENT_INSTANCE_INFO` (evntrace.h) as 32-bit code lays it out (mingw-w64, i686): 8 bytes.
        Bits32(EventInstanceInfo32) = EventInstanceInfo32, 8;
        /// `EVENT_INSTANCE_INFO` (evntrace.h) as 64-bit code lays it out (mingw-w64, x86_64): 16
        /// bytes, the last 4 padding.
        Bits64(EventInstanceInfo64) = EventInstanceInfo64, 16;
    }
    members {
        /// `RegHandle`: the registration handle of the event trace class, a `HANDLE` of the
        /// layout's width.
        reg_handle: pointer @ 0x00, 0x00 => "`RegHandle`",
        /// `InstanceId`: the instance identifier `CreateTraceInstanceId` made for the handle.
        instance_id: u32[4] @ 0x04, 0x08 => "`InstanceId`",
        /// Bytes 0x0C..0x10, padding the struct to a multiple of 8. Kept as read; zero in values
        /// built from fields.
        tail_padding: [u8; 4][4] @ -, 0x0C => "(tail padding)",
    }
}

impl EventInstanceInfo {
    /// An instance info of the given bitness, with zero padding.
    ///
    /// # Errors
    /// [`CodecError::PointerTooWide`] when `reg_handle` does not fit a 32-bit `HANDLE`.
    pub fn new(bitness: Bitness, reg_handle: u64, instance_id: u32) -> Result<Self, CodecError> {
        let wide = EventInstanceInfo64 {
            reg_handle,
            instance_id,
            tail_padding: [0; 4],
        };
        Self::from_wide(bitness, wide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::ascending;

    /// The C-ABI vectors "EVENT_INSTANCE_INFO ascending": 8 bytes on i686, 16 on x86_64 with zero
    /// padding at 0x0C..0x10.
    #[test]
    fn both_layouts_decode_and_encode() {
        let bytes32: [u8; 8] = ascending();
        let info32 = EventInstanceInfo32::from_bytes(&bytes32);
        assert_eq!(
            (info32.reg_handle, info32.instance_id),
            (0x1413_1211, 0x1817_1615)
        );
        assert_eq!(info32.to_bytes(), bytes32);

        let mut bytes64: [u8; 16] = ascending();
        bytes64[0x0C..].fill(0);
        let info64 = EventInstanceInfo64::from_bytes(&bytes64);
        assert_eq!(
            (info64.reg_handle, info64.instance_id),
            (0x1817_1615_1413_1211, 0x1c1b_1a19)
        );
        assert_eq!(info64.tail_padding, [0; 4]);
        assert_eq!(info64.to_bytes(), bytes64);
    }
}
