//! Unpacking an envtest archive (a `.tar.gz` whose files sit under `controller-tools/envtest/`) into one flat
//! folder, as setup-envtest does: every regular file by its base name, executable; other entries are skipped.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{Context, Result, bail};
use flate2::read::GzDecoder;

use super::REQUIRED;
use super::platform::Platform;

/// Unpacks `archive` (named `name`, for messages) into the existing empty folder `dest`; fails when the
/// binaries envtest needs (`kube-apiserver`, `etcd`) are not among its files. Returns the file names written.
pub fn unpack(archive: &mut File, name: &str, platform: &Platform, dest: &Path) -> Result<Vec<String>> {
    archive.seek(SeekFrom::Start(0))?;
    let mut tar = tar::Archive::new(GzDecoder::new(BufReader::new(archive)));
    let mut written = Vec::new();
    for entry in tar.entries().with_context(|| format!("{name} is no .tar.gz archive"))? {
        let mut entry = entry.with_context(|| format!("{name} is damaged"))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry.path().with_context(|| format!("{name} has an entry with an unreadable name"))?;
        let Some(file_name) = path.file_name().and_then(|n| n.to_str()).map(str::to_string) else { continue };
        let target = dest.join(&file_name);
        let mut out = File::create(&target).with_context(|| format!("cannot write {}", target.display()))?;
        std::io::copy(&mut (&mut entry as &mut dyn Read), &mut out)
            .with_context(|| format!("cannot unpack {file_name} from {name} into {}", dest.display()))?;
        make_executable(&out).with_context(|| format!("cannot make {} executable", target.display()))?;
        if !written.contains(&file_name) {
            written.push(file_name);
        }
    }
    let missing: Vec<String> = REQUIRED.iter().map(|b| platform.exe(b)).filter(|b| !written.contains(b)).collect();
    if !missing.is_empty() {
        bail!(
            "{name} holds no {} (its files: {}): it is no envtest archive; nothing was installed — check the index's \
             link for it or pass --index URL with another index",
            missing.join(" nor "),
            if written.is_empty() { "none".to_string() } else { written.join(", ") }
        );
    }
    Ok(written)
}

#[cfg(unix)]
fn make_executable(file: &File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_: &File) -> std::io::Result<()> {
    Ok(())
}
