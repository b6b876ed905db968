//! GUID text and bytes against a model of the text form and of the byte layout.
//!
//! The rules: "GUID: Data1 u32 LE, Data2 u16 LE, Data3 u16 LE, Data4 8 raw bytes; written
//! `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`" (LAYOUTS §Small structs), where the first three
//! groups are Data1..Data3 as hexadecimal numbers and the last two Data4's bytes in order
//! (`StringFromGUID2`'s form). Documented for `Guid`: display in lowercase; parsing takes either
//! case, with or without one pair of braces, and reports the byte position where the text first
//! departs from that form and what it expected there.
//!
//! Checked on every input:
//! - the first 16 bytes, read as a stored GUID, give Data1..Data4 as the layout says, encode back
//!   to themselves, and display as the model formats them; display, braced and uppercase forms
//!   parse back to the same GUID;
//! - the whole input as UTF-8 text: `Guid::parse_str` and `FromStr` give what the model's reading
//!   of the text form gives, the same GUID or the same error (position, expectation, byte).
#![no_main]

use etw_classic::{wire::GuidTextExpectation, Guid, GuidParseError};
use libfuzzer_sys::fuzz_target;

/// The text form's template: `x` is a hex digit, `-` a hyphen.
const FORM: &[u8; 36] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

/// The model's text of a GUID: the three numbers, then Data4 byte by byte, lowercase.
fn format_model(guid: &Guid) -> String {
    let d = guid.data4;
    format!(
        "{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{}",
        guid.data1,
        guid.data2,
        guid.data3,
        d[0],
        d[1],
        d[2..]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect::<String>()
    )
}

/// The value of a hex digit.
fn hex(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// The model's reading of `text`: a GUID, or the first position where the text departs from the
/// form, what the form has there, and the byte found (`None` past the end).
fn parse_model(text: &[u8]) -> Result<Guid, (usize, GuidTextExpectation, Option<u8>)> {
    let braced = text.first() == Some(&b'{');
    let start = usize::from(braced);
    let mut digits = Vec::with_capacity(32);
    for (index, &want) in FORM.iter().enumerate() {
        let at = start + index;
        let found = text.get(at).copied();
        if want == b'-' {
            if found != Some(b'-') {
                return Err((at, GuidTextExpectation::Hyphen, found));
            }
        } else {
            match found.and_then(hex) {
                Some(value) => digits.push(value),
                None => return Err((at, GuidTextExpectation::HexDigit, found)),
            }
        }
    }
    // After the 36 characters: the end, or for a braced GUID "}" and then the end.
    let after = start + FORM.len();
    if braced {
        if text.get(after) != Some(&b'}') {
            return Err((
                after,
                GuidTextExpectation::ClosingBrace,
                text.get(after).copied(),
            ));
        }
        if let Some(&extra) = text.get(after + 1) {
            return Err((after + 1, GuidTextExpectation::End, Some(extra)));
        }
    } else if let Some(&extra) = text.get(after) {
        return Err((after, GuidTextExpectation::End, Some(extra)));
    }
    // The 32 digits: Data1 (8), Data2 (4), Data3 (4), then Data4's 8 bytes, 2 digits each.
    let number = |digits: &[u8]| digits.iter().fold(0u32, |n, &d| n * 16 + u32::from(d));
    let mut data4 = [0u8; 8];
    for (index, byte) in data4.iter_mut().enumerate() {
        *byte = (digits[16 + 2 * index] << 4) | digits[17 + 2 * index];
    }
    Ok(Guid::from_fields(
        number(&digits[..8]),
        number(&digits[8..12]) as u16,
        number(&digits[12..16]) as u16,
        data4,
    ))
}

/// Display, then parse again, in the plain, braced and uppercase forms.
fn check_display(guid: Guid) {
    let text = guid.to_string();
    assert_eq!(text, format_model(&guid), "display");
    assert_eq!(
        Guid::parse_str(&text),
        Ok(guid),
        "parse(display(g)) != g for {text:?}"
    );
    assert_eq!(Guid::parse_str(&format!("{{{text}}}")), Ok(guid));
    assert_eq!(Guid::parse_str(&text.to_ascii_uppercase()), Ok(guid));
}

fn check_text(text: &str) {
    let parsed = Guid::parse_str(text);
    assert_eq!(
        text.parse::<Guid>(),
        parsed,
        "FromStr disagrees with parse_str"
    );
    let expected = parse_model(text.as_bytes())
        .map_err(|(at, expected, found)| GuidParseError::new(at, expected, found));
    assert_eq!(parsed, expected, "parse_str of {text:?}");
    if let Ok(guid) = parsed {
        check_display(guid);
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(bytes) = data.first_chunk::<16>() {
        let guid = Guid::from_bytes_le(*bytes);
        assert_eq!(
            guid.data1,
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        );
        assert_eq!(guid.data2, u16::from_le_bytes([bytes[4], bytes[5]]));
        assert_eq!(guid.data3, u16::from_le_bytes([bytes[6], bytes[7]]));
        assert_eq!(guid.data4[..], bytes[8..]);
        assert_eq!(
            guid.to_bytes_le(),
            *bytes,
            "to_bytes_le(from_bytes_le(b)) != b"
        );
        check_display(guid);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    check_text(text);
});
