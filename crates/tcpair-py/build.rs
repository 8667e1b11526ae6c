//! Stamps the extension with a fingerprint of the simulator's source.
//!
//! The results store keys every run by scenario, seed and tcpair version. A
//! release version alone would let a development build reuse runs made by
//! different simulator code; the fingerprint (`build/fingerprint.rs`: the
//! Rust sources of both crates and the workspace `Cargo.lock`) changes
//! whenever that code or a dependency's version does. A file that cannot be
//! read stops the build, naming it.

#[path = "build/fingerprint.rs"]
mod fingerprint;

use std::path::PathBuf;

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let roots = fingerprint::roots(&here);
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
    }
    let hash = fingerprint::files(&roots).and_then(|files| fingerprint::fingerprint(&here, &files));
    match hash {
        Ok(hash) => println!("cargo:rustc-env=TCPAIR_SOURCE_HASH={hash:016x}"),
        Err(e) => {
            eprintln!("error: the run-key fingerprint of tcpair's sources: {e}");
            std::process::exit(1);
        }
    }
}
