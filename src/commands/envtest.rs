//! `kubesmith envtest use|list|cleanup`: setup-envtest's job — find or download the etcd, kube-apiserver and
//! kubectl binaries envtest-style tests need, list them, remove them — over `crate::envtest`. Writes only in the
//! envtest store (a version folder at a time), never project files.

use std::path::{Component, Path, PathBuf};

use anyhow::{Result, bail};

use crate::cli::{EnvtestCleanupArgs, EnvtestCommand, EnvtestListArgs, EnvtestPlaceArgs, EnvtestPrint, EnvtestUseArgs};
use crate::envtest::index::{self, Index};
use crate::envtest::installed::{Found, Origin, Places};
use crate::envtest::platform::Platform;
use crate::envtest::store::Store;
use crate::envtest::version::{Selector, Version};
use crate::envtest::{INDEX_ENV, fetch, folder};
use crate::output;
use crate::usage::UsageError;

/// Runs one `envtest` subcommand.
pub fn run(command: &EnvtestCommand, cwd: &Path) -> Result<()> {
    match command {
        EnvtestCommand::Use(args) => use_version(args, cwd),
        EnvtestCommand::List(args) => list(args, cwd),
        EnvtestCommand::Cleanup(args) => cleanup(args, cwd),
    }
}

fn selector(version: Option<&str>) -> Result<Selector> {
    Ok(Selector::parse(version.unwrap_or("")).map_err(|e| UsageError(e.to_string()))?)
}

fn platform(place: &EnvtestPlaceArgs) -> Result<Platform> {
    Ok(Platform::with(place.os.as_deref(), place.arch.as_deref()).map_err(|e| UsageError(e.to_string()))?)
}

/// `path` made absolute against `cwd`, without `.` components.
fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    cwd.join(path).components().filter(|c| *c != Component::CurDir).collect()
}

fn places(place: &EnvtestPlaceArgs, cwd: &Path) -> Result<Places> {
    let bin_dir = place.bin_dir.as_deref().map(|d| absolute(d, cwd));
    let assets = std::env::var_os("KUBEBUILDER_ASSETS").filter(|v| !v.is_empty()).map(|v| absolute(Path::new(&v), cwd));
    // The default store is searched last, so an unset $HOME only matters when nothing else is given.
    let store = match Store::default_root() {
        Ok(root) => Store::at(absolute(&root, cwd)),
        Err(e) if bin_dir.is_some() => {
            output::detail(format_args!("note: {e:#}"));
            Store::at(bin_dir.clone().expect("checked"))
        }
        Err(e) => return Err(e),
    };
    Ok(Places { bin_dir, assets, store })
}

fn index_url(flag: Option<&str>) -> String {
    flag.map(str::to_string)
        .or_else(|| std::env::var(INDEX_ENV).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| index::DEFAULT_URL.to_string())
}

/// Fetches and reads the index, failing with what to do offline.
fn load_index(url: &str) -> Result<Index> {
    let text = fetch::text(url).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the envtest release index {url} ({e:#}): pass --bin-dir DIR or set KUBEBUILDER_ASSETS to a \
             folder holding kube-apiserver and etcd, or pass --index URL (or set {INDEX_ENV}) naming a copy of the \
             index you can reach"
        )
    })?;
    Index::parse(url, &text)
}

/// Searches the places, printing the warnings about folders whose version cannot be told.
fn search(places: &Places, platform: &Platform) -> Result<Vec<Vec<Found>>> {
    let (found, warnings) = places.search(platform)?;
    for w in warnings {
        output::warn(w);
    }
    Ok(found)
}

fn use_version(args: &EnvtestUseArgs, cwd: &Path) -> Result<()> {
    let selector = selector(args.version.as_deref())?;
    let platform = platform(&args.place)?;
    if args.installed_only && selector.check_index {
        return Err(UsageError(format!(
            "`{selector}` asks the release index for a newer version and --installed-only forbids reading it: drop \
             the `!` or --installed-only"
        ))
        .into());
    }
    let places = places(&args.place, cwd)?;
    let found = search(&places, &platform)?;
    // The first place holding a match wins; in it, the newest match.
    let installed = found.iter().find_map(|place| place.iter().find(|f| selector.matches(f.version)));
    if let Some(f) = installed
        && !selector.check_index
    {
        return print(f, args.print);
    }
    if args.installed_only {
        return Err(nothing_installed(&selector, &platform, &places, &found, args.place.bin_dir.as_deref()));
    }
    let url = index_url(args.index.as_deref());
    let index = match (load_index(&url), installed) {
        (Ok(index), _) => index,
        (Err(e), Some(f)) => {
            output::warn(format_args!("warning: {e:#}; using the installed {}", f.version));
            return print(f, args.print);
        }
        (Err(e), None) => return Err(offline(e, &selector, &platform, &places, &found, args)),
    };
    let Some(archive) = index.newest(&selector, &platform) else {
        if let Some(f) = installed {
            return print(f, args.print);
        }
        bail!(unknown_version(&selector, &platform, &index));
    };
    if let Some(f) = installed.filter(|f| f.version >= archive.version) {
        return print(f, args.print);
    }
    // The release may be installed in a later place than the one that held an older match.
    if let Some(f) = found.iter().flatten().find(|f| f.version == archive.version) {
        return print(f, args.print);
    }
    let store = places.target();
    let entry = store.install(archive)?;
    output::status(format_args!("installed envtest {} ({}) in {}", entry.version, entry.platform, entry.dir.display()));
    print(
        &Found {
            version: entry.version,
            platform: entry.platform,
            dir: entry.dir,
            origin: Origin::Downloaded(archive.url.clone()),
        },
        args.print,
    )
}

/// The index cannot be read and nothing installed matches: what is installed where, why none of it is taken, and
/// only the ways out the command line has not tried already.
fn offline(
    e: anyhow::Error,
    selector: &Selector,
    platform: &Platform,
    places: &Places,
    found: &[Vec<Found>],
    args: &EnvtestUseArgs,
) -> anyhow::Error {
    let what = if selector.is_latest() { String::new() } else { format!(" {selector}") };
    let reason = format!("{e:#}");
    let reason = reason.split(": pass --bin-dir").next().unwrap_or(&reason);
    let installed: Vec<&Found> = found.iter().flatten().collect();
    let mut message = format!("no installed envtest{what} for {platform}, and {reason}");
    if installed.is_empty() {
        message.push_str(&format!("; nothing is installed in {}", places.searched().join(", ")));
    } else {
        let list: Vec<String> =
            installed.iter().map(|f| format!("{} ({} {})", f.version, f.origin.describe(), f.dir.display())).collect();
        message.push_str(&format!("; what is installed does not match{what}: {}", list.join(", ")));
    }
    let mut ways = vec![format!("run this command where the index can be reached, and it downloads{what}")];
    if let Some(f) = installed.first() {
        let mut command = format!("kubesmith envtest use {}", f.version);
        if let Some(bin) = &args.place.bin_dir {
            command.push_str(&format!(" --bin-dir {}", bin.display()));
        }
        ways.push(format!("ask for an installed version (`{command}`)"));
    }
    if places.bin_dir.is_none() && places.assets.is_none() {
        ways.push("pass --bin-dir DIR or set KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd".into());
    }
    ways.push(format!("pass --index URL (or set {INDEX_ENV}) naming a copy of the index you can reach"));
    anyhow::anyhow!("{message}: {}", ways.join(", or "))
}

/// `no envtest binaries for 1.30.x (linux/amd64) in ...: run ...`.
fn nothing_installed(
    selector: &Selector,
    platform: &Platform,
    places: &Places,
    found: &[Vec<Found>],
    bin_dir: Option<&Path>,
) -> anyhow::Error {
    let mut others: Vec<Version> = found.iter().flatten().map(|f| f.version).collect();
    others.sort_by_key(|v| std::cmp::Reverse(*v));
    others.dedup();
    let what = if selector.is_latest() { String::new() } else { format!(" for {selector}") };
    let others = if others.is_empty() {
        String::new()
    } else {
        format!(" (installed: {})", others.iter().map(Version::to_string).collect::<Vec<_>>().join(", "))
    };
    let mut command = String::from("kubesmith envtest use");
    if !selector.is_latest() {
        command.push_str(&format!(" {selector}"));
    }
    if let Some(bin) = bin_dir {
        command.push_str(&format!(" --bin-dir {}", bin.display()));
    }
    anyhow::anyhow!(
        "no envtest binaries{what} ({platform}) in {}{others}: run `{command}` to download them, or pass --bin-dir DIR \
         with a folder holding kube-apiserver and etcd",
        places.searched().join(", ")
    )
}

/// The index has no release the selector takes for the platform.
fn unknown_version(selector: &Selector, platform: &Platform, index: &Index) -> String {
    let available: Vec<Version> = index.for_platform(platform).map(|a| a.version).collect();
    if available.is_empty() {
        let platforms: Vec<String> = index.platforms().into_iter().collect();
        return format!(
            "the envtest release index {} has no release for {platform} (it has {}): pass --os and --arch for one of them",
            index.url,
            if platforms.is_empty() { "none".to_string() } else { platforms.join(", ") }
        );
    }
    let nearest: Vec<String> = selector.nearest(&available, 5).iter().map(Version::to_string).collect();
    format!(
        "the envtest release index {} has no release {selector} for {platform}; the nearest are {}: pass one of \
         them (`kubesmith envtest list` shows them all)",
        index.url,
        nearest.join(", ")
    )
}

/// `'it'\''s'`: a single-quoted shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn print(found: &Found, format: EnvtestPrint) -> Result<()> {
    let dir = found.dir.display().to_string();
    match format {
        EnvtestPrint::Path => println!("{dir}"),
        EnvtestPrint::Env => println!("export KUBEBUILDER_ASSETS={}", shell_quote(&dir)),
        EnvtestPrint::Overview => {
            println!("version:  {}", found.version);
            println!("platform: {}", found.platform);
            println!("path:     {dir}");
            println!("source:   {}", found.origin.describe());
        }
    }
    Ok(())
}

fn list(args: &EnvtestListArgs, cwd: &Path) -> Result<()> {
    let selector = selector(args.version.as_deref())?;
    let platform = platform(&args.place)?;
    let places = places(&args.place, cwd)?;
    let mut installed: Vec<Found> = search(&places, &platform)?.into_iter().flatten().collect();
    installed.retain(|f| selector.matches(f.version));
    let mut seen = std::collections::BTreeSet::new();
    installed.retain(|f| seen.insert(f.dir.clone()));
    installed.sort_by_key(|f| std::cmp::Reverse(f.version));
    let mut rows: Vec<[String; 4]> = installed
        .iter()
        .map(|f| {
            let place = match f.origin {
                Origin::Store | Origin::BinDirStore => String::new(),
                _ => format!(" ({})", f.origin.describe()),
            };
            ["installed".into(), f.version.to_string(), f.platform.to_string(), format!("{}{place}", f.dir.display())]
        })
        .collect();
    let index = if args.installed_only { Ok(None) } else { load_index(&index_url(args.index.as_deref())).map(Some) };
    if let Ok(Some(index)) = &index {
        rows.extend(
            index
                .for_platform(&platform)
                .filter(|a| selector.matches(a.version))
                .map(|a| ["available".into(), a.version.to_string(), a.platform.to_string(), String::new()]),
        );
    }
    let widths: Vec<usize> = (0..3).map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0)).collect();
    for r in &rows {
        let line = format!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
        println!("{}", line.trim_end());
    }
    if rows.is_empty() && index.is_ok() {
        let what = if selector.is_latest() { String::new() } else { format!(" matching {selector}") };
        let searched = places.searched().join(", ");
        output::info(format_args!(
            "no envtest versions{what} for {platform}: none installed in {searched}{}",
            if args.installed_only { "" } else { ", none in the index" }
        ));
    }
    match index {
        // Offline, what is installed is the answer: say the index was not read, but do not fail.
        Err(e) if !rows.is_empty() => {
            output::warn(format_args!(
                "warning: only installed versions are listed: {e:#}\n  pass --installed-only to skip the index"
            ));
            Ok(())
        }
        other => other.map(|_| ()),
    }
}

fn cleanup(args: &EnvtestCleanupArgs, cwd: &Path) -> Result<()> {
    let selector = selector(args.version.as_deref())?;
    let platform = platform(&args.place)?;
    let store = match &args.place.bin_dir {
        Some(bin) => {
            let bin = absolute(bin, cwd);
            if folder::holds_binaries(&bin, &Platform::host()) {
                output::warn(format_args!(
                    "note: {} holds envtest binaries itself, not in the store layout (k8s/<version>-<os>-<arch>/): \
                     kubesmith never removes such a folder; delete it yourself when you no longer need it",
                    bin.display()
                ));
            }
            Store::at(bin)
        }
        None => Store::at(absolute(&Store::default_root()?, cwd)),
    };
    let doomed: Vec<_> =
        store.entries()?.into_iter().filter(|e| e.platform == platform && selector.matches(e.version)).collect();
    for entry in &doomed {
        store.remove(entry)?;
        output::change("remove", &entry.dir);
    }
    let what = if selector.is_latest() { String::new() } else { format!(" {selector}") };
    if doomed.is_empty() {
        output::info(format_args!(
            "nothing to remove: no envtest version{what} for {platform} in {}",
            store.versions_dir().display()
        ));
    } else {
        output::info(format_args!(
            "removed {} envtest version(s){what} for {platform} from {}",
            doomed.len(),
            store.versions_dir().display()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
        assert_eq!(shell_quote("/it's"), r"'/it'\''s'");
    }

    #[test]
    fn relative_folders_become_absolute() {
        assert_eq!(absolute(Path::new("./bin"), Path::new("/p")), PathBuf::from("/p/bin"));
        assert_eq!(absolute(Path::new("/abs"), Path::new("/p")), PathBuf::from("/abs"));
    }
}
