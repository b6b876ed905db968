//! Case (a): decode and encode one `EVENT_INSTANCE_GUID_HEADER` on input the optimiser cannot
//! see through, with the checked entry points a firmware would use (`parse`, `emit`), which
//! include `from_bytes` and `to_bytes`.
#![no_std]
#![no_main]

use core::hint::black_box;

use etw_classic::EventInstanceGuidHeader;

#[path = "../../common/start.rs"]
mod start;

/// The input, in flash; `black_box` hides its contents and length from the optimiser.
static INPUT: [u8; EventInstanceGuidHeader::LEN] = [0; EventInstanceGuidHeader::LEN];

fn run() {
    match EventInstanceGuidHeader::parse(black_box(&INPUT[..])) {
        Ok((mut header, _rest)) => {
            // The decoded value may change here, so `emit` must encode it from its fields.
            black_box(&mut header);
            let mut output = [0u8; EventInstanceGuidHeader::LEN];
            let written = header.emit(black_box(&mut output[..]));
            black_box(written.map(|rest| rest.len()).ok());
            black_box(&output);
        }
        Err(error) => {
            black_box(&error);
        }
    }
}
