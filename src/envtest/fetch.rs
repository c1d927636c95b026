//! Reading the index and downloading archives: `http://` and `https://` through ureq (rustls, webpki roots, the
//! usual `HTTPS_PROXY`/`NO_PROXY` variables), `file://` from disk (a mirrored index for machines offline).

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha512};

/// Largest index accepted (the real one is some 30 KiB).
const INDEX_LIMIT: u64 = 16 * 1024 * 1024;

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(concat!("kubesmith/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

/// The local path of a `file://` URL.
fn file_path(url: &str) -> Option<&Path> {
    url.strip_prefix("file://").map(Path::new)
}

/// The text at `url`.
pub fn text(url: &str) -> Result<String> {
    if let Some(path) = file_path(url) {
        return std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()));
    }
    check_scheme(url)?;
    let mut response = agent().get(url).call()?;
    Ok(response.body_mut().with_config().limit(INDEX_LIMIT).read_to_string()?)
}

/// Copies what `url` serves into `out` and returns its SHA-512, lowercase hex.
pub fn download(url: &str, out: &mut impl Write) -> Result<String> {
    let mut hasher = Sha512::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut copy = |reader: &mut dyn Read, progress: &crate::output::Progress| -> Result<()> {
        loop {
            let n = reader.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            progress.advance(n as u64);
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).context("cannot write the download to a temporary file")?;
        }
    };
    let name = url.rsplit('/').next().unwrap_or(url);
    if let Some(path) = file_path(url) {
        let mut file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let size = file.metadata().ok().map(|m| m.len());
        let progress = crate::output::Progress::bytes(format_args!("downloading {name} from {url}"), size);
        copy(&mut file, &progress)?;
        progress.finish();
    } else {
        check_scheme(url)?;
        let response = agent().get(url).call()?;
        let progress = crate::output::Progress::bytes(
            format_args!("downloading {name} from {url}"),
            response.body().content_length(),
        );
        copy(&mut response.into_body().into_reader(), &progress)?;
        progress.finish();
    }
    out.flush()?;
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn check_scheme(url: &str) -> Result<()> {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        bail!("unsupported URL `{url}`: use https://, http:// or file://");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_and_hashed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "abc").unwrap();
        let url = format!("file://{}", path.display());
        assert_eq!(text(&url).unwrap(), "abc");
        let mut out = Vec::new();
        let sum = download(&url, &mut out).unwrap();
        assert_eq!(out, b"abc");
        // SHA-512("abc"), FIPS 180-2's example.
        assert!(sum.starts_with("ddaf35a193617aba") && sum.ends_with("a54ca49f") && sum.len() == 128, "{sum}");
        assert!(text("ftp://x/y").unwrap_err().to_string().contains("unsupported URL"));
    }
}
