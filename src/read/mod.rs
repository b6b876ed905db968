//! The consumer side: an .etl file's buffers, their decompression, the walk over a buffer's
//! events, each classic event delivered as an `EVENT_TRACE`, the instance tree, the session's
//! clock (raw timestamps as FILETIME and UTC) and the time-ordered merge of many buffers.
//!
//! Built on [`wire`](crate::wire) only; nothing here uses the `write` layer.

pub(crate) mod clock;
pub(crate) mod error;
pub(crate) mod etl;
#[cfg(feature = "std")]
pub(crate) mod etl_reader;
#[cfg(feature = "std")]
pub(crate) mod etl_time_order;
pub(crate) mod events;
pub(crate) mod instance_tree;
pub mod lznt1;
pub mod plain_lz77;
pub(crate) mod time_order;
pub(crate) mod trace_buffer;
pub mod xpress_huffman;

pub use clock::TraceClock;
pub use error::ClockError;
pub use error::{
    BufferPosition, InstanceTreeFull, Lz77Error, Lznt1Error, ReadError, ReadErrorKind,
    XpressHuffmanError,
};
pub use etl::{EtlBuffer, EtlBuffers, EtlFile, MAX_BUFFER_SIZE};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use etl_reader::{
    DecodedBuffer, EtlReader, EtlReaderError, ReaderBuffer, StoredBuffer, TIME_ORDER_MEMORY,
};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use etl_time_order::TimeOrderedEvent;
pub use events::{Event, EventKind, Events};
pub use instance_tree::{InstanceKey, InstanceNode, InstanceTree};
pub use time_order::{BufferOrder, MergeCursor, ProcessorOrder, TimeOrder};
pub use trace_buffer::{ClassicEvents, DeliveredEvent, TraceBuffer};
