//! The layering of the core, checked from the sources: a module only uses
//! modules of lower layers (or its own), so the import graph has no cycle.
//! docs/architecture.md explains the layers; this list is their order, from
//! the bottom. A new top-level module needs a line here. Test-only files
//! (`tests.rs`, `*_tests.rs`) may also use the `testkit` harness.

use std::collections::BTreeSet;
use std::path::Path;

const LAYERS: &[&[&str]] = &[
    &["engine", "error", "units"],
    &["limits"],
    &["registry"],
    &["packet"],
    &["impair"],
    &["net"],
    &["bs"],
    &["schemes"],
    &["tcp"],
    &["metrics"],
    &["scenario"],
    &["sim"],
    &["testkit"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules named as `crate::<name>` in non-comment code,
/// grouped imports included: `use crate::{a::X, b::{c, d}};` names `a` and
/// `b`, across lines too.
fn uses(text: &str) -> BTreeSet<String> {
    let code: Vec<&str> = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect();
    let code = code.join("\n");
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = rest[i + "crate::".len()..].trim_start();
        match rest.strip_prefix('{') {
            Some(group) => group_heads(group, &mut out),
            None => insert(ident(rest), &mut out),
        }
    }
    out
}

/// The first name of each item of a group, `group` starting after its
/// `{`; nested groups name no top-level module.
fn group_heads(group: &str, out: &mut BTreeSet<String>) {
    let mut depth = 0;
    let mut item_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && depth == 0 && !c.is_whitespace() => {
                insert(ident(&group[i..]), out);
                item_start = false;
            }
            _ => {}
        }
    }
}

/// The identifier `text` starts with (empty if none).
fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

fn insert(name: &str, out: &mut BTreeSet<String>) {
    if !name.is_empty() {
        out.insert(name.to_string());
    }
}

#[test]
fn grouped_imports_name_their_top_level_modules() {
    let text = r"use crate::{
    sim::Sim, // not crate::bs
    tcp::{sender::{A, B}, sink},
    net as n,
};
use crate::engine::Time;
use crate::{metrics};
";
    let got: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(got, ["engine", "metrics", "net", "sim", "tcp"]);
}

fn visit(dir: &Path, top: Option<&str>, bad: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_str().unwrap().to_string();
        let module = top.map_or(name.clone(), str::to_string);
        if p.is_dir() {
            visit(&p, Some(&module), bad);
            continue;
        }
        if p.extension().and_then(|x| x.to_str()) != Some("rs")
            || module == "lib"
            || module == "bin"
        {
            continue;
        }
        let Some(mine) = layer_of(&module) else {
            bad.push(format!("{}: module {module:?} is in no layer", p.display()));
            continue;
        };
        let test_only = name == "tests" || name.ends_with("_tests");
        for used in uses(&std::fs::read_to_string(&p).unwrap()) {
            match layer_of(&used) {
                Some(l) if l < mine || used == module => {}
                Some(_) if test_only && used == "testkit" => {}
                Some(_) => bad.push(format!(
                    "{}: {module} uses {used} (a higher layer)",
                    p.display()
                )),
                None => bad.push(format!("{}: uses crate::{used}, in no layer", p.display())),
            }
        }
    }
}

#[test]
fn modules_only_use_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut bad = Vec::new();
    visit(&src, None, &mut bad);
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}
