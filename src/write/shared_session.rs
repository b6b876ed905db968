//! One [`Session`] shared by thread mode and interrupt handlers: a `critical_section::Mutex`
//! around a `RefCell`, each call made inside one critical section (feature `critical-section`).

use core::cell::RefCell;

use critical_section::Mutex;

use crate::wire::headers::event_instance_header::EventInstanceHeader;
use crate::wire::headers::event_trace_header::EventTraceHeader;
use crate::wire::records::event_instance_info::EventInstanceInfo;
use crate::write::error::TraceError;
use crate::write::event::{EventData, Traced};
use crate::write::provider::{Provider, TraceContext};
use crate::write::session::Session;

/// A [`Session`] that thread mode and interrupt handlers (or several cores) trace into without
/// data races: every method runs inside one `critical_section::with`, so a call is never
/// interleaved with another on the same session.
///
/// **Every method is interrupt-safe**: call them from thread mode and from any handler, at any
/// priority. An interrupt that arrives during a call waits (it is masked, or the other core
/// spins) until the call returns, so the latency it sees is the longest call made on the
/// session: a trace call (a few hundred instructions, plus the buffer seal it may do), or the
/// closure given to [`with`](Self::with), which should do no more than it must
/// ([`take_oldest_full`](Self::take_oldest_full) copies one buffer out and releases it, rather
/// than storing it inside the critical section).
///
/// A call made while the session is already in use by a call of the same context (from inside
/// the closure of [`with`](Self::with), or from a [`TraceContext`] the trace call reads) fails
/// with [`TraceError::SessionBusy`] instead of deadlocking; nothing else can observe the
/// session in use.
///
/// The crate provides no critical section: the firmware links one implementation, as the
/// `critical-section` crate explains (`cortex-m`'s `critical-section-single-core` feature
/// for a single-core Cortex-M, the chip's HAL for a multi-core part, `std` on a host).
///
/// ```
/// use etw_classic::{write::SharedSession, Bitness, Level, Provider, Session};
///
/// // All zeros: the static, buffers included, goes to `.bss`.
/// static SESSION: SharedSession<512, 4> = SharedSession::new(Session::disabled());
///
/// SESSION.with(|session| {
///     session.set_logger_id(1);
///     session.set_enable_level(Level::VERBOSE);
/// })?;
/// // ... trace from thread mode and from handlers with `SESSION.trace_event_instance(...)`.
/// let mut buffer = [0u8; 512];
/// while SESSION.take_oldest_full(&mut buffer)? {
///     // store `buffer`
/// }
/// # Ok::<(), etw_classic::TraceError>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "critical-section")))]
pub struct SharedSession<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> {
    session: Mutex<RefCell<Session<BUFFER_SIZE, BUFFER_COUNT>>>,
}

impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> SharedSession<BUFFER_SIZE, BUFFER_COUNT> {
    /// Shares `session`. With [`Session::disabled`] the result is all zeros, for a `static` in
    /// `.bss`.
    pub const fn new(session: Session<BUFFER_SIZE, BUFFER_COUNT>) -> Self {
        Self {
            session: Mutex::new(RefCell::new(session)),
        }
    }

    /// Runs `f` on the session inside a critical section and returns what it returns. Keep
    /// `f` short: interrupts wait for it.
    ///
    /// # Errors
    /// [`TraceError::SessionBusy`] when called from inside another call on this session (from
    /// `f`, say); `f` is not run then.
    pub fn with<R>(
        &self,
        f: impl FnOnce(&mut Session<BUFFER_SIZE, BUFFER_COUNT>) -> R,
    ) -> Result<R, TraceError> {
        critical_section::with(|token| {
            let mut session = self
                .session
                .borrow(token)
                .try_borrow_mut()
                .map_err(|_| TraceError::SessionBusy)?;
            Ok(f(&mut session))
        })
    }

    /// [`Provider::trace_event_instance`] into the shared session, inside one critical section
    /// (the checks, the clock reading, the copy of the data, a seal if the event fills the
    /// buffer).
    ///
    /// # Errors
    /// Those of [`Provider::trace_event_instance`], and [`TraceError::SessionBusy`] (see
    /// [`with`](Self::with)).
    pub fn trace_event_instance<const CLASSES: usize>(
        &self,
        provider: &Provider<CLASSES>,
        header: &EventInstanceHeader,
        data: EventData<'_>,
        instance: &EventInstanceInfo,
        parent: Option<&EventInstanceInfo>,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        self.with(|session| {
            provider.trace_event_instance(session, header, data, instance, parent, context)
        })?
    }

    /// [`Provider::trace_event`] into the shared session, inside one critical section.
    ///
    /// # Errors
    /// Those of [`Provider::trace_event`], and [`TraceError::SessionBusy`] (see
    /// [`with`](Self::with)).
    pub fn trace_event<const CLASSES: usize>(
        &self,
        provider: &Provider<CLASSES>,
        header: &EventTraceHeader,
        data: EventData<'_>,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TraceError> {
        self.with(|session| provider.trace_event(session, header, data, context))?
    }

    /// Copies the oldest sealed buffer into `out` and gives it back to the pool, inside one
    /// critical section; returns `false` (and leaves `out` alone) when no buffer is full. The
    /// caller then stores `out` with interrupts enabled.
    ///
    /// # Errors
    /// [`TraceError::SessionBusy`] (see [`with`](Self::with)).
    pub fn take_oldest_full(&self, out: &mut [u8; BUFFER_SIZE]) -> Result<bool, TraceError> {
        self.with(|session| match session.oldest_full() {
            Some(buffer) => {
                *out = *buffer;
                session.release_oldest_full()
            }
            None => false,
        })
    }
}

/// The session's state without the buffers' bytes, read inside a critical section.
impl<const BUFFER_SIZE: usize, const BUFFER_COUNT: usize> core::fmt::Debug
    for SharedSession<BUFFER_SIZE, BUFFER_COUNT>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        critical_section::with(|token| match self.session.borrow(token).try_borrow() {
            Ok(session) => f
                .debug_struct("SharedSession")
                .field("session", &*session)
                .finish(),
            Err(_) => f.write_str("SharedSession { <in use> }"),
        })
    }
}
