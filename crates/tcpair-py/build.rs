//! Stamps the extension with a fingerprint of the simulator's source.
//!
//! The results store keys every run by scenario, seed and tcpair version. A
//! release version alone would let a development build reuse runs made by
//! different simulator code; the fingerprint (FNV-1a over the Rust sources of
//! both crates, in path order) changes whenever that code does.

use std::fs;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            out.push(path);
        }
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let roots = [
        here.join("src"),
        here.join("Cargo.toml"),
        here.join("../tcpair-core/src"),
        here.join("../tcpair-core/Cargo.toml"),
    ];
    let mut files = Vec::new();
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
        if root.is_dir() {
            collect(root, &mut files);
        } else {
            files.push(root.clone());
        }
    }
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for f in &files {
        // Paths relative to this crate, so the stamp does not depend on
        // where the checkout lives.
        let rel = f.strip_prefix(&here).unwrap_or(f);
        feed(rel.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&fs::read(f).unwrap_or_default());
        feed(&[0]);
    }
    println!("cargo:rustc-env=TCPAIR_SOURCE_HASH={hash:016x}");
}
