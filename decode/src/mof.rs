//! Classic MOF text: the schemas of classic (`RegisterTraceGuids`) providers, the kernel's
//! among them, as Managed Object Format classes.
//!
//! What is read is what Microsoft documents for event tracing ("Publishing Your Event Schema
//! for a Classic Provider", "Event Tracing MOF Qualifiers", learn.microsoft.com):
//!
//! ```text
//! #pragma namespace("\\\\.\\root\\wmi")          pragmas and comments are skipped
//! [Guid("{...}")] class MyProvider : EventTrace { };              the provider class
//! [Guid("{...}"), EventVersion(1), DisplayName("Cat")]
//! class MyCategory : MyProvider { };                              an event class
//! [EventType{1, 2}, EventTypeName{"Start", "End"}]
//! class MyCategory_MyEvent : MyCategory                           an event type class
//! {
//!     [WmiDataId(1), read] sint32 Cost;                           its properties, the layout,
//!     [WmiDataId(2), read] uint32 Indices[3];                     in WmiDataId order
//!     [WmiDataId(3), StringTermination("NullTerminated"), Format("w")] string Signature;
//!     [WmiDataId(4), Extension("Guid")] object ID;
//! };
//! ```
//!
//! Each value of an event type class's `EventType` becomes an [`EventSchema`], keyed by the
//! event class's `Guid`, the event type and the event class's `EventVersion` ([`MofKey`]).
//! The event class is the nearest class up the inheritance chain with a `Guid` qualifier;
//! "the event MOF class that does not contain the EventVersion qualifier is considered the
//! latest version" (Publishing...), kept under the version `None` and used by
//! [`Mof::schema`] for any version no other class claims. The provider is the class whose
//! parent is `EventTrace`.
//!
//! Names: the provider is its class's `DisplayName` qualifier, else its class name; the task
//! is the event class's `DisplayName`, else its class name without a version suffix (`_V2`),
//! the convention "rename the previous version to `<classname>_Vn`"; the opcode is the event
//! type's `EventTypeName`. The kernel's `Process_V2` (`DisplayName("Process")`) thus gives
//! `Process/Start`, as TraceEvent names the kernel's events.
//!
//! Properties are inherited ("a child class that contains the same property name as a parent
//! class overwrites the property of the parent class"); only those with a `WmiDataId` are part
//! of the event's data, so the provider class's `Flags` and `Level` (which describe how to
//! enable it) are not. Every property of an event type class must have a `WmiDataId`, and the
//! ids must run 1, 2, 3 ... ("starts at 1 and increments for each property in the class").
//!
//! The parser is written for these declarations and nothing more: `instance of` and
//! `qualifier` declarations and methods are skipped, and any other text is an error naming its
//! line. It never panics, on any input.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use etw_classic::payload::{
    check_fields, Count, FieldSchema, InType, Length, OutType, SchemaError,
};
use etw_classic::Guid;

use crate::schema::{EventSchema, MapKind, Name, SchemaOrigin, SchemaSource, ValueMap};

/// Everything a MOF text describes: its providers and its event types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mof {
    /// The provider classes (those derived from `EventTrace`), in text order.
    pub providers: Vec<MofProvider>,
    /// One schema per event type of every event type class.
    pub events: BTreeMap<MofKey, MofEvent>,
}

impl Mof {
    /// The schema of event type `event_type` version `version` of the event class `guid`: the
    /// class of that `EventVersion`, else the class without one (the latest version).
    pub fn schema(&self, guid: Guid, event_type: u8, version: u16) -> Option<&EventSchema> {
        let key = |version| MofKey {
            guid,
            event_type,
            version,
        };
        self.events
            .get(&key(Some(version)))
            .or_else(|| self.events.get(&key(None)))
            .map(|event| &event.schema)
    }
}

/// A provider class: one derived from `EventTrace`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MofProvider {
    /// The class's name (`MSNT_SystemTrace`).
    pub class_name: Name,
    /// The name schemas give the provider: the `DisplayName` qualifier, else the class name.
    pub name: Name,
    /// The provider's `Guid` qualifier, if it has one.
    pub guid: Option<Guid>,
    /// The line of the class.
    pub line: u32,
}

/// Which event a schema describes: the event class's GUID (`EVENT_TRACE_HEADER.Guid`), the
/// event type (`Class.Type`) and the event class's `EventVersion` (`Class.Version`), `None`
/// for a class without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MofKey {
    /// The event class's `Guid`.
    pub guid: Guid,
    /// The event type.
    pub event_type: u8,
    /// The event class's `EventVersion`.
    pub version: Option<u16>,
}

/// One event type of an event type class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MofEvent {
    /// The event type class (`Process_TypeGroup1`).
    pub class_name: Name,
    /// The event class, the one with the `Guid` (`Process`).
    pub event_class: Name,
    /// The line of the event type class.
    pub line: u32,
    /// The event's names, fields and maps.
    pub schema: EventSchema,
}

/// Where and why a MOF text could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MofError {
    /// The place given to the parser (a file name).
    pub place: String,
    /// The line in the text, from 1.
    pub line: u32,
    /// The column in the line, in characters from 1.
    pub column: u32,
    /// What is wrong.
    pub kind: MofErrorKind,
}

impl fmt::Display for MofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.place, self.line, self.column, self.kind
        )
    }
}

impl std::error::Error for MofError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            MofErrorKind::Schema { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// What is wrong with a MOF text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MofErrorKind {
    /// A `/*` comment with no `*/`.
    UnterminatedComment,
    /// A string or character literal with no closing quote on its line.
    UnterminatedString,
    /// Text that is none of the MOF syntax read here.
    Unexpected {
        /// What the parser expected there.
        expected: &'static str,
        /// What it found.
        found: String,
    },
    /// A second class of the same name (MOF names ignore case).
    DuplicateClass {
        /// The class.
        class: String,
        /// The line of the first.
        first_line: u32,
    },
    /// A class derives from one the text does not define, and not from `EventTrace`.
    UndefinedParent {
        /// The class.
        class: String,
        /// Its parent.
        parent: String,
    },
    /// A class is its own ancestor.
    InheritanceLoop {
        /// The class.
        class: String,
    },
    /// An event type class with no `Guid` on it or any ancestor.
    NoGuid {
        /// The class.
        class: String,
    },
    /// An event type class that does not descend from `EventTrace`.
    NotEventTrace {
        /// The class.
        class: String,
    },
    /// A qualifier whose value is not what the qualifier takes.
    BadQualifier {
        /// The qualifier.
        qualifier: String,
        /// What it takes.
        expected: &'static str,
        /// What it has.
        found: String,
    },
    /// A property of an event type class without `WmiDataId`.
    MissingWmiDataId {
        /// The property.
        property: String,
    },
    /// `WmiDataId`s that do not run 1, 2, 3 ...
    WmiDataIdGap {
        /// The property.
        property: String,
        /// Its id.
        id: u64,
        /// The id the property should have.
        expected: u64,
    },
    /// Two properties with the same `WmiDataId`.
    DuplicateWmiDataId {
        /// The second property.
        property: String,
        /// The id.
        id: u64,
        /// The line of the first.
        first_line: u32,
    },
    /// A property type this reader does not know.
    UnknownType {
        /// The property.
        property: String,
        /// The type.
        type_name: String,
    },
    /// An `Extension` value this reader does not know.
    UnknownExtension {
        /// The property.
        property: String,
        /// The extension.
        extension: String,
    },
    /// An `object` property without an `Extension` saying what it holds.
    ObjectWithoutExtension {
        /// The property.
        property: String,
    },
    /// A `StringTermination` value this reader does not know.
    UnknownStringTermination {
        /// The property.
        property: String,
        /// The value.
        termination: String,
    },
    /// An array property (`[]`) with neither a size, `MAX` nor `WmiSizeIs`.
    ArrayWithoutSize {
        /// The property.
        property: String,
    },
    /// `WmiSizeIs` names no property read before this one.
    NoSuchProperty {
        /// The property.
        property: String,
        /// The name given.
        names: String,
    },
    /// `ValueMap` and `Values` (or `BitMap` and `BitValues`) of different lengths, or values
    /// that are not numbers.
    BadMap {
        /// The property.
        property: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// Two event type classes describe the same event.
    DuplicateEvent {
        /// The event class's GUID.
        guid: Guid,
        /// The event type.
        event_type: u8,
        /// The version (`None`: the class has no `EventVersion`).
        version: Option<u16>,
        /// The class that describes it first.
        first_class: String,
        /// Its line.
        first_line: u32,
    },
    /// A layout that contradicts itself (a size taken from a property that is not an
    /// integer, ...).
    Schema {
        /// The property the core names.
        field: String,
        /// The core's check.
        error: SchemaError,
    },
}

impl fmt::Display for MofErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnterminatedComment => f.write_str("a /* comment with no */"),
            Self::UnterminatedString => {
                f.write_str("a quoted string with no closing quote on its line")
            }
            Self::Unexpected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            Self::DuplicateClass { class, first_line } => write!(
                f,
                "a second class {class}; the first is on line {first_line}"
            ),
            Self::UndefinedParent { class, parent } => write!(
                f,
                "class {class} derives from {parent}, which this text does not define (expected a chain of classes up to EventTrace)"
            ),
            Self::InheritanceLoop { class } => {
                write!(f, "class {class} is its own ancestor")
            }
            Self::NoGuid { class } => write!(
                f,
                "event type class {class}: neither it nor an ancestor has a Guid qualifier (expected on its event class)"
            ),
            Self::NotEventTrace { class } => write!(
                f,
                "event type class {class} does not derive from EventTrace"
            ),
            Self::BadQualifier {
                qualifier,
                expected,
                found,
            } => write!(f, "{qualifier}: expected {expected}, found {found}"),
            Self::MissingWmiDataId { property } => write!(
                f,
                "property {property} has no WmiDataId (every property of an event type class needs one)"
            ),
            Self::WmiDataIdGap {
                property,
                id,
                expected,
            } => write!(
                f,
                "property {property} has WmiDataId({id}), expected WmiDataId({expected}): the ids must run 1, 2, 3 ... without a gap"
            ),
            Self::DuplicateWmiDataId {
                property,
                id,
                first_line,
            } => write!(
                f,
                "property {property} has WmiDataId({id}), which the property on line {first_line} has too"
            ),
            Self::UnknownType {
                property,
                type_name,
            } => write!(
                f,
                "property {property} has type {type_name}, expected one of uint8 sint8 char16 uint16 sint16 uint32 sint32 uint64 sint64 real32 real64 boolean string object datetime"
            ),
            Self::UnknownExtension {
                property,
                extension,
            } => write!(
                f,
                "property {property} has Extension(\"{extension}\"), expected Guid, IPAddr, IPAddrV4, IPAddrV6, NoPrint, Port, RString, RWString, Sid, SizeT, Variant or WmiTime"
            ),
            Self::ObjectWithoutExtension { property } => write!(
                f,
                "property {property} is an object without an Extension saying what it holds"
            ),
            Self::UnknownStringTermination {
                property,
                termination,
            } => write!(
                f,
                "property {property} has StringTermination(\"{termination}\"), expected NullTerminated, Counted, ReverseCounted or NotCounted"
            ),
            Self::ArrayWithoutSize { property } => write!(
                f,
                "property {property} is an array of no size: expected [n], MAX(n) or WmiSizeIs(\"property\")"
            ),
            Self::NoSuchProperty { property, names } => write!(
                f,
                "property {property} has WmiSizeIs(\"{names}\"), but no property read before it has that name"
            ),
            Self::BadMap { property, problem } => write!(f, "property {property}: {problem}"),
            Self::DuplicateEvent {
                guid,
                event_type,
                version,
                first_class,
                first_line,
            } => {
                write!(f, "event type {event_type} of class {guid}")?;
                match version {
                    Some(version) => write!(f, " version {version}")?,
                    None => f.write_str(" (no EventVersion)")?,
                }
                write!(
                    f,
                    " is described a second time; the first is class {first_class} on line {first_line}"
                )
            }
            Self::Schema { field, error } => write!(f, "property {field}: {error}"),
        }
    }
}

/// Parses the MOF `text`, naming `place` (a file name, say) in errors and in each schema's
/// [`origin`](EventSchema::origin), whose source is [`SchemaSource::Mof`].
///
/// # Errors
/// The first thing the text gets wrong, with its line and column.
pub fn parse_mof(text: &str, place: &str) -> Result<Mof, MofError> {
    let fail = |at: At, kind| MofError {
        place: place.to_owned(),
        line: at.line,
        column: at.column,
        kind,
    };
    let tokens = tokenize(text).map_err(|(at, kind)| fail(at, kind))?;
    let classes = Parser {
        tokens: &tokens,
        next: 0,
        end: end_of(text),
    }
    .classes()
    .map_err(|(at, kind)| fail(at, kind))?;
    build(&classes, place).map_err(|(at, kind)| fail(at, kind))
}

// ---------------------------------------------------------------------------------------------
// Tokens

/// A position in the text: line and column (in characters), from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct At {
    line: u32,
    column: u32,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// A name or keyword (`class`, `uint32`, `WmiDataId`).
    Ident(String),
    /// A string literal, escapes resolved.
    Str(String),
    /// A number as written (`1`, `-2`, `0x10`, `1.5`).
    Number(String),
    /// One punctuation character: `[ ] ( ) { } , ; : =` and any other.
    Punct(char),
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Self::Ident(name) => format!("`{name}`"),
            Self::Str(text) => format!("the string \"{text}\""),
            Self::Number(number) => format!("the number {number}"),
            Self::Punct(c) => format!("`{c}`"),
        }
    }
}

type Failure = (At, MofErrorKind);

/// The position just past the text, where "the end of the text" is reported.
fn end_of(text: &str) -> At {
    let line = text.bytes().filter(|byte| *byte == b'\n').count();
    let last = text.rsplit('\n').next().unwrap_or_default();
    At {
        line: u32::try_from(line.saturating_add(1)).unwrap_or(u32::MAX),
        column: u32::try_from(last.chars().count().saturating_add(1)).unwrap_or(u32::MAX),
    }
}

struct Cursor<'t> {
    chars: std::iter::Peekable<std::str::Chars<'t>>,
    at: At,
}

impl Cursor<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.at.line = self.at.line.saturating_add(1);
            self.at.column = 1;
        } else {
            self.at.column = self.at.column.saturating_add(1);
        }
        Some(c)
    }

    /// Skips to the end of the line (the newline is left).
    fn skip_line(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.bump();
        }
    }
}

/// The text's tokens with their positions; comments, white space and `#pragma` lines dropped.
fn tokenize(text: &str) -> Result<Vec<(At, Token)>, Failure> {
    let mut cursor = Cursor {
        chars: text.chars().peekable(),
        at: At { line: 1, column: 1 },
    };
    let mut tokens = Vec::new();
    while let Some(c) = cursor.peek() {
        let at = cursor.at;
        if c.is_whitespace() {
            cursor.bump();
        } else if c == '/' {
            cursor.bump();
            match cursor.peek() {
                Some('/') => cursor.skip_line(),
                Some('*') => {
                    cursor.bump();
                    let mut star = false;
                    loop {
                        match cursor.bump() {
                            None => return Err((at, MofErrorKind::UnterminatedComment)),
                            Some('/') if star => break,
                            Some(c) => star = c == '*',
                        }
                    }
                }
                _ => tokens.push((at, Token::Punct('/'))),
            }
        } else if c == '#' {
            // `#pragma namespace(...)`, `#pragma classflags(...)`: directives to the compiler
            // that change nothing in the classes read here.
            cursor.skip_line();
        } else if c == '"' || c == '\'' {
            cursor.bump();
            let mut value = String::new();
            loop {
                match cursor.bump() {
                    None | Some('\n') => return Err((at, MofErrorKind::UnterminatedString)),
                    Some(end) if end == c => break,
                    Some('\\') => match cursor.bump() {
                        None | Some('\n') => return Err((at, MofErrorKind::UnterminatedString)),
                        Some('n') => value.push('\n'),
                        Some('t') => value.push('\t'),
                        Some('r') => value.push('\r'),
                        Some('0') => value.push('\0'),
                        Some(other) => value.push(other),
                    },
                    Some(other) => value.push(other),
                }
            }
            tokens.push((at, Token::Str(value)));
        } else if c.is_ascii_digit()
            || ((c == '-' || c == '+')
                && cursor
                    .chars
                    .clone()
                    .nth(1)
                    .is_some_and(|d| d.is_ascii_digit()))
        {
            let mut number = String::new();
            number.extend(cursor.bump());
            while cursor
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
            {
                number.extend(cursor.bump());
            }
            tokens.push((at, Token::Number(number)));
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let mut name = String::new();
            while cursor
                .peek()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
            {
                name.extend(cursor.bump());
            }
            tokens.push((at, Token::Ident(name)));
        } else {
            cursor.bump();
            tokens.push((at, Token::Punct(c)));
        }
    }
    Ok(tokens)
}

// ---------------------------------------------------------------------------------------------
// Declarations

/// A qualifier's value.
#[derive(Clone, Debug, PartialEq)]
enum Literal {
    Str(String),
    Number(String),
    /// `true`, `false`, `null` and other names.
    Word(String),
}

impl Literal {
    fn describe(&self) -> String {
        match self {
            Self::Str(text) => format!("\"{text}\""),
            Self::Number(number) | Self::Word(number) => number.clone(),
        }
    }

    /// The literal as an unsigned number: a number, or a string holding one (`ValueMap`
    /// values are strings: `"0x00000001"`).
    fn as_u64(&self) -> Option<u64> {
        match self {
            Self::Number(text) | Self::Str(text) => parse_integer(text),
            Self::Word(_) => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Self::Str(text) => Some(text),
            _ => None,
        }
    }
}

/// A decimal number, or a hexadecimal one after `0x`.
fn parse_integer(text: &str) -> Option<u64> {
    let text = text.trim();
    let text = text.strip_prefix('+').unwrap_or(text);
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(hex, 16).ok()
        }
        Some(_) => None,
        None if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => text.parse().ok(),
        None => None,
    }
}

#[derive(Clone, Debug)]
struct Qualifier {
    name: String,
    values: Vec<Literal>,
    at: At,
}

#[derive(Clone, Debug)]
struct Property {
    qualifiers: Vec<Qualifier>,
    type_name: String,
    name: String,
    /// `None`: not an array; `Some(None)`: `[]`; `Some(Some(n))`: `[n]`.
    array: Option<Option<String>>,
    at: At,
}

#[derive(Clone, Debug)]
struct Class {
    name: String,
    parent: Option<String>,
    qualifiers: Vec<Qualifier>,
    properties: Vec<Property>,
    at: At,
}

fn qualifier<'q>(qualifiers: &'q [Qualifier], name: &str) -> Option<&'q Qualifier> {
    qualifiers
        .iter()
        .find(|qualifier| qualifier.name.eq_ignore_ascii_case(name))
}

impl Class {
    fn qualifier(&self, name: &str) -> Option<&Qualifier> {
        qualifier(&self.qualifiers, name)
    }
}

impl Property {
    fn qualifier(&self, name: &str) -> Option<&Qualifier> {
        qualifier(&self.qualifiers, name)
    }

    /// The single string value of qualifier `name`, if the property has it.
    fn string(&self, name: &str) -> Result<Option<&str>, Failure> {
        let Some(found) = self.qualifier(name) else {
            return Ok(None);
        };
        match found.values.as_slice() {
            [Literal::Str(text)] => Ok(Some(text)),
            _ => Err(bad_qualifier(found, "one string")),
        }
    }
}

fn bad_qualifier(found: &Qualifier, expected: &'static str) -> Failure {
    let shown: Vec<String> = found.values.iter().map(Literal::describe).collect();
    (
        found.at,
        MofErrorKind::BadQualifier {
            qualifier: found.name.clone(),
            expected,
            found: if shown.is_empty() {
                "no value".to_owned()
            } else {
                shown.join(", ")
            },
        },
    )
}

struct Parser<'t> {
    tokens: &'t [(At, Token)],
    next: usize,
    end: At,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.next).map(|(_, token)| token)
    }

    fn at(&self) -> At {
        self.tokens.get(self.next).map_or(self.end, |(at, _)| *at)
    }

    fn bump(&mut self) -> Option<(At, Token)> {
        let token = self.tokens.get(self.next).cloned()?;
        self.next = self.next.saturating_add(1);
        Some(token)
    }

    fn unexpected(&self, expected: &'static str) -> Failure {
        let found = self
            .peek()
            .map_or_else(|| "the end of the text".to_owned(), Token::describe);
        (self.at(), MofErrorKind::Unexpected { expected, found })
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Token::Punct(c))
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Ident(name)) if name.eq_ignore_ascii_case(word))
    }

    fn punct(&mut self, c: char, expected: &'static str) -> Result<(), Failure> {
        if self.is_punct(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    fn ident(&mut self, expected: &'static str) -> Result<(At, String), Failure> {
        match self.peek() {
            Some(Token::Ident(_)) => match self.bump() {
                Some((at, Token::Ident(name))) => Ok((at, name)),
                _ => Err(self.unexpected(expected)),
            },
            _ => Err(self.unexpected(expected)),
        }
    }

    /// Skips a balanced group that starts at the current `open` token.
    fn skip_group(&mut self, open: char, close: char) -> Result<(), Failure> {
        let start = self.at();
        let mut depth = 0usize;
        while let Some((_, token)) = self.bump() {
            if token == Token::Punct(open) {
                depth = depth.saturating_add(1);
            } else if token == Token::Punct(close) {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(());
                }
            }
        }
        Err((
            start,
            MofErrorKind::Unexpected {
                expected: "a closing bracket",
                found: "the end of the text".to_owned(),
            },
        ))
    }

    /// Every class of the text.
    fn classes(mut self) -> Result<Vec<Class>, Failure> {
        let mut classes = Vec::new();
        while self.peek().is_some() {
            if self.is_punct(';') {
                self.bump();
                continue;
            }
            let qualifiers = if self.is_punct('[') {
                self.qualifiers()?
            } else {
                Vec::new()
            };
            if self.is_word("class") {
                if let Some(class) = self.class(qualifiers)? {
                    classes.push(class);
                }
            } else if self.is_word("instance") {
                // `instance of Name { ... };`: data, not a class.
                while self.peek().is_some() && !self.is_punct('{') {
                    self.bump();
                }
                self.skip_group('{', '}')?;
            } else if self.is_word("qualifier") {
                // `qualifier Name : type = value, scope(...);`
                while self.peek().is_some() && !self.is_punct(';') {
                    self.bump();
                }
            } else {
                return Err(self.unexpected("a class declaration"));
            }
        }
        Ok(classes)
    }

    /// `[Name, Name(value), Name{value, ...} : flavor ..., ...]`
    fn qualifiers(&mut self) -> Result<Vec<Qualifier>, Failure> {
        self.punct('[', "`[`")?;
        let mut qualifiers = Vec::new();
        loop {
            let (at, name) = self.ident("a qualifier name")?;
            let mut values = Vec::new();
            if self.is_punct('(') {
                self.bump();
                values = self.literals(')')?;
            } else if self.is_punct('{') {
                self.bump();
                values = self.literals('}')?;
            }
            if self.is_punct(':') {
                // Flavors: `: amended`, `: ToInstance ToSubclass`.
                self.bump();
                self.ident("a qualifier flavor")?;
                while matches!(self.peek(), Some(Token::Ident(_))) {
                    self.bump();
                }
            }
            qualifiers.push(Qualifier { name, values, at });
            if self.is_punct(',') {
                self.bump();
            } else if self.is_punct(']') {
                self.bump();
                return Ok(qualifiers);
            } else {
                return Err(self.unexpected("`,` or `]` after a qualifier"));
            }
        }
    }

    /// Literals separated by commas up to `close`; adjacent strings are one (MOF's
    /// `"a" "b"`).
    fn literals(&mut self, close: char) -> Result<Vec<Literal>, Failure> {
        let mut values = Vec::new();
        if self.is_punct(close) {
            self.bump();
            return Ok(values);
        }
        loop {
            let value = match self.peek() {
                Some(Token::Str(_) | Token::Number(_) | Token::Ident(_)) => match self.bump() {
                    Some((_, Token::Str(mut text))) => {
                        while let Some(Token::Str(more)) = self.peek() {
                            text.push_str(more);
                            self.bump();
                        }
                        Literal::Str(text)
                    }
                    Some((_, Token::Number(number))) => Literal::Number(number),
                    Some((_, Token::Ident(word))) => Literal::Word(word),
                    _ => return Err(self.unexpected("a qualifier value")),
                },
                _ => return Err(self.unexpected("a qualifier value")),
            };
            values.push(value);
            if self.is_punct(',') {
                self.bump();
            } else if self.is_punct(close) {
                self.bump();
                return Ok(values);
            } else {
                return Err(self.unexpected("`,` or the end of the qualifier's values"));
            }
        }
    }

    /// `class Name [: Parent] { members };` (or `class Name;`, a declaration that defines
    /// nothing).
    fn class(&mut self, qualifiers: Vec<Qualifier>) -> Result<Option<Class>, Failure> {
        let (at, _) = self.ident("`class`")?;
        let (_, name) = self.ident("a class name")?;
        let mut parent = None;
        if self.is_punct(':') {
            self.bump();
            parent = Some(self.ident("the parent class's name")?.1);
        }
        if self.is_punct(';') {
            self.bump();
            return Ok(None);
        }
        self.punct('{', "`{` opening the class")?;
        let mut properties = Vec::new();
        loop {
            if self.is_punct('}') {
                self.bump();
                break;
            }
            if self.is_punct(';') {
                self.bump();
                continue;
            }
            let member_qualifiers = if self.is_punct('[') {
                self.qualifiers()?
            } else {
                Vec::new()
            };
            if let Some(property) = self.member(member_qualifiers)? {
                properties.push(property);
            }
        }
        if self.is_punct(';') {
            self.bump();
        }
        Ok(Some(Class {
            name,
            parent,
            qualifiers,
            properties,
            at,
        }))
    }

    /// `type [ref] name [ "[" [n] "]" ] [= value] ;`, or a method `type name(...) ;`.
    fn member(&mut self, qualifiers: Vec<Qualifier>) -> Result<Option<Property>, Failure> {
        let (at, type_name) = self.ident("a property's type")?;
        if self.is_word("ref") {
            self.bump();
        }
        let (_, name) = self.ident("a property's name")?;
        if self.is_punct('(') {
            self.skip_group('(', ')')?;
            self.punct(';', "`;` after a method")?;
            return Ok(None);
        }
        let mut array = None;
        if self.is_punct('[') {
            self.bump();
            let size = match self.peek() {
                Some(Token::Number(_)) => match self.bump() {
                    Some((_, Token::Number(number))) => Some(number),
                    _ => None,
                },
                _ => None,
            };
            self.punct(']', "`]` closing the array's size")?;
            array = Some(size);
        }
        if self.is_punct('=') {
            // A default value: no part of the event's layout.
            while self.peek().is_some() && !self.is_punct(';') {
                if self.is_punct('{') {
                    self.skip_group('{', '}')?;
                } else {
                    self.bump();
                }
            }
        }
        self.punct(';', "`;` after a property")?;
        Ok(Some(Property {
            qualifiers,
            type_name,
            name,
            array,
            at,
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// From classes to schemas

fn build(classes: &[Class], place: &str) -> Result<Mof, Failure> {
    let mut by_name: HashMap<String, &Class> = HashMap::new();
    for class in classes {
        let key = class.name.to_ascii_lowercase();
        if let Some(first) = by_name.get(&key) {
            return Err((
                class.at,
                MofErrorKind::DuplicateClass {
                    class: class.name.clone(),
                    first_line: first.at.line,
                },
            ));
        }
        by_name.insert(key, class);
    }
    let lookup = |name: &str| by_name.get(&name.to_ascii_lowercase()).copied();

    let mut providers = Vec::new();
    for class in classes {
        if class
            .parent
            .as_deref()
            .is_some_and(|parent| parent.eq_ignore_ascii_case("EventTrace"))
        {
            providers.push(MofProvider {
                class_name: Name::from(class.name.as_str()),
                name: display_name(class)?.unwrap_or_else(|| Name::from(class.name.as_str())),
                guid: guid_of(class)?,
                line: class.at.line,
            });
        }
    }

    let mut events: BTreeMap<MofKey, MofEvent> = BTreeMap::new();
    for class in classes {
        let Some(event_types) = class.qualifier("EventType") else {
            continue;
        };
        let chain = ancestry(class, &lookup, classes.len())?;
        let Some(event_class) = chain
            .iter()
            .copied()
            .find(|ancestor| ancestor.qualifier("Guid").is_some())
        else {
            return Err((
                class.at,
                MofErrorKind::NoGuid {
                    class: class.name.clone(),
                },
            ));
        };
        let guid = guid_of(event_class)?.unwrap_or_default();
        let version = match event_class.qualifier("EventVersion") {
            None => None,
            Some(found) => match found.values.as_slice() {
                [value] => Some(
                    value
                        .as_u64()
                        .and_then(|version| u16::try_from(version).ok())
                        .ok_or_else(|| bad_qualifier(found, "a version from 0 to 65535"))?,
                ),
                _ => return Err(bad_qualifier(found, "one version")),
            },
        };
        let Some(provider) = chain.iter().copied().find(|ancestor| {
            ancestor
                .parent
                .as_deref()
                .is_some_and(|parent| parent.eq_ignore_ascii_case("EventTrace"))
        }) else {
            return Err((
                class.at,
                MofErrorKind::NotEventTrace {
                    class: class.name.clone(),
                },
            ));
        };
        let provider_name =
            display_name(provider)?.unwrap_or_else(|| Name::from(provider.name.as_str()));
        let task_name = display_name(event_class)?
            .unwrap_or_else(|| Name::from(without_version(&event_class.name)));

        let (fields, maps) = layout(class, &chain)?;

        let types: Vec<u8> = event_types
            .values
            .iter()
            .map(|value| value.as_u64().and_then(|value| u8::try_from(value).ok()))
            .collect::<Option<_>>()
            .filter(|types: &Vec<u8>| !types.is_empty())
            .ok_or_else(|| bad_qualifier(event_types, "event types from 0 to 255"))?;
        let names = optional_strings(class.qualifier("EventTypeName"))?;
        let event_names = optional_strings(class.qualifier("EventName"))?;
        for (index, event_type) in types.iter().enumerate() {
            let opcode_name = names.get(index).map(|name| Name::from(name.as_str()));
            let mut schema = EventSchema::new(SchemaOrigin {
                source: SchemaSource::Mof,
                place: format!("{place}:{}", class.at.line),
            });
            schema.provider_name = Some(Arc::clone(&provider_name));
            schema.task_name = Some(Arc::clone(&task_name));
            schema.event_name = event_names
                .get(index)
                .map(|name| Name::from(name.as_str()))
                .or_else(|| opcode_name.clone());
            schema.opcode_name = opcode_name;
            schema.fields.clone_from(&fields);
            schema.maps.clone_from(&maps);
            let key = MofKey {
                guid,
                event_type: *event_type,
                version,
            };
            if let Some(first) = events.get(&key) {
                return Err((
                    event_types.at,
                    MofErrorKind::DuplicateEvent {
                        guid,
                        event_type: *event_type,
                        version,
                        first_class: first.class_name.to_string(),
                        first_line: first.line,
                    },
                ));
            }
            events.insert(
                key,
                MofEvent {
                    class_name: Name::from(class.name.as_str()),
                    event_class: Name::from(event_class.name.as_str()),
                    line: class.at.line,
                    schema,
                },
            );
        }
    }
    Ok(Mof { providers, events })
}

/// The class and its ancestors, nearest first, up to the one whose parent is `EventTrace` or
/// has no parent.
fn ancestry<'c>(
    class: &'c Class,
    lookup: &impl Fn(&str) -> Option<&'c Class>,
    bound: usize,
) -> Result<Vec<&'c Class>, Failure> {
    let mut chain = vec![class];
    let mut current = class;
    while let Some(parent) = current.parent.as_deref() {
        if parent.eq_ignore_ascii_case("EventTrace") {
            break;
        }
        let Some(next) = lookup(parent) else {
            return Err((
                current.at,
                MofErrorKind::UndefinedParent {
                    class: current.name.clone(),
                    parent: parent.to_owned(),
                },
            ));
        };
        if chain.len() > bound || chain.iter().any(|seen| std::ptr::eq(*seen, next)) {
            return Err((
                class.at,
                MofErrorKind::InheritanceLoop {
                    class: class.name.clone(),
                },
            ));
        }
        chain.push(next);
        current = next;
    }
    Ok(chain)
}

fn guid_of(class: &Class) -> Result<Option<Guid>, Failure> {
    let Some(found) = class.qualifier("Guid") else {
        return Ok(None);
    };
    match found.values.as_slice() {
        [Literal::Str(text)] => Guid::parse_str(text.trim())
            .map(Some)
            .map_err(|_| bad_qualifier(found, "a GUID \"{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\"")),
        _ => Err(bad_qualifier(
            found,
            "a GUID \"{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}\"",
        )),
    }
}

fn display_name(class: &Class) -> Result<Option<Name>, Failure> {
    let Some(found) = class.qualifier("DisplayName") else {
        return Ok(None);
    };
    match found.values.as_slice() {
        [Literal::Str(text)] => Ok(Some(Name::from(text.as_str()))),
        _ => Err(bad_qualifier(found, "one string")),
    }
}

/// The strings of a qualifier that takes one or several (`EventTypeName("Start")`,
/// `EventTypeName{"Start", "End"}`).
fn optional_strings(found: Option<&Qualifier>) -> Result<Vec<String>, Failure> {
    let Some(found) = found else {
        return Ok(Vec::new());
    };
    found
        .values
        .iter()
        .map(|value| value.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| bad_qualifier(found, "strings"))
}

/// A class name without the version suffix the versioning convention adds (`Process_V2` is
/// `Process`).
fn without_version(name: &str) -> &str {
    match name.rfind("_V") {
        Some(at)
            if name.get(at.saturating_add(2)..).is_some_and(|digits| {
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            }) =>
        {
            name.get(..at).unwrap_or(name)
        }
        _ => name,
    }
}

/// An event's fields and the maps they name.
type Layout = (Vec<FieldSchema<Name>>, Vec<Arc<ValueMap>>);

/// The event's fields: the `WmiDataId` properties of the class and its ancestors (a child's
/// property replacing its parent's of the same name), in `WmiDataId` order.
fn layout(class: &Class, chain: &[&Class]) -> Result<Layout, Failure> {
    for property in &class.properties {
        if property.qualifier("WmiDataId").is_none() {
            return Err((
                property.at,
                MofErrorKind::MissingWmiDataId {
                    property: property.name.clone(),
                },
            ));
        }
    }
    let mut chosen: Vec<(u64, &Property)> = Vec::new();
    for ancestor in chain {
        for property in &ancestor.properties {
            let Some(found) = property.qualifier("WmiDataId") else {
                continue;
            };
            if chosen
                .iter()
                .any(|(_, known)| known.name.eq_ignore_ascii_case(&property.name))
            {
                continue;
            }
            let id = match found.values.as_slice() {
                [value] => value.as_u64(),
                _ => None,
            }
            .ok_or_else(|| bad_qualifier(found, "one number"))?;
            chosen.push((id, property));
        }
    }
    chosen.sort_by_key(|(id, _)| *id);
    for pair in chosen.windows(2) {
        if let [(first_id, first), (id, property)] = pair {
            if first_id == id {
                return Err((
                    property.at,
                    MofErrorKind::DuplicateWmiDataId {
                        property: property.name.clone(),
                        id: *id,
                        first_line: first.at.line,
                    },
                ));
            }
        }
    }
    for (expected, (id, property)) in (1u64..).zip(&chosen) {
        if *id != expected {
            return Err((
                property.at,
                MofErrorKind::WmiDataIdGap {
                    property: property.name.clone(),
                    id: *id,
                    expected,
                },
            ));
        }
    }

    let properties: Vec<&Property> = chosen.iter().map(|(_, property)| *property).collect();
    let mut fields = Vec::new();
    let mut maps = Vec::new();
    for (index, property) in properties.iter().enumerate() {
        let earlier = properties.get(..index).unwrap_or_default();
        let field = field(property, earlier)?;
        let field = match value_map(class, property)? {
            Some(map) => {
                let named = field.with_map(Arc::clone(&map.name));
                maps.push(Arc::new(map));
                named
            }
            None => field,
        };
        fields.push(field);
    }
    if let Err(error) = check_fields(&fields) {
        let index = match error {
            SchemaError::MembersPastEnd { field, .. }
            | SchemaError::TooDeep { field }
            | SchemaError::BadReference { field, .. }
            | SchemaError::MembersOnNonStruct { field } => usize::from(field),
            _ => 0,
        };
        let property = properties.get(index).copied();
        return Err((
            property.map_or(class.at, |property| property.at),
            MofErrorKind::Schema {
                field: property.map_or_else(String::new, |property| property.name.clone()),
                error,
            },
        ));
    }
    Ok((fields, maps))
}

/// How a property's values are stored and shown, by its type and qualifiers (Publishing Your
/// Event Schema for a Classic Provider, Event Tracing MOF Qualifiers):
///
/// - `Pointer` (and `PointerType`, "some events use PointerType instead of Pointer"):
///   pointer-sized, whatever the declared type;
/// - `Extension`: `Guid` a GUID; `IPAddr`/`IPAddrV4` a `u32` shown as IPv4; `IPAddrV6` an
///   `IN6_ADDR` (16 bytes); `Port` a `u16` shown as a port (big-endian); `Sid` the kernel's
///   SID (a `u32` that is 0 when there is none, else a `TOKEN_USER` and the SID, TDH's
///   `WBEMSID`); `SizeT` pointer-sized; `WmiTime` a `u64` time stamp; `Variant` a `u32` size
///   then that many bytes; `RString`/`RWString` NUL-terminated 8-bit/wide text; `NoPrint`
///   the declared type, not shown;
/// - `string`: 8-bit, or wide with `Format("w")`; `StringTermination` `NullTerminated` (the
///   default), `Counted` (a `u16` length first), `ReverseCounted` (the same, big-endian),
///   `NotCounted` (to the end of the event);
/// - `char16` one wide character, and an array of them a wide string of the array's length
///   ("the event consumer should interpret char16 arrays in kernel events as wide character
///   strings"); `uint8`/`sint8` arrays with `Format("s")` an 8-bit string of that length,
///   and with `Format("c")` characters;
/// - `Format("x")` hexadecimal on integers;
/// - `datetime`, for which event tracing documents no layout, is taken as a `FILETIME`;
/// - an array's size is `[n]`, `MAX(n)` or `WmiSizeIs("Property")` (an earlier property).
fn field(property: &Property, earlier: &[&Property]) -> Result<FieldSchema<Name>, Failure> {
    let name = || property.name.clone();
    let type_name = property.type_name.to_ascii_lowercase();
    let format = property
        .string("Format")?
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let pointer =
        property.qualifier("Pointer").is_some() || property.qualifier("PointerType").is_some();
    let extension = property.string("Extension")?.map(str::to_ascii_lowercase);

    let hex = |in_type: InType| -> OutType {
        if format != "x" {
            return OutType::NULL;
        }
        match in_type.fixed_size(8) {
            Some(1) => OutType::HEX_INT8,
            Some(2) => OutType::HEX_INT16,
            Some(4) => OutType::HEX_INT32,
            _ => OutType::HEX_INT64,
        }
    };
    let base = |type_name: &str| -> Option<(InType, OutType)> {
        let in_type = match type_name {
            "uint8" if format == "c" => InType::ANSI_CHAR,
            "sint8" if format == "c" => InType::ANSI_CHAR,
            "uint8" => InType::UINT8,
            "sint8" => InType::INT8,
            "char16" => InType::UNICODE_CHAR,
            "uint16" => InType::UINT16,
            "sint16" => InType::INT16,
            "uint32" => InType::UINT32,
            "sint32" => InType::INT32,
            "uint64" => InType::UINT64,
            "sint64" => InType::INT64,
            "real32" => InType::FLOAT,
            "real64" => InType::DOUBLE,
            "boolean" => InType::BOOLEAN,
            "datetime" => InType::FILETIME,
            _ => return None,
        };
        Some((in_type, hex(in_type)))
    };

    let mut length = Length::Natural;
    let (in_type, out_type) = if pointer {
        (InType::POINTER, OutType::NULL)
    } else if let Some(extension) = extension.as_deref().filter(|ext| *ext != "noprint") {
        match extension {
            "guid" => (InType::GUID, OutType::NULL),
            "ipaddr" | "ipaddrv4" => (InType::UINT32, OutType::IPV4),
            "ipaddrv6" => {
                length = Length::Fixed(16);
                (InType::BINARY, OutType::IPV6)
            }
            "port" => (InType::UINT16, OutType::PORT),
            "sid" => (InType::WBEM_SID, OutType::NULL),
            "sizet" => (InType::SIZET, OutType::NULL),
            "wmitime" => (InType::UINT64, OutType::ETW_TIME),
            "variant" => (InType::HEXDUMP, OutType::NULL),
            "rstring" => (InType::ANSI_STRING, OutType::NULL),
            "rwstring" => (InType::UNICODE_STRING, OutType::NULL),
            _ => {
                return Err((
                    property.at,
                    MofErrorKind::UnknownExtension {
                        property: name(),
                        extension: property.string("Extension")?.unwrap_or_default().to_owned(),
                    },
                ))
            }
        }
    } else if type_name == "string" {
        let wide = format == "w";
        let termination = property.string("StringTermination")?;
        let in_type = match termination.map(str::to_ascii_lowercase).as_deref() {
            None | Some("nullterminated") => {
                if wide {
                    InType::UNICODE_STRING
                } else {
                    InType::ANSI_STRING
                }
            }
            Some("counted") => {
                if wide {
                    InType::COUNTED_STRING
                } else {
                    InType::COUNTED_ANSI_STRING
                }
            }
            Some("reversecounted") => {
                if wide {
                    InType::REVERSED_COUNTED_STRING
                } else {
                    InType::REVERSED_COUNTED_ANSI_STRING
                }
            }
            Some("notcounted") => {
                if wide {
                    InType::NON_NULL_TERMINATED_STRING
                } else {
                    InType::NON_NULL_TERMINATED_ANSI_STRING
                }
            }
            Some(_) => {
                return Err((
                    property.at,
                    MofErrorKind::UnknownStringTermination {
                        property: name(),
                        termination: termination.unwrap_or_default().to_owned(),
                    },
                ))
            }
        };
        (in_type, OutType::NULL)
    } else if type_name == "object" {
        return Err((
            property.at,
            MofErrorKind::ObjectWithoutExtension { property: name() },
        ));
    } else {
        base(&type_name).ok_or_else(|| {
            (
                property.at,
                MofErrorKind::UnknownType {
                    property: name(),
                    type_name: property.type_name.clone(),
                },
            )
        })?
    };
    let out_type = if extension.as_deref() == Some("noprint") {
        OutType::NO_PRINT
    } else {
        out_type
    };

    // The size of an array (or of a string sized by MAX or WmiSizeIs).
    let size = array_size(property, earlier)?;
    let mut field = FieldSchema::new(Name::from(property.name.as_str()), in_type)
        .with_out_type(out_type)
        .with_length(length);
    let Some(size) = size else {
        if property.array == Some(None) {
            return Err((
                property.at,
                MofErrorKind::ArrayWithoutSize { property: name() },
            ));
        }
        return Ok(field);
    };
    let as_text = match in_type {
        InType::UNICODE_CHAR => Some(InType::UNICODE_STRING),
        InType::UINT8 | InType::INT8 if format == "s" => Some(InType::ANSI_STRING),
        InType::UNICODE_STRING | InType::ANSI_STRING if property.array.is_none() => Some(in_type),
        _ => None,
    };
    field = match (as_text, size) {
        (Some(text), Size::Fixed(units)) => {
            let mut text_field = field.with_length(Length::Fixed(units));
            text_field.in_type = text;
            text_field
        }
        (Some(text), Size::Field(index)) => {
            let mut text_field = field.with_length(Length::FromField(index));
            text_field.in_type = text;
            text_field
        }
        (None, Size::Fixed(count)) => field.with_count(Count::Fixed(count)),
        (None, Size::Field(index)) => field.with_count(Count::FromField(index)),
    };
    Ok(field)
}

enum Size {
    Fixed(u16),
    Field(u16),
}

/// `[n]`, `MAX(n)` or `WmiSizeIs("Property")`.
fn array_size(property: &Property, earlier: &[&Property]) -> Result<Option<Size>, Failure> {
    let too_big = |at: At, found: String| {
        (
            at,
            MofErrorKind::BadQualifier {
                qualifier: "array size".to_owned(),
                expected: "a size from 0 to 65535",
                found,
            },
        )
    };
    if let Some(Some(size)) = &property.array {
        return parse_integer(size)
            .and_then(|size| u16::try_from(size).ok())
            .map(|size| Some(Size::Fixed(size)))
            .ok_or_else(|| too_big(property.at, size.clone()));
    }
    if let Some(found) = property.qualifier("MAX") {
        return match found.values.as_slice() {
            [value] => value
                .as_u64()
                .and_then(|size| u16::try_from(size).ok())
                .map(|size| Some(Size::Fixed(size)))
                .ok_or_else(|| bad_qualifier(found, "a size from 0 to 65535")),
            _ => Err(bad_qualifier(found, "one size")),
        };
    }
    let Some(target) = property.string("WmiSizeIs")? else {
        return Ok(None);
    };
    earlier
        .iter()
        .rposition(|candidate| candidate.name.eq_ignore_ascii_case(target))
        .and_then(|index| u16::try_from(index).ok())
        .map(|index| Some(Size::Field(index)))
        .ok_or_else(|| {
            (
                property.at,
                MofErrorKind::NoSuchProperty {
                    property: property.name.clone(),
                    names: target.to_owned(),
                },
            )
        })
}

/// The map a property's `ValueMap`/`Values` or `BitMap`/`BitValues` qualifiers describe,
/// named `Class.Property`:
///
/// - `ValueMap` values with `Values` names, one to one; `Values` alone name the values 0,
///   1, 2 ... ("assume the property value is a zero-based index into the value strings");
///   `ValueType("flag")` makes the values bits;
/// - `BitMap` bit positions with `BitValues` names; `BitValues` alone name bits 0, 1, 2 ...
///   ("bit one corresponds to the first string in the list").
fn value_map(class: &Class, property: &Property) -> Result<Option<ValueMap>, Failure> {
    let bad = |problem: &'static str| {
        (
            property.at,
            MofErrorKind::BadMap {
                property: property.name.clone(),
                problem,
            },
        )
    };
    let strings = |found: &Qualifier| -> Result<Vec<Name>, Failure> {
        found
            .values
            .iter()
            .map(|value| value.as_str().map(Name::from))
            .collect::<Option<_>>()
            .ok_or_else(|| bad_qualifier(found, "strings"))
    };
    let numbers = |found: &Qualifier| -> Result<Vec<u64>, Failure> {
        found
            .values
            .iter()
            .map(Literal::as_u64)
            .collect::<Option<_>>()
            .ok_or_else(|| bad_qualifier(found, "numbers (or strings holding them)"))
    };
    let (kind, entries) = if let Some(names) = property.qualifier("Values") {
        let names = strings(names)?;
        let values = match property.qualifier("ValueMap") {
            Some(values) => numbers(values)?,
            None => (0u64..).take(names.len()).collect(),
        };
        if values.len() != names.len() {
            return Err(bad("ValueMap and Values have different numbers of entries"));
        }
        let flags = property
            .string("ValueType")?
            .is_some_and(|kind| kind.eq_ignore_ascii_case("flag"));
        let kind = if flags { MapKind::Bits } else { MapKind::Value };
        (kind, values.into_iter().zip(names).collect::<Vec<_>>())
    } else if let Some(names) = property.qualifier("BitValues") {
        let names = strings(names)?;
        let positions = match property.qualifier("BitMap") {
            Some(positions) => numbers(positions)?,
            None => (0u64..).take(names.len()).collect(),
        };
        if positions.len() != names.len() {
            return Err(bad(
                "BitMap and BitValues have different numbers of entries",
            ));
        }
        let masks = positions
            .into_iter()
            .map(|position| {
                u32::try_from(position)
                    .ok()
                    .and_then(|position| 1u64.checked_shl(position))
            })
            .collect::<Option<Vec<u64>>>()
            .ok_or_else(|| bad("a BitMap position above 63"))?;
        (MapKind::Bits, masks.into_iter().zip(names).collect())
    } else if property.qualifier("ValueMap").is_some() {
        return Err(bad("ValueMap without Values"));
    } else {
        return Ok(None);
    };
    Ok(Some(ValueMap {
        name: Name::from(format!("{}.{}", class.name, property.name)),
        kind,
        entries,
    }))
}
