//! The provider side: a provider applies the rules of `TraceEvent` and `TraceEventInstance`, a
//! session writes events into a fixed pool of trace buffers, and the .etl writer frames sealed
//! buffers as a file.
//!
//! With the `std` feature, `EtlWriter` writes an .etl file to any `std::io::Write + Seek` as
//! the buffers come, on top of [`EtlHeader`].
//!
//! Built on [`wire`](crate::wire) only; nothing here uses the `read` layer.

pub(crate) mod error;
#[cfg(feature = "std")]
pub(crate) mod etl_stream_writer;
pub(crate) mod etl_writer;
pub(crate) mod event;
pub(crate) mod provider;
pub(crate) mod session;
#[cfg(feature = "critical-section")]
pub(crate) mod shared_session;

pub use error::{InstanceRole, TraceError, Win32Error};
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use etl_stream_writer::{EtlWriter, EtlWriterError};
pub use etl_writer::{EtlHeader, EVENT_TRACE_FILE_MODE_SEQUENTIAL};
pub use event::{EventData, Traced};
pub use provider::{Provider, SteppingContext, TraceContext};
pub use session::{Session, SessionStats, WhenFull};
#[cfg(feature = "critical-section")]
#[cfg_attr(docsrs, doc(cfg(feature = "critical-section")))]
pub use shared_session::SharedSession;
