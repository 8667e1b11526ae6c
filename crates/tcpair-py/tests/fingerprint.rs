//! The run-key fingerprint of `build.rs`: what it hashes and how it fails.

#[path = "../build/fingerprint.rs"]
mod fingerprint;

use std::fs;
use std::path::{Path, PathBuf};

/// A workspace of the project's shape under the test's scratch folder:
/// both crates with a source file and a manifest, and a `Cargo.lock`
/// pinning `rand` at `rand_version`. The tcpair-py crate's folder.
fn workspace(name: &str, rand_version: &str) -> PathBuf {
    let top = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&top);
    for krate in ["tcpair-py", "tcpair-core"] {
        let dir = top.join("crates").join(krate);
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::write(dir.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        fs::write(
            dir.join("Cargo.toml"),
            format!("[package]\nname = \"{krate}\"\n"),
        )
        .unwrap();
    }
    lock(&top.join("crates/tcpair-py"), rand_version);
    top.join("crates/tcpair-py")
}

/// Write the workspace's `Cargo.lock` with `rand` at `version`.
fn lock(here: &Path, version: &str) {
    let text = format!("[[package]]\nname = \"rand\"\nversion = \"{version}\"\n");
    fs::write(here.join("../../Cargo.lock"), text).unwrap();
}

fn stamp(here: &Path) -> Result<u64, String> {
    let files = fingerprint::files(&fingerprint::roots(here))?;
    fingerprint::fingerprint(here, &files)
}

#[test]
fn the_workspace_lock_file_is_hashed() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lock = here.join("../../Cargo.lock").canonicalize().unwrap();
    let files = fingerprint::files(&fingerprint::roots(here)).unwrap();
    assert!(
        files
            .iter()
            .any(|f| f.canonicalize().ok() == Some(lock.clone())),
        "{} is not among the inputs",
        lock.display()
    );
    assert!(stamp(here).is_ok());
}

#[test]
fn a_dependency_update_changes_the_fingerprint() {
    let here = workspace("dependency_update", "0.8.5");
    let before = stamp(&here).unwrap();
    assert_eq!(
        stamp(&here).unwrap(),
        before,
        "the same tree, the same stamp"
    );
    lock(&here, "0.8.6");
    assert_ne!(stamp(&here).unwrap(), before);
}

#[test]
fn a_source_change_changes_the_fingerprint() {
    let here = workspace("source_change", "0.8.5");
    let before = stamp(&here).unwrap();
    fs::write(here.join("../tcpair-core/src/lib.rs"), "pub fn g() {}\n").unwrap();
    assert_ne!(stamp(&here).unwrap(), before);
}

#[test]
fn an_unreadable_input_is_an_error_naming_it() {
    let here = workspace("unreadable", "0.8.5");
    fs::remove_file(here.join("../../Cargo.lock")).unwrap();
    let e = stamp(&here).unwrap_err();
    assert!(e.contains("Cargo.lock"), "{e}");
}
