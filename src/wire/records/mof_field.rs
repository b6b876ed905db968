//! `MOF_FIELD`: one piece of event data given by reference, for `WNODE_FLAG_USE_MOF_PTR` events.

use crate::wire::field::{self, Field, Reader, Writer};
use crate::wire::layout::Layout;

/// Byte offsets of the members (evntrace.h); the same on both bitnesses.
#[rustfmt::skip]
mod offset {
    use super::Field;

    pub(super) const DATA_PTR: Field<0, 8> = Field::at(0x00); //                 ULONG64 DataPtr
    pub(super) const LENGTH: Field<{ DATA_PTR.end() }, 4> = Field::at(0x08); //  ULONG Length
    pub(super) const DATA_TYPE: Field<{ LENGTH.end() }, 4> = Field::at(0x0C); // ULONG DataType
}

const _: () = offset::DATA_TYPE.ends_at(MofField::LEN);

/// `MOF_FIELD` (evntrace.h), 16 bytes on both bitnesses.
///
/// | off | size | member | field |
/// |---|---|---|---|
/// | 0x00 | 8 | `DataPtr` | [`data_ptr`](Self::data_ptr) |
/// | 0x08 | 4 | `Length` | [`length`](Self::length) |
/// | 0x0C | 4 | `DataType` | [`data_type`](Self::data_type) |
///
/// With `WNODE_FLAG_USE_MOF_PTR`, the event data after the header is an array of at most
/// [`MAX_MOF_FIELDS`](crate::wire::MAX_MOF_FIELDS) of these, each naming a piece of data to gather.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MofField {
    /// `DataPtr`: the address of the data (a `ULONG64` on both bitnesses).
    pub data_ptr: u64,
    /// `Length`: bytes of data at `DataPtr`.
    pub length: u32,
    /// `DataType`: reserved for the provider.
    pub data_type: u32,
}

impl MofField {
    /// Bytes in a `MOF_FIELD`.
    pub const LEN: usize = Layout::MofField.byte_len();
    /// The layout this type encodes.
    pub const LAYOUT: Layout = Layout::MofField;

    /// Decodes any 16 bytes; nothing is checked and nothing is lost.
    pub fn from_bytes(bytes: &[u8; Self::LEN]) -> Self {
        let read = Reader::new(bytes);
        Self {
            data_ptr: read.u64(offset::DATA_PTR),
            length: read.u32(offset::LENGTH),
            data_type: read.u32(offset::DATA_TYPE),
        }
    }

    /// Encodes the members into the first `LEN` bytes `write` covers, setting every one of
    /// them (`to_bytes` and `emit` are built on it).
    pub(crate) fn write(&self, write: &mut Writer<'_, { Self::LEN }>) {
        write.u64(offset::DATA_PTR, self.data_ptr);
        write.u32(offset::LENGTH, self.length);
        write.u32(offset::DATA_TYPE, self.data_type);
    }
}

field::fixed_layout_entry_points!(MofField, length_only);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::field::ascending;

    /// The C-ABI vector "MOF_FIELD ascending" (mingw-w64, both ABIs).
    #[test]
    fn decodes_and_encodes_the_golden_vector() {
        let bytes: [u8; 16] = ascending();
        let field = MofField::from_bytes(&bytes);
        assert_eq!(field.data_ptr, 0x1817_1615_1413_1211);
        assert_eq!(field.length, 0x1c1b_1a19);
        assert_eq!(field.data_type, 0x201f_1e1d);
        assert_eq!(field.to_bytes(), bytes);
    }
}
