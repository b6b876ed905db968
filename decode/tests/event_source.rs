//! The EventSource manifests net.4.5.2.x64 and net.4.5.2.x86 carry in `ManifestData` events,
//! put back together: four each (PAYLOADS.md §1; PerfView's baselines count
//! `PerfView/ManifestData` 2, `System.Threading.Tasks.TplEventSource/ManifestData` 1 and
//! `System.Diagnostics.Eventing.FrameworkEventSource/ManifestData` 1, each
//! `TotalChunks=1; ChunkNumber=0` with the `DataLen` checked below), each well-formed XML
//! (roxmltree parses it) naming its provider with the GUID its events carry.

mod shared_files;

use etw_classic::payload::is_manifest_data;
use etw_classic::{EtlFile, EventKind, Guid};
use etw_classic_decode::event_source::{ManifestReassembly, Pushed, StreamKey, StreamManifest};

/// Every `ManifestData` event of trace `name` through one reassembly, in file order; the
/// manifests it completes, and how many events it did not complete one with.
fn manifests(name: &str) -> Option<(Vec<StreamManifest<String>>, usize)> {
    let bytes = shared_files::trace(name)?;
    let file = EtlFile::parse(&bytes).unwrap();
    let mut scratch = vec![0u8; file.buffer_size()];
    let mut reassembly = ManifestReassembly::new();
    let mut complete = Vec::new();
    let mut other = 0;
    for buffer in file.buffers() {
        let buffer = buffer.unwrap();
        let index = buffer.index;
        for event in buffer.trace_buffer(&mut scratch).unwrap().events() {
            let event = event.unwrap();
            let EventKind::EventHeader { header, body } = event.kind() else {
                continue;
            };
            if !is_manifest_data(&header.event_descriptor) {
                continue;
            }
            let (_, data) = body.split().unwrap();
            let key = StreamKey {
                provider: header.provider_id,
                process_id: header.process_id,
                thread_id: header.thread_id,
            };
            let place = format!("buffer {index} offset {:#x}", event.offset);
            match reassembly.push(key, data, place) {
                Pushed::Complete(manifest) => complete.push(manifest),
                _ => other += 1,
            }
        }
    }
    assert_eq!(reassembly.incomplete().count(), 0);
    assert_eq!(reassembly.held_bytes(), 0);
    Some((complete, other))
}

#[test]
fn four_complete_manifests_in_each_trace_name_their_providers() {
    let tpl = Guid::parse_str("2e5dba47-a3d2-4d16-8ee0-6671ffdcd7b5").unwrap();
    let framework = Guid::parse_str("8e9f5090-2d75-4d03-8a81-e5afbf85daf1").unwrap();
    let perfview = Guid::parse_str("a8a71ac1-040f-54a2-07ca-00a89b5ab761").unwrap();
    for (name, first_place) in [
        ("net.4.5.2.x64.etl", "buffer 16 offset 0x18b0"),
        ("net.4.5.2.x86.etl", "buffer 17 offset 0x3a00"),
    ] {
        let Some((manifests, other)) = manifests(name) else {
            return;
        };
        assert_eq!(
            other, 0,
            "{name}: every ManifestData event completes a manifest"
        );
        assert_eq!(manifests.len(), 4, "{name}");
        let mut found: Vec<(Guid, String, usize)> = Vec::new();
        for manifest in &manifests {
            assert_eq!(manifest.chunks, 1);
            assert_eq!(manifest.version, (1, 0));
            assert!(
                manifest.xml.starts_with("<instrumentationManifest"),
                "{name} {}",
                manifest.place
            );
            let document = roxmltree::Document::parse(&manifest.xml)
                .unwrap_or_else(|e| panic!("{name} {}: {e}", manifest.place));
            assert_eq!(
                document.root_element().tag_name().name(),
                "instrumentationManifest"
            );
            let provider = document
                .descendants()
                .find(|node| node.has_tag_name("provider"))
                .expect("a <provider>");
            let guid = provider.attribute("guid").unwrap();
            let guid = Guid::parse_str(guid).unwrap();
            assert_eq!(guid, manifest.key.provider, "{name} {}", manifest.place);
            let provider_name = provider.attribute("name").unwrap().to_owned();
            // DataLen of the baseline: the envelope's 8 bytes and the text.
            found.push((guid, provider_name, manifest.xml.len() + 8));
        }
        assert_eq!(manifests[0].place, first_place);
        found.sort();
        assert_eq!(
            found,
            [
                (
                    tpl,
                    "System.Threading.Tasks.TplEventSource".to_owned(),
                    8839
                ),
                (
                    framework,
                    "System.Diagnostics.Eventing.FrameworkEventSource".to_owned(),
                    50588
                ),
                (perfview, "PerfView".to_owned(), 13046),
                (perfview, "PerfView".to_owned(), 13046),
            ],
            "{name}"
        );
    }
}
