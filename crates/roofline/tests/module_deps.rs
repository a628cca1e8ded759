//! ARCHITECTURE.md's invariant "no import cycle between the core's modules": reads the
//! `crate::` paths of every file under `src/` and checks that each top-level module imports
//! only modules below it in the layering, so dependencies run one way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The core's top-level modules, bottom first: each may import only modules listed before it
/// (ARCHITECTURE.md's code map describes each). A new module gets its place here.
const LAYERS: &[&str] = &[
    "error",
    "units",
    "ids",
    "dtype",
    "field",
    "chip",
    "arch",
    "collective",
    "profile",
    "train",
    "resource",
    "options",
    "eval",
    "op",
    "analysis",
    "sweep",
    "workload",
    "serving",
    "scenario",
    "url",
    "compare",
    "validation",
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`op/llm.rs` → `op`); `None` for `lib.rs`.
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src_dir()).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(m) => Some(m.to_string()),
        None => Some(first),
    }
}

/// The top-level modules a source text names through `crate::` (or `$crate::` in macros),
/// ignoring comments (doc links are not imports).
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let before = rest[..i].chars().last();
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') && !name.is_empty() {
                out.insert(name);
            }
            rest = after;
        }
    }
    out
}

/// Module → the other top-level modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(m) = module_of(f) else { continue };
        let text = std::fs::read_to_string(f).unwrap();
        let deps = g.entry(m.clone()).or_default();
        for d in crate_paths(&text) {
            // Crate-root re-exports (`crate::Op`) are not modules; lib.rs only declares.
            if d != m && modules.contains(&d) {
                deps.insert(d);
            }
        }
    }
    g
}

/// A cycle through `start`, if any (depth-first).
fn cycle_from(
    g: &BTreeMap<String, BTreeSet<String>>,
    node: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    if let Some(i) = path.iter().position(|p| p == node) {
        let mut c = path[i..].to_vec();
        c.push(node.to_string());
        return Some(c);
    }
    path.push(node.to_string());
    for d in g.get(node).into_iter().flatten() {
        if let Some(c) = cycle_from(g, d, path) {
            return Some(c);
        }
    }
    path.pop();
    None
}

#[test]
fn no_import_cycle_between_the_cores_modules() {
    let g = graph();
    for m in g.keys() {
        if let Some(c) = cycle_from(&g, m, &mut Vec::new()) {
            panic!("import cycle: {}", c.join(" → "));
        }
    }
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let g = graph();
    for (m, deps) in &g {
        let rank = LAYERS
            .iter()
            .position(|l| l == m)
            .unwrap_or_else(|| panic!("module `{m}` is not in LAYERS (tests/module_deps.rs)"));
        for d in deps {
            let dr = LAYERS.iter().position(|l| l == d).unwrap();
            assert!(
                dr < rank,
                "`{m}` imports `{d}`, which is not below it in LAYERS: {LAYERS:?}"
            );
        }
    }
}

/// The checker itself: it sees `crate::` and `$crate::` paths, skips comments and
/// identifiers that merely end in `crate`, and finds a planted cycle.
#[test]
fn the_checker_finds_paths_and_cycles() {
    let t = "use crate::op::{Op};\n// crate::url in a comment\nlet x = $crate::field::f;\nnotcrate::units";
    let got: Vec<String> = crate_paths(t).into_iter().collect();
    assert_eq!(got, ["field", "op"]);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycle_from(&g, "a", &mut Vec::new()).unwrap(),
        ["a", "b", "c", "a"]
    );
    g.get_mut("c").unwrap().clear();
    assert!(cycle_from(&g, "a", &mut Vec::new()).is_none());
}
