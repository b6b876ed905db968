//! The schemas `etwc etl` names events and decodes their fields with: the files given with
//! `--manifest` and `--mof`, then what a first pass over the trace learns from it (process
//! names from the kernel's `Process` events, and the descriptions the trace carries).

use std::io::Read;
use std::path::Path;

use etw_classic::EtlReader;
use etw_classic_decode::facts::Facts;
use etw_classic_decode::{Registry, SchemaFile};

/// The registry for `path` (`None` for standard input, which cannot be read twice): the
/// user's files loaded, then the trace's first pass learned.
///
/// # Errors
/// A manifest or MOF file that cannot be read or parsed (the message names it, with the line
/// for a parse error). The first pass reports nothing: what it cannot read, the output's pass
/// reports.
pub fn registry(
    manifests: &[impl AsRef<Path>],
    mofs: &[impl AsRef<Path>],
    path: Option<&str>,
) -> Result<Registry, String> {
    let mut registry = Registry::new();
    for manifest in manifests {
        registry.load_path(manifest.as_ref(), SchemaFile::Manifest)?;
    }
    for mof in mofs {
        registry.load_path(mof.as_ref(), SchemaFile::Mof)?;
    }
    if let Some(path) = path {
        learn_file(&mut registry, path);
    }
    Ok(registry)
}

/// Walks every event of the file at `path` that can be read, for [`Registry::learn`].
pub fn learn_file(registry: &mut Registry, path: &str) {
    if let Ok(reader) = EtlReader::open(path) {
        learn(registry, reader, path);
    }
}

/// Walks every event `reader` (of the file at `path`) can read, for [`Registry::learn`].
pub fn learn<R: Read>(registry: &mut Registry, mut reader: EtlReader<R>, path: &str) {
    while let Some(buffer) = reader.next_buffer() {
        let Ok(buffer) = buffer else { continue };
        let position = buffer.position;
        for event in buffer.events() {
            let Ok(event) = event else { break };
            registry.learn(&Facts::of(&event), || {
                format!(
                    "{path}: buffer {} (file offset {:#x}) event offset {:#x}",
                    position.index, position.file_offset, event.offset
                )
            });
        }
    }
}
