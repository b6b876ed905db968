//! GUID text and bytes: parsing never panics, and text, value and bytes round-trip.
#![no_main]

use etw_classic::{Error, Guid};
use libfuzzer_sys::fuzz_target;

/// Display, then parse again, in the plain, braced and uppercase forms.
fn check_display(guid: Guid) -> String {
    let text = guid.to_string();
    assert_eq!(text.len(), 36);
    assert!(
        text.bytes()
            .all(|byte| byte == b'-' || byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)),
        "display is not lowercase hex: {text:?}"
    );
    assert_eq!(
        Guid::parse_str(&text),
        Ok(guid),
        "parse(display(g)) != g for {text:?}"
    );
    assert_eq!(Guid::parse_str(&format!("{{{text}}}")), Ok(guid));
    assert_eq!(Guid::parse_str(&text.to_ascii_uppercase()), Ok(guid));
    text
}

fn check_text(text: &str) {
    let parsed = Guid::parse_str(text);
    assert_eq!(
        text.parse::<Guid>(),
        parsed,
        "FromStr disagrees with parse_str"
    );
    match parsed {
        Ok(guid) => {
            let bare = text
                .strip_prefix('{')
                .and_then(|inner| inner.strip_suffix('}'))
                .unwrap_or(text);
            assert_eq!(check_display(guid), bare.to_ascii_lowercase());
            assert_eq!(Guid::from_bytes_le(guid.to_bytes_le()), guid);
        }
        Err(Error::InvalidGuidText { at, found, .. }) => {
            assert_eq!(
                found,
                text.as_bytes().get(at).copied(),
                "error position {at} does not hold the byte it reports in {text:?}"
            );
        }
        Err(other) => panic!("parse_str gave a non-text error {other:?} for {text:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(bytes) = data.first_chunk::<16>() {
        let guid = Guid::from_bytes_le(*bytes);
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
