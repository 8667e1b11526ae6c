//! The fingerprint of what the simulator's numbers depend on: the Rust
//! sources and manifests of both crates, and the workspace `Cargo.lock`,
//! which pins the exact versions of the dependencies whose random draws
//! (rand, rand_distr) and arithmetic every run uses. FNV-1a over each file's
//! path (relative to the extension's crate) and bytes, in path order.
//!
//! Used by `build.rs` (through `#[path]`) and tested by
//! `tests/fingerprint.rs`.

use std::fs;
use std::path::{Path, PathBuf};

/// The files and folders hashed, for the crate at `here`
/// (`CARGO_MANIFEST_DIR` of tcpair-py); each is also a
/// `cargo:rerun-if-changed` of the build script.
pub fn roots(here: &Path) -> Vec<PathBuf> {
    vec![
        here.join("src"),
        here.join("Cargo.toml"),
        here.join("../tcpair-core/src"),
        here.join("../tcpair-core/Cargo.toml"),
        here.join("../../Cargo.lock"),
    ]
}

/// Every `.rs` and `.toml` file under `dir`, or an error naming what could
/// not be listed.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot list {}: {e}", dir.display());
    for entry in fs::read_dir(dir).map_err(cannot)? {
        let path = entry.map_err(cannot)?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            out.push(path);
        }
    }
    Ok(())
}

/// The files of `roots` (a folder stands for its sources), in path order.
pub fn files(roots: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for root in roots {
        if root.is_dir() {
            collect(root, &mut files)?;
        } else {
            files.push(root.clone());
        }
    }
    files.sort();
    Ok(files)
}

/// The fingerprint of `files`, their paths taken relative to `here` so that
/// it does not depend on where the checkout lives; an error naming the first
/// file that cannot be read (never hashed as empty).
pub fn fingerprint(here: &Path, files: &[PathBuf]) -> Result<u64, String> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for f in files {
        let bytes = fs::read(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let rel = f.strip_prefix(here).unwrap_or(f);
        feed(rel.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&bytes);
        feed(&[0]);
    }
    Ok(hash)
}
