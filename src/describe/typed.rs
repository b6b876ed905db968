//! Events written from typed values: a Rust structure per event type, whose fields are the
//! event's fields in order, each a [`FieldValue`]. The [`event_class!`](crate::event_class)
//! macro writes the structures, their [`TypedEvent`] implementations and the class's
//! [`ClassDescription`] from one list, so the description and the values cannot disagree: a
//! value of the wrong type is a type error, and the field schemas come from the values' types.

use crate::describe::description::{ClassDescription, EventTypeDescription};
use crate::describe::value::{FieldValue, ValueErrorKind};
use crate::payload::schema::FieldSchema;
use crate::wire::class::Class;
use crate::wire::codes::Level;
use crate::wire::layout::Bitness;
use crate::write::error::TraceError;
use crate::write::event::{EventBytes, Traced};
use crate::write::provider::{Provider, TraceContext};
use crate::write::session::Session;

/// The field called `name` that holds a value of type `T`: its in-type and length are `T`'s.
pub const fn field<T: FieldValue + ?Sized>(name: &'static str) -> FieldSchema<&'static str> {
    FieldSchema::new(name, T::IN_TYPE).with_length(T::LENGTH)
}

/// Why a typed event was not written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum TypedError {
    /// A field's value cannot be written as its type says.
    Value {
        /// The event type.
        event_type: &'static str,
        /// The field.
        field: &'static str,
        /// What is wrong with the value.
        kind: ValueErrorKind,
    },
    /// The provider or the session refused the event (too large, no free buffer).
    Trace(TraceError),
}

impl TypedError {
    /// The error of the value of `field` of `event_type`.
    pub const fn value(
        event_type: &'static str,
        field: &'static str,
        kind: ValueErrorKind,
    ) -> Self {
        Self::Value {
            event_type,
            field,
            kind,
        }
    }
}

impl core::fmt::Display for TypedError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Value {
                event_type,
                field,
                kind,
            } => write!(f, "event type {event_type}, field {field}: {kind}"),
            Self::Trace(error) => write!(f, "{error}"),
        }
    }
}

impl core::error::Error for TypedError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Trace(error) => Some(error),
            Self::Value { .. } => None,
        }
    }
}

impl From<TraceError> for TypedError {
    fn from(error: TraceError) -> Self {
        Self::Trace(error)
    }
}

/// An event of one event type of one class, written from its fields' values. Implemented by
/// [`event_class!`](crate::event_class); the data is laid out as MOF lays out a class's
/// properties (see [`FieldValue`]).
pub trait TypedEvent {
    /// The class of the event.
    const CLASS: &'static ClassDescription;
    /// Its event type: number, name, and the fields, made from the values' types.
    const EVENT_TYPE: EventTypeDescription;

    /// The bytes of the event's data in an event of `bitness`.
    ///
    /// # Errors
    /// [`TypedError::Value`] for the first value that cannot be written.
    fn data_len(&self, bitness: Bitness) -> Result<usize, TypedError>;

    /// Writes the data into `out`, exactly [`data_len`](Self::data_len) bytes long; `None`
    /// when it is not that long.
    fn write_data(&self, out: &mut [u8], bitness: Bitness) -> Option<()>;

    /// Writes the event to `session` through `provider`, as [`Provider::trace_event`] writes
    /// a plain event: a `FULL_HEADER32`/`FULL_HEADER64` header by the provider's bitness,
    /// `Guid` the class's, `Class` of [`EVENT_TYPE`](Self::EVENT_TYPE)'s number, `level` and
    /// the class's version, stamped from `context`; the data laid out in place in the
    /// session's buffer, with no copy. An event the session's level filters out costs the
    /// level test and nothing else: its values are not looked at.
    ///
    /// # Errors
    /// [`TypedError::Value`] for a value that cannot be written (nothing is written then);
    /// [`TypedError::Trace`] for what the session refuses, as [`Provider::trace_event`].
    #[inline(always)]
    fn trace<const CLASSES: usize, const BUFFER_SIZE: usize, const BUFFER_COUNT: usize>(
        &self,
        provider: &Provider<CLASSES>,
        session: &mut Session<BUFFER_SIZE, BUFFER_COUNT>,
        level: Level,
        context: &mut impl TraceContext,
    ) -> Result<Traced, TypedError>
    where
        Self: Sized,
    {
        if !session.enable_level().enables(level) {
            return Ok(Traced::FilteredOut);
        }
        let bitness = provider.bitness();
        let data_len = self.data_len(bitness)?;
        let class = Class::new(Self::EVENT_TYPE.event_type(), level, Self::CLASS.version());
        provider
            .trace_event_in_place(
                session,
                class,
                &Self::CLASS.guid(),
                data_len,
                InPlace {
                    event: self,
                    data_len,
                    bitness,
                },
                context,
            )
            .map_err(TypedError::Trace)
    }
}

/// A typed event's data as the session writes it: laid out in the buffer.
struct InPlace<'e, E> {
    event: &'e E,
    data_len: usize,
    bitness: Bitness,
}

impl<E: TypedEvent> EventBytes for InPlace<'_, E> {
    #[inline(always)]
    fn write_to(self, out: &mut [u8]) -> Option<()> {
        // The data, then the padding the session has zeroed.
        let (data, _padding) = out.split_at_mut_checked(self.data_len)?;
        self.event.write_data(data, self.bitness)
    }
}

/// Describes an event class and writes, for each of its event types, a structure whose fields
/// are the event's fields and its [`TypedEvent`] implementation.
///
/// ```
/// use etw_classic::describe::{Pointer, TypedEvent};
/// use etw_classic::{Bitness, Guid, Level, Provider, Session, SteppingContext, Traced};
///
/// etw_classic::event_class! {
///     /// The boot's stages.
///     pub const STAGE = (Guid::from_fields(0x6b1d_5a30, 0x2f1e, 0x4c07, [0x9a, 0x53, 0x1e, 0x0c, 0x6d, 0x88, 0x21, 0x47]), "BootStage", version 2);
///     /// A stage starts.
///     pub struct StageStart<'a> = (1, "Start") {
///         pub stage: u32 => "Stage",
///         pub flags: u16 => "Flags",
///         pub entry: Pointer => "Entry",
///         pub name: &'a str => "Name",
///     }
///     /// A stage ends.
///     pub struct StageEnd = (2, "End") {
///         pub stage: u32 => "Stage",
///         pub status: i32 => "Status",
///     }
/// }
///
/// let mut session = Session::<1024, 2>::new(1, Level::VERBOSE);
/// let provider = Provider::<1>::new(Bitness::Bits32);
/// let mut context = SteppingContext::default();
/// let start = StageStart { stage: 1, flags: 0x10, entry: Pointer(0x0800_1000), name: "loader" };
/// let traced = start.trace(&provider, &mut session, Level::INFORMATION, &mut context)?;
/// // 0x30 of header, then 4 + 2 + 4 + 7 bytes of data.
/// assert_eq!(traced, Traced::Written { slot: 0, offset: 0x48, size: 0x30 + 17 });
/// assert_eq!(STAGE.event_types().len(), 2);
/// # Ok::<(), etw_classic::describe::TypedError>(())
/// ```
///
/// The class's [`check`](ClassDescription::check) runs when the crate is built: two fields of
/// one name, two event types of one number or name, or a name that is not a MOF identifier
/// stop the build with [`DescriptionError::message`](crate::describe::DescriptionError::message).
///
/// ```compile_fail
/// use etw_classic::Guid;
/// etw_classic::event_class! {
///     pub const STAGE = (Guid::NIL, "BootStage", version 0);
///     pub struct StageStart = (1, "Start") {
///         pub stage: u32 => "Stage",
///         pub again: u32 => "Stage",
///     }
/// }
/// ```
#[macro_export]
macro_rules! event_class {
    (
        $(#[$class_attr:meta])*
        $class_vis:vis const $class:ident = ($guid:expr, $class_name:literal, version $version:expr);
        $(
            $(#[$attr:meta])*
            $vis:vis struct $event:ident $(<$lt:lifetime>)? = ($number:expr, $type_name:literal) {
                $(
                    $(#[$field_attr:meta])*
                    $field_vis:vis $field:ident: $ty:ty => $field_name:literal
                ),* $(,)?
            }
        )*
    ) => {
        $(#[$class_attr])*
        $class_vis const $class: $crate::describe::ClassDescription =
            $crate::describe::ClassDescription::new(
                $guid,
                $class_name,
                $version,
                &[$(<$event as $crate::describe::TypedEvent>::EVENT_TYPE),*],
            );

        const _: () = match $class.check() {
            ::core::result::Result::Ok(()) => (),
            ::core::result::Result::Err(error) => ::core::panic!("{}", error.message()),
        };

        $(
            $(#[$attr])*
            #[derive(Clone, Copy, Debug, PartialEq)]
            $vis struct $event $(<$lt>)? {
                $(
                    $(#[$field_attr])*
                    $field_vis $field: $ty,
                )*
            }

            impl $(<$lt>)? $crate::describe::TypedEvent for $event $(<$lt>)? {
                const CLASS: &'static $crate::describe::ClassDescription = &$class;
                const EVENT_TYPE: $crate::describe::EventTypeDescription =
                    $crate::describe::EventTypeDescription::new(
                        $crate::EventType($number),
                        $type_name,
                        &[$($crate::describe::field::<$ty>($field_name)),*],
                    );

                #[inline(always)]
                fn data_len(
                    &self,
                    bitness: $crate::Bitness,
                ) -> ::core::result::Result<usize, $crate::describe::TypedError> {
                    let len = 0usize;
                    $(
                        let len = match $crate::describe::FieldValue::data_len(&self.$field, bitness) {
                            ::core::result::Result::Ok(field_len) => len.saturating_add(field_len),
                            ::core::result::Result::Err(kind) => {
                                return ::core::result::Result::Err(
                                    $crate::describe::TypedError::value($type_name, $field_name, kind),
                                )
                            }
                        };
                    )*
                    ::core::result::Result::Ok(len)
                }

                #[inline(always)]
                fn write_data(
                    &self,
                    out: &mut [u8],
                    bitness: $crate::Bitness,
                ) -> ::core::option::Option<()> {
                    let rest = out;
                    $(
                        let rest = $crate::describe::FieldValue::write_to(&self.$field, rest, bitness)?;
                    )*
                    rest.is_empty().then_some(())
                }
            }
        )*
    };
}
