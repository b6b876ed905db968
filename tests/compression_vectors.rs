//! LZNT1 and LZ77+Huffman streams made by compressors written independently of this crate (the
//! PyPI packages `lznt1` and `ntcompress`), each decoded by other decompressors too (dissect.util
//! and ntcompress, see `decoded_by`): `tests/data/compression-vectors.json`, written by
//! `tools/compression-vectors/generate.py`. Each is decompressed by `lznt1::decompress` or
//! `xpress_huffman::decompress` and the length and SHA-256 (and, for short ones, the bytes) of
//! the result compared with the plaintext's.
//!
//! Then, on the same streams: an output larger than needed gives the same bytes and leaves the
//! rest alone, an output one byte short is an error that names the bytes needed, and every
//! prefix of a stream decodes to a prefix of the plaintext or fails, without a panic.
//!
//! Not under Miri, which takes minutes to parse the JSON; the unit tests of the two modules
//! decode the [MS-XCA] examples there.

use etw_classic::read::{Lznt1Error, XpressHuffmanError};
use etw_classic::{lznt1, xpress_huffman};
use serde_json::Value;
use sha2::{Digest, Sha256};

struct Vector {
    name: String,
    format: String,
    compressor: String,
    compressed: Vec<u8>,
    len: usize,
    sha256: String,
    plain: Option<Vec<u8>>,
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
        .collect()
}

fn vectors() -> Vec<Vector> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/compression-vectors.json"
    );
    let document: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    document["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|vector| Vector {
            name: vector["name"].as_str().unwrap().to_owned(),
            format: vector["format"].as_str().unwrap().to_owned(),
            compressor: vector["compressor"].as_str().unwrap().to_owned(),
            compressed: hex(vector["compressed"].as_str().unwrap()),
            len: usize::try_from(vector["decompressed_len"].as_u64().unwrap()).unwrap(),
            sha256: vector["decompressed_sha256"].as_str().unwrap().to_owned(),
            plain: vector["decompressed"].as_str().map(hex),
        })
        .collect()
}

/// The result of the decompressor of `format`, its error as text.
fn decode(format: &str, input: &[u8], output: &mut [u8]) -> Result<usize, String> {
    match format {
        "lznt1" => lznt1::decompress(input, output).map_err(|error| format!("{error:?}")),
        "xpress_huffman" => {
            xpress_huffman::decompress(input, output).map_err(|error| format!("{error:?}"))
        }
        other => panic!("unknown format {other}"),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[test]
#[cfg_attr(miri, ignore = "reads 190 KB of JSON, minutes under Miri")]
fn every_vector_decodes_to_its_plaintext() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 45);
    let mut formats = [0; 2];
    for vector in &vectors {
        let what = format!(
            "{} by {} ({})",
            vector.format, vector.compressor, vector.name
        );
        // Exactly the plaintext's size, and larger.
        for spare in [0, 1, 4096] {
            let mut output = vec![0xC3u8; vector.len + spare];
            let written = decode(&vector.format, &vector.compressed, &mut output)
                .unwrap_or_else(|error| panic!("{what} into {spare} spare bytes: {error}"));
            assert_eq!(written, vector.len, "{what}");
            assert_eq!(sha256_hex(&output[..written]), vector.sha256, "{what}");
            if let Some(plain) = &vector.plain {
                assert_eq!(&output[..written], &plain[..], "{what}");
            }
            assert!(output[written..].iter().all(|&byte| byte == 0xC3), "{what}");
        }
        formats[usize::from(vector.format == "xpress_huffman")] += 1;
    }
    assert_eq!(formats, [30, 15]);
}

#[test]
#[cfg_attr(miri, ignore = "reads 190 KB of JSON, minutes under Miri")]
fn an_output_one_byte_short_is_an_error_naming_the_bytes_needed() {
    for vector in vectors().iter().filter(|vector| vector.len > 0) {
        let what = format!(
            "{} by {} ({})",
            vector.format, vector.compressor, vector.name
        );
        let mut output = vec![0u8; vector.len - 1];
        match vector.format.as_str() {
            "lznt1" => match lznt1::decompress(&vector.compressed, &mut output) {
                Err(Lznt1Error::OutputTooSmall {
                    needed, available, ..
                }) => assert!(needed > available, "{what}: {needed} {available}"),
                other => panic!("{what}: {other:?}"),
            },
            _ => match xpress_huffman::decompress(&vector.compressed, &mut output) {
                Err(XpressHuffmanError::OutputTooSmall {
                    needed, available, ..
                }) => assert!(needed > available as u64, "{what}: {needed} {available}"),
                other => panic!("{what}: {other:?}"),
            },
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "reads 190 KB of JSON, minutes under Miri")]
fn every_prefix_of_a_stream_decodes_to_a_prefix_of_the_plaintext_or_fails() {
    for vector in vectors() {
        // The full plaintext, to compare prefixes with.
        let mut plain = vec![0u8; vector.len];
        decode(&vector.format, &vector.compressed, &mut plain).unwrap();
        let what = format!(
            "{} by {} ({})",
            vector.format, vector.compressor, vector.name
        );
        let cuts: Vec<usize> = if vector.compressed.len() <= 600 {
            (0..vector.compressed.len()).collect()
        } else {
            // The first and last 300 cuts, and every 97th between.
            let len = vector.compressed.len();
            (0..300)
                .chain((300..len - 300).step_by(97))
                .chain(len - 300..len)
                .collect()
        };
        let mut output = vec![0u8; vector.len + 64];
        for cut in cuts {
            if let Ok(written) = decode(&vector.format, &vector.compressed[..cut], &mut output) {
                assert!(written <= vector.len, "{what} cut at {cut}: {written}");
                assert!(
                    output[..written] == plain[..written],
                    "{what} cut at {cut}: the {written} bytes differ"
                );
            }
        }
    }
}
