//! The provider side: a provider applies the rules of `TraceEvent` and `TraceEventInstance`, a
//! session writes events into a fixed pool of trace buffers, and the .etl writer frames sealed
//! buffers as a file.
//!
//! Built on [`wire`](crate::wire) only; nothing here uses the `read` layer.

pub(crate) mod error;
pub(crate) mod etl_writer;
pub(crate) mod event;
pub(crate) mod provider;
pub(crate) mod session;
#[cfg(feature = "critical-section")]
pub(crate) mod shared_session;

pub use error::{InstanceRole, TraceError, Win32Error};
pub use etl_writer::{EtlHeader, EVENT_TRACE_FILE_MODE_SEQUENTIAL};
pub use event::{EventData, Traced};
pub use provider::{Provider, SteppingContext, TraceContext};
pub use session::{Session, SessionStats, WhenFull};
#[cfg(feature = "critical-section")]
pub use shared_session::SharedSession;
