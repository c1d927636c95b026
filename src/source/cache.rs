//! kubesmith's own cache under the cargo target directory: where it lives, content fingerprints, and files of
//! checked sections written atomically.
//!
//! The folder is `<target>/kubesmith/<name>/`, where `<target>` is `$CARGO_TARGET_DIR`, else the `target/` folder
//! beside the nearest `Cargo.toml` above the sources (or beside the workspace root's, for a member without its own).
//! There is no cache when that folder does not exist (nothing is ever created beside the sources) or when
//! `KUBESMITH_NO_CACHE=1`. `cargo metadata` is never run for this: it costs more than the cache saves.
//!
//! A cache file is a header (magic, format number, kubesmith version and build) and sections, each with its length and
//! fingerprint: a file that is missing, partial, corrupt or from another version reads as absent, so the caller
//! recomputes and writes it again. Files are written to a temporary sibling and renamed into place.

use std::path::{Path, PathBuf};

/// `KUBESMITH_NO_CACHE=1` turns every cache off.
pub const NO_CACHE_ENV: &str = "KUBESMITH_NO_CACHE";

const MAGIC: &[u8; 8] = b"ksmcache";

/// One cache folder.
#[derive(Debug, Clone)]
pub struct CacheDir {
    dir: PathBuf,
}

impl CacheDir {
    /// The cache folder `name` for sources in `source_dir`, when the target directory exists and caching is on.
    pub fn for_sources(source_dir: &Path, name: &str) -> Option<CacheDir> {
        if std::env::var_os(NO_CACHE_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
            return None;
        }
        let target = target_dir(source_dir)?;
        Some(CacheDir { dir: target.join("kubesmith").join(name) })
    }

    /// A cache folder at `dir` itself (tests).
    #[cfg(test)]
    pub(crate) fn at(dir: &Path) -> CacheDir {
        CacheDir { dir: dir.to_path_buf() }
    }

    /// The folder (tests).
    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }

    /// The bytes of `file`, if it exists.
    pub fn read(&self, file: &str) -> Option<Vec<u8>> {
        std::fs::read(self.dir.join(file)).ok()
    }

    /// Writes `file` atomically (a temporary sibling renamed into place), creating the folder when needed.
    #[cfg(test)]
    pub fn write(&self, file: &str, bytes: &[u8]) -> std::io::Result<()> {
        self.write_parts(file, &[bytes])
    }

    /// [`CacheDir::write`] of the concatenation of `parts`.
    pub fn write_parts(&self, file: &str, parts: &[&[u8]]) -> std::io::Result<()> {
        use std::io::Write;
        std::fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(".{file}.{}.tmp", std::process::id()));
        let res = std::fs::File::create(&tmp)
            .and_then(|mut f| parts.iter().try_for_each(|p| f.write_all(p)))
            .and_then(|()| std::fs::rename(&tmp, self.dir.join(file)));
        if res.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        res
    }
}

/// The cargo target directory for sources in `source_dir`, if it exists (see the module docs).
pub fn target_dir(source_dir: &Path) -> Option<PathBuf> {
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        let t = PathBuf::from(t);
        let t = if t.is_absolute() { t } else { std::env::current_dir().ok()?.join(t) };
        return t.is_dir().then_some(t);
    }
    let mut nearest = true;
    for dir in source_dir.ancestors() {
        let manifest = dir.join("Cargo.toml");
        if !manifest.is_file() {
            continue;
        }
        let is_root = std::fs::read_to_string(&manifest).is_ok_and(|t| t.lines().any(|l| l.trim() == "[workspace]"));
        if nearest || is_root {
            let target = dir.join("target");
            if target.is_dir() {
                return Some(target);
            }
        }
        // A member's target folder is its workspace root's; a workspace root without one has none yet.
        if is_root {
            return None;
        }
        nearest = false;
    }
    None
}

/// A 128-bit fingerprint of `bytes` (two multiply–rotate lanes, finalized with murmur3's mixer). Not a
/// cryptographic hash: the cache trusts that two different texts do not share a fingerprint by accident.
pub fn fingerprint(bytes: &[u8]) -> u128 {
    const K1: u64 = 0x9E37_79B9_7F4A_7C15;
    const K2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let word = |c: &[u8]| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    // Each step is a bijection of the lane for a given word and injective in the word, so texts that differ in one
    // word always differ in the result.
    let mut a: u64 = 0x243F_6A88_85A3_08D3 ^ bytes.len() as u64;
    let mut b: u64 = 0x1319_8A2E_0370_7344;
    let mut chunks = bytes.chunks_exact(16);
    for c in &mut chunks {
        a = (a ^ word(&c[..8])).wrapping_mul(K1).rotate_left(31);
        b = (b ^ word(&c[8..])).wrapping_mul(K2).rotate_left(29);
    }
    let rest = chunks.remainder();
    let mut tail = [0u8; 16];
    tail[..rest.len()].copy_from_slice(rest);
    a = (a ^ word(&tail[..8]) ^ ((rest.len() as u64) << 59)).wrapping_mul(K1).rotate_left(31);
    b = (b ^ word(&tail[8..])).wrapping_mul(K2).rotate_left(29);
    let hi = fmix64(a ^ b.rotate_left(17));
    let lo = fmix64(b ^ hi);
    (u128::from(hi) << 64) | u128::from(lo)
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// What a cache file must have been written by: this kubesmith version, and this build of it (the executable's
/// size and modification time), so that a rebuilt kubesmith of the same version (a development build, `cargo
/// install --git`) never replays what another build recorded.
fn build_id() -> &'static [u8] {
    static ID: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().and_then(std::fs::metadata).ok();
        let stamp = exe.as_ref().map(|m| {
            let at = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
            format!("+{}.{}.{}", m.len(), at.as_secs(), at.subsec_nanos())
        });
        format!("{}{}", env!("CARGO_PKG_VERSION"), stamp.unwrap_or_default()).into_bytes()
    })
}

/// A cache file of `sections` for `format` of this kubesmith build ([`build_id`]).
#[cfg(test)]
pub fn encode_sections(format: u32, sections: &[&[u8]]) -> Vec<u8> {
    let mut out = encode_header(format, sections);
    for s in sections {
        out.extend_from_slice(s);
    }
    out
}

/// What precedes `sections` in a cache file ([`encode_sections`] without them, to write them as they are).
pub fn encode_header(format: u32, sections: &[&[u8]]) -> Vec<u8> {
    let version = build_id();
    let mut out = Vec::with_capacity(64 + sections.len() * 24);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&format.to_le_bytes());
    out.extend_from_slice(&(version.len() as u32).to_le_bytes());
    out.extend_from_slice(version);
    out.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    for s in sections {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(&fingerprint(s).to_le_bytes());
    }
    out
}

/// The sections of a cache file written by [`encode_sections`] with the same `format` and kubesmith build, each
/// checked lazily by [`Sections::get`]; `None` for anything else.
pub fn decode_sections(bytes: &[u8], format: u32) -> Option<Sections<'_>> {
    let mut r = Reader(bytes);
    if r.take(8)? != MAGIC || u32::from_le_bytes(r.take(4)?.try_into().ok()?) != format {
        return None;
    }
    let vlen = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
    if r.take(vlen)? != build_id() {
        return None;
    }
    let n = u32::from_le_bytes(r.take(4)?.try_into().ok()?) as usize;
    let mut heads = Vec::with_capacity(n.min(64));
    for _ in 0..n {
        let len = u64::from_le_bytes(r.take(8)?.try_into().ok()?) as usize;
        let hash = u128::from_le_bytes(r.take(16)?.try_into().ok()?);
        heads.push((len, hash));
    }
    let mut parts = Vec::with_capacity(heads.len());
    for (len, hash) in heads {
        parts.push((r.take(len)?, hash));
    }
    r.0.is_empty().then_some(Sections { parts })
}

/// The sections of a cache file.
pub struct Sections<'a> {
    parts: Vec<(&'a [u8], u128)>,
}

impl<'a> Sections<'a> {
    /// Section `i`, if its fingerprint matches its bytes.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let (bytes, hash) = *self.parts.get(i)?;
        (fingerprint(bytes) == hash).then_some(bytes)
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.0.len() {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_differ_on_any_byte_and_length() {
        let base = b"fn main() { let api: Api<Pod> = Api::all(client); }".to_vec();
        let f = fingerprint(&base);
        assert_eq!(f, fingerprint(&base.clone()));
        for i in 0..base.len() {
            let mut x = base.clone();
            x[i] ^= 1;
            assert_ne!(fingerprint(&x), f, "byte {i}");
        }
        let mut longer = base.clone();
        longer.push(0);
        assert_ne!(fingerprint(&longer), f);
        assert_ne!(fingerprint(b""), fingerprint(b"\0"));
    }

    #[test]
    fn sections_round_trip_and_reject_damage() {
        let file = encode_sections(3, &[b"head", b"", b"body bytes"]);
        let s = decode_sections(&file, 3).unwrap();
        assert_eq!(
            (s.get(0), s.get(1), s.get(2), s.get(3)),
            (Some(&b"head"[..]), Some(&b""[..]), Some(&b"body bytes"[..]), None)
        );
        assert!(decode_sections(&file, 4).is_none(), "another format");
        assert!(decode_sections(&file[..file.len() - 1], 3).is_none(), "partial");
        let mut bad = file.clone();
        let at = bad.len() - 2;
        bad[at] ^= 0xff;
        let s = decode_sections(&bad, 3).unwrap();
        assert!(s.get(2).is_none() && s.get(0).is_some(), "a damaged section reads as absent");
        assert!(decode_sections(b"garbage", 3).is_none());
    }

    #[test]
    fn target_dir_is_beside_the_nearest_manifest_or_the_workspace_root() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path();
        std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = [\"crates/a\"]\n").unwrap();
        std::fs::create_dir_all(ws.join("crates/a/src")).unwrap();
        std::fs::write(ws.join("crates/a/Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
        let src = ws.join("crates/a/src");
        if std::env::var_os("CARGO_TARGET_DIR").is_some() {
            return;
        }
        assert_eq!(target_dir(&src), None, "no target folder: no cache");
        std::fs::create_dir(ws.join("target")).unwrap();
        assert_eq!(target_dir(&src), Some(ws.join("target")));
        std::fs::create_dir(ws.join("crates/a/target")).unwrap();
        assert_eq!(target_dir(&src), Some(ws.join("crates/a/target")));
    }

    #[test]
    fn writes_are_atomic_renames() {
        let tmp = tempfile::tempdir().unwrap();
        let c = CacheDir::at(&tmp.path().join("c"));
        c.write("x.bin", b"one").unwrap();
        c.write("x.bin", b"two").unwrap();
        assert_eq!(c.read("x.bin").unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(c.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["x.bin"]);
    }
}
