//! The platform of envtest binaries in Go's words (`linux/amd64`, `darwin/arm64`), as the release index and the
//! store's folder names (`1.30.2-linux-amd64`) spell it.

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

use super::version::Version;

/// An operating system and architecture, Go-style (`GOOS`/`GOARCH`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Platform {
    pub os: String,
    pub arch: String,
}

/// `--os`/`--arch` values that cannot be part of a folder or archive name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is no {what}: use Go's name, letters, digits and `_` only (e.g. {example})")]
pub struct PlatformError {
    value: String,
    what: &'static str,
    example: &'static str,
}

impl Platform {
    /// The machine kubesmith runs on.
    pub fn host() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
            "powerpc64" => "ppc64",
            "loongarch64" => "loong64",
            other => other,
        };
        Platform { os: os.to_string(), arch: arch.to_string() }
    }

    /// The host's platform with `os` and `arch` replaced where given.
    pub fn with(os: Option<&str>, arch: Option<&str>) -> Result<Platform, PlatformError> {
        let host = Platform::host();
        let check = |value: Option<&str>, default: String, what, example| match value {
            None => Ok(default),
            Some(v) if !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => Ok(v.to_string()),
            Some(v) => Err(PlatformError { value: v.to_string(), what, example }),
        };
        Ok(Platform {
            os: check(os, host.os, "operating system", "linux, darwin, windows")?,
            arch: check(arch, host.arch, "architecture", "amd64, arm64, ppc64le, s390x")?,
        })
    }

    /// Whether this is the machine kubesmith runs on (whose binaries it can run).
    pub fn is_host(&self) -> bool {
        *self == Platform::host()
    }

    /// A binary's file name on this platform (`kube-apiserver.exe` on Windows).
    pub fn exe(&self, name: &str) -> String {
        if self.os == "windows" { format!("{name}.exe") } else { name.to_string() }
    }

    /// The store's folder name of `version` for this platform: `1.30.2-linux-amd64`.
    pub fn dir_name(&self, version: Version) -> String {
        format!("{version}-{}-{}", self.os, self.arch)
    }

    /// The release archive's name: `envtest-v1.30.2-linux-amd64.tar.gz`.
    #[cfg(test)]
    pub fn archive_name(&self, version: Version) -> String {
        format!("envtest-v{}.tar.gz", self.dir_name(version))
    }

    /// Reads a store folder name (`1.30.2-linux-amd64`).
    pub fn parse_dir_name(name: &str) -> Option<(Version, Platform)> {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)-(\w+)-(\w+)$").expect("valid regex")
        });
        let c = RE.captures(name)?;
        let version = Version::new(c[1].parse().ok()?, c[2].parse().ok()?, c[3].parse().ok()?);
        Some((version, Platform { os: c[4].to_string(), arch: c[5].to_string() }))
    }

    /// Reads a release archive name (`envtest-v1.30.2-linux-amd64.tar.gz`).
    pub fn parse_archive_name(name: &str) -> Option<(Version, Platform)> {
        Platform::parse_dir_name(name.strip_prefix("envtest-v")?.strip_suffix(".tar.gz")?)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.os, self.arch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let p = Platform { os: "linux".into(), arch: "ppc64le".into() };
        let v = Version::new(1, 30, 2);
        assert_eq!(p.dir_name(v), "1.30.2-linux-ppc64le");
        assert_eq!(p.archive_name(v), "envtest-v1.30.2-linux-ppc64le.tar.gz");
        assert_eq!(Platform::parse_dir_name("1.30.2-linux-ppc64le"), Some((v, p.clone())));
        assert_eq!(Platform::parse_archive_name("envtest-v1.30.2-linux-ppc64le.tar.gz"), Some((v, p)));
        assert_eq!(Platform::parse_dir_name("1.30-linux-amd64"), None);
        assert_eq!(Platform::parse_dir_name(".kubesmith-x1.30.2-linux-amd64"), None);
        assert_eq!(Platform::parse_archive_name("kubebuilder-tools-1.30.2-linux-amd64.tar.gz"), None);
    }

    #[test]
    fn flags_override_the_host_and_are_checked() {
        let p = Platform::with(Some("darwin"), Some("arm64")).unwrap();
        assert_eq!(p.to_string(), "darwin/arm64");
        assert_eq!(Platform::with(None, None).unwrap(), Platform::host());
        assert!(Platform::with(Some("../x"), None).unwrap_err().to_string().contains("`../x` is no operating system"));
        assert!(Platform::with(None, Some("")).is_err());
        assert_eq!(Platform::with(Some("windows"), None).unwrap().exe("etcd"), "etcd.exe");
    }
}
