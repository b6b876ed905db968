//! The event filters of `etwc etl` (`--provider`, `--event`, `--process`, `--kind`, `--pid`,
//! `--tid`, `--from`, `--to`) and of the Python module's `open` and `read_arrow` (`provider`,
//! `event`, `process`, `pid`, `start`, `end`): one [`Filter`] on the decoded event.
//!
//! Each filter given must hold (AND); a filter given several values holds when any of them
//! does (OR). An event without the member a filter looks at (a `PERFINFO` event has no process
//! id, a kernel event no provider GUID, an event without a timestamp no time, an event no
//! schema names no name) does not match that filter. Names are compared without regard to ASCII
//! case. A file whose clock cannot be read has no time for any event: `etwc` refuses `--from`
//! and `--to` for it, with the reason, rather than match nothing.

use etw_classic::{
    wire::{EventTraceGroup, UtcDateTime},
    Guid, HeaderType,
};

use crate::facts::Source;
use crate::headers::kind_name;
use crate::DecodedEvent;

/// `--provider`: a GUID, a kernel group or a provider name: what `--stats` and the CSV print
/// as an event's provider, and the name its schema gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderFilter {
    /// The provider (or event class, or message) GUID.
    Guid(Guid),
    /// `kernel:GROUP`: the kernel events (`SYSTEM`, `COMPACT`, `PERFINFO`) whose `HookId` is of
    /// this group, as [`Source`] prints them.
    Kernel(EventTraceGroup),
    /// The provider's name, as the event's schema gives it.
    Name(String),
}

/// The filters given on the command line; an empty list (or `None`) lets every event through.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// `--provider`: GUIDs, kernel groups, provider names.
    pub providers: Vec<ProviderFilter>,
    /// `--event`: event names, or `provider/event`.
    pub events: Vec<String>,
    /// `--process`: process names.
    pub processes: Vec<String>,
    /// `--kind`: header types.
    pub kinds: Vec<HeaderType>,
    /// `--pid`: process ids.
    pub process_ids: Vec<u32>,
    /// `--tid`: thread ids.
    pub thread_ids: Vec<u32>,
    /// The first FILETIME let through (inclusive).
    pub from: Option<i64>,
    /// The last FILETIME let through (inclusive).
    pub to: Option<i64>,
}

impl Filter {
    /// Whether a filter asks for names the trace gives (a provider or event name, a process
    /// name): the schemas and process names must then be learned from the trace first.
    pub fn uses_names(&self) -> bool {
        !self.events.is_empty()
            || !self.processes.is_empty()
            || self
                .providers
                .iter()
                .any(|provider| matches!(provider, ProviderFilter::Name(_)))
    }

    /// Whether the event passes every filter, its names as its schema gives them.
    pub fn matches(&self, event: &DecodedEvent<'_, '_>) -> bool {
        let filetime = event.filetime;
        if !self.kinds.is_empty() && !self.kinds.contains(&event.kind()) {
            return false;
        }
        if self.from.is_some() || self.to.is_some() {
            let Some(filetime) = filetime else {
                return false;
            };
            if self.from.is_some_and(|from| filetime < from)
                || self.to.is_some_and(|to| filetime > to)
            {
                return false;
            }
        }
        if self.providers.is_empty()
            && self.events.is_empty()
            && self.processes.is_empty()
            && self.process_ids.is_empty()
            && self.thread_ids.is_empty()
        {
            return true;
        }
        let facts = event.facts();
        let any = |wanted: &[u32], found: Option<u32>| {
            wanted.is_empty() || found.is_some_and(|found| wanted.contains(&found))
        };
        if !(any(&self.process_ids, facts.process_id) && any(&self.thread_ids, facts.thread_id)) {
            return false;
        }
        if !self.processes.is_empty() {
            let name = event.process_name();
            if !name.is_some_and(|name| same_name(&self.processes, name)) {
                return false;
            }
        }
        if self.providers.is_empty() && self.events.is_empty() {
            return true;
        }
        let identified = event.identified().ok();
        let provider_name = identified.and_then(|found| found.provider_name());
        let provider_ok = self.providers.is_empty()
            || self.providers.iter().any(|wanted| match wanted {
                ProviderFilter::Guid(guid) => facts.provider() == Some(*guid),
                ProviderFilter::Kernel(group) => facts.source == Some(Source::Kernel(*group)),
                ProviderFilter::Name(name) => {
                    provider_name.is_some_and(|found| found.eq_ignore_ascii_case(name))
                }
            });
        if !provider_ok {
            return false;
        }
        if self.events.is_empty() {
            return true;
        }
        let Some(event_name) = identified.and_then(|found| found.event_name()) else {
            return false;
        };
        self.events.iter().any(|wanted| {
            wanted.eq_ignore_ascii_case(&event_name)
                || provider_name.is_some_and(|provider| {
                    wanted.len() == provider.len() + 1 + event_name.len()
                        && wanted
                            .get(..provider.len())
                            .is_some_and(|head| head.eq_ignore_ascii_case(provider))
                        && wanted.get(provider.len()..=provider.len()) == Some("/")
                        && wanted
                            .get(provider.len() + 1..)
                            .is_some_and(|tail| tail.eq_ignore_ascii_case(&event_name))
                })
        })
    }
}

/// Whether `found` is one of `wanted`, without regard to ASCII case.
fn same_name(wanted: &[String], found: &str) -> bool {
    wanted.iter().any(|name| name.eq_ignore_ascii_case(found))
}

/// `--provider`: a GUID (with or without braces, either case) when the text starts with a
/// brace or is made of hexadecimal digits and hyphens; `kernel:GROUP` (a group's name as
/// `--stats` prints it, either case, or its number); else a provider name.
pub fn parse_provider(text: &str) -> Result<ProviderFilter, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("an empty provider: give a GUID, kernel:GROUP or a provider name".to_owned());
    }
    if let Some(group) = text
        .get(..KERNEL_PREFIX.len())
        .filter(|prefix| prefix.eq_ignore_ascii_case(KERNEL_PREFIX))
        .and_then(|_| text.get(KERNEL_PREFIX.len()..))
    {
        return parse_group(group).map(ProviderFilter::Kernel);
    }
    // Braces, or nothing but hexadecimal digits and hyphens: meant as a GUID, so that its
    // mistakes are shown rather than taken as a name no provider has.
    let looks_like_guid = text.starts_with('{')
        || (text.contains('-') && text.chars().all(|c| c.is_ascii_hexdigit() || c == '-'));
    if looks_like_guid {
        parse_guid(text).map(ProviderFilter::Guid)
    } else {
        Ok(ProviderFilter::Name(text.to_owned()))
    }
}

/// What `--stats` and the CSV print before a kernel group's name ([`Source`]).
const KERNEL_PREFIX: &str = "kernel:";

/// The group of `kernel:GROUP`: its name as [`Source`] prints it (`PROCESS`, `STACKWALK`), either
/// case, or its number (`0x03`, `3`), as [`Source`] prints a group without a name.
fn parse_group(text: &str) -> Result<EventTraceGroup, String> {
    let named = || {
        (0..=u8::MAX)
            .map(EventTraceGroup)
            .filter_map(|group| group.name().map(|name| (name, group)))
    };
    if let Some((_, group)) = named().find(|(name, _)| name.eq_ignore_ascii_case(text)) {
        return Ok(group);
    }
    let number = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => text.parse::<u8>().ok(),
    };
    number.map(EventTraceGroup).ok_or_else(|| {
        let names: Vec<&str> = named().map(|(name, _)| name).collect();
        format!(
            "unknown kernel group {text:?} in {KERNEL_PREFIX}{text}: expected one of {} (or the \
             group's number, 0x00 to 0xFF)",
            names.join(", ")
        )
    })
}

/// `--provider`: a GUID with or without braces, either case.
pub fn parse_guid(text: &str) -> Result<Guid, String> {
    Guid::parse_str(text.trim()).map_err(|error| {
        format!("{error} (the form is xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, braces optional)")
    })
}

/// Every header type with a name, by its name as `kind` prints it.
fn named_kinds() -> impl Iterator<Item = (String, HeaderType)> {
    (0..=u8::MAX)
        .map(HeaderType)
        .filter(|header_type| header_type.name().is_some())
        .map(|header_type| (kind_name(header_type), header_type))
}

/// `--kind`: a header type's name as `kind` prints it (`EVENT_HEADER64`, `SYSTEM32`, ...),
/// either case, or its number (`0x13`, `19`).
pub fn parse_kind(text: &str) -> Result<HeaderType, String> {
    let text = text.trim();
    if let Some((_, header_type)) = named_kinds().find(|(name, _)| name.eq_ignore_ascii_case(text))
    {
        return Ok(header_type);
    }
    let number = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => text.parse::<u8>().ok(),
    };
    if let Some(number) = number {
        return Ok(HeaderType(number));
    }
    let names: Vec<String> = named_kinds().map(|(name, _)| name).collect();
    Err(format!(
        "unknown kind {text:?}: expected one of {} (or a header type number, 0x00 to 0xFF)",
        names.join(", ")
    ))
}

/// `--from`, `--to`: an ISO 8601 UTC time, `YYYY-MM-DDTHH:MM:SS[.fffffff]Z` (up to seven
/// fractional digits, FILETIME's 100 ns), as a FILETIME. `+00:00` may stand for `Z`, and the
/// date alone means its midnight.
pub fn parse_time(text: &str) -> Result<i64, String> {
    const FORM: &str = "the form is YYYY-MM-DDTHH:MM:SS[.fffffff]Z, in UTC";
    let bytes = text.as_bytes();
    let mut at = 0usize;
    let problem = |at: usize, expected: &str| -> String {
        match text.get(at..).and_then(|rest| rest.chars().next()) {
            Some(found) => {
                format!("expected {expected} at position {at}, found {found:?} ({FORM})")
            }
            None => format!("expected {expected} at position {at}, found the end ({FORM})"),
        }
    };
    let number = |at: &mut usize, digits: usize, what: &str| -> Result<u32, String> {
        let mut value = 0u32;
        for _ in 0..digits {
            let digit = bytes
                .get(*at)
                .and_then(|byte| char::from(*byte).to_digit(10))
                .ok_or_else(|| problem(*at, &format!("a digit of the {what}")))?;
            value = value * 10 + digit;
            *at += 1;
        }
        Ok(value)
    };
    let expect = |at: &mut usize, wanted: &[u8], what: &str| -> Result<(), String> {
        match bytes.get(*at) {
            Some(byte) if wanted.contains(byte) => {
                *at += 1;
                Ok(())
            }
            _ => Err(problem(*at, what)),
        }
    };
    let year = number(&mut at, 4, "year")?;
    expect(&mut at, b"-", "'-'")?;
    let month = number(&mut at, 2, "month")?;
    expect(&mut at, b"-", "'-'")?;
    let day = number(&mut at, 2, "day")?;
    let (mut hour, mut minute, mut second, mut intervals) = (0, 0, 0, 0);
    if at < bytes.len() {
        expect(&mut at, b"Tt ", "'T'")?;
        hour = number(&mut at, 2, "hour")?;
        expect(&mut at, b":", "':'")?;
        minute = number(&mut at, 2, "minute")?;
        expect(&mut at, b":", "':'")?;
        second = number(&mut at, 2, "second")?;
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            let start = at;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            let digits = at - start;
            if digits == 0 {
                return Err(problem(at, "a digit of the fraction"));
            }
            if digits > 7 {
                return Err(problem(
                    start + 7,
                    "at most seven fractional digits (100 ns)",
                ));
            }
            let fraction: u32 = text[start..at]
                .parse()
                .map_err(|_| problem(start, "digits"))?;
            intervals = fraction * 10u32.pow(u32::try_from(7 - digits).unwrap_or(0));
        }
        match &bytes[at..] {
            [b'Z' | b'z'] => {}
            b"+00:00" => {}
            _ => return Err(problem(at, "'Z' (UTC) at the end")),
        }
    }
    let small = |value: u32| u8::try_from(value).unwrap_or(u8::MAX);
    let time = UtcDateTime {
        year: i32::try_from(year).unwrap_or_default(),
        month: small(month),
        day: small(day),
        hour: small(hour),
        minute: small(minute),
        second: small(second),
        intervals,
    };
    time.to_filetime().ok_or_else(|| {
        format!(
            "{text:?} is not a time of the calendar (month 01-12, a day of that month, hour \
             below 24, minute and second below 60)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(
            parse_time("2020-07-29T00:07:00.6236167Z")
                .map(|t| UtcDateTime::from_filetime(t).to_string()),
            Ok("2020-07-29T00:07:00.6236167Z".to_owned())
        );
        assert_eq!(parse_time("1601-01-01"), Ok(0));
        assert_eq!(parse_time("1601-01-01T00:00:00.1Z"), Ok(1_000_000));
        assert_eq!(parse_time("1601-01-01T00:00:01+00:00"), Ok(10_000_000));
        let error = parse_time("2020-07-2x").unwrap_err();
        assert!(
            error.starts_with("expected a digit of the day at position 9, found 'x'"),
            "{error}"
        );
        assert!(parse_time("2020-07-29T00:07:00")
            .unwrap_err()
            .contains("'Z'"));
        assert!(parse_time("2020-02-30").unwrap_err().contains("not a time"));
        assert!(parse_time("2020-07-29T00:07:00.12345678Z")
            .unwrap_err()
            .contains("position 27"));
    }

    #[test]
    fn kinds() {
        assert_eq!(parse_kind("event_header64"), Ok(HeaderType::EVENT_HEADER64));
        assert_eq!(parse_kind("0x13"), Ok(HeaderType::EVENT_HEADER64));
        let error = parse_kind("FULL").unwrap_err();
        assert!(
            error.contains("FULL_HEADER64") && error.contains("PERFINFO32"),
            "{error}"
        );
    }

    #[test]
    fn kernel_groups() {
        assert_eq!(
            parse_provider("kernel:process"),
            Ok(ProviderFilter::Kernel(EventTraceGroup::PROCESS))
        );
        assert_eq!(
            parse_provider("Kernel:0x1c"),
            Ok(ProviderFilter::Kernel(EventTraceGroup::THREAD_POOL))
        );
        let error = parse_provider("kernel:PROCES").unwrap_err();
        assert!(
            error.contains("\"PROCES\"") && error.contains("STACKWALK"),
            "{error}"
        );
    }
}
