//! ARCHITECTURE.md's invariants "no import cycle between the core's modules" and "no circles
//! inside folders", read from the real `use` trees of both crates (`crates/roofline/src` and the
//! app's `src/`, less its binaries `main.rs` and `bin/`).
//!
//! A small tokenizer (comments, strings, raw strings, chars and lifetimes, `r#` identifiers)
//! feeds a reader of
//! - `use` trees: brace groups, `self`, `super`, `crate`, `$crate`, aliases (`as`, `as _`), globs,
//!   `pub use` re-exports, at any depth (a function's own `use` counts for its module);
//! - paths in code that start at `crate::`, `$crate::`, `self::`, `super::` (repeated), a child
//!   module or an imported name (`crate::op::Op::default_for(..)`, `derivation::line(..)`);
//! - macro calls (`op_fields!`, `id_enum!`), which depend on the module that defines the macro.
//!
//! Each path is resolved through the module tree, the imports of each module (so a crate-root
//! re-export `crate::Op` leads to `op`, and `super::X` to the sibling that `mod.rs` imports `X`
//! from) and glob imports, to the module that defines the item. `#[cfg(test)]` modules and items
//! are left out: tests may reach anywhere.
//!
//! Every edge then counts at one level: between the two children of the two modules' deepest
//! common ancestor (`analysis::composite` → `analysis::derivation` is an edge of the folder
//! `analysis`; `view::rows` → `charts::model` one of the crate root). A module and its own
//! descendants (`mod.rs` re-exporting a child, the child using `super::X`) are not a circle.
//! Known limitation: names brought in by `use super::*` and then used bare are not followed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The core's top-level modules, bottom first: each may import only modules listed before it
/// (ARCHITECTURE.md's code map describes each). A new module gets its place here.
const LAYERS: &[&str] = &[
    "error",
    "json",
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
    "inputs",
    "results",
];

/// The circles that exist today, as `crate: folder::{members}` (each a strongly connected set
/// of sibling modules): none since issue 22 took the last ones apart. The test fails when the
/// circles found differ from this list: a new circle fails (a deliberate one must be listed
/// here, with why), and one that is removed must leave the list too.
const KNOWN_CIRCLES: &[&str] = &[];

mod reader;

use reader::{m, read_file, FileFacts, ModPath};

// ---------------------------------------------------------------------------------------------
// A crate: its modules, names and edges

/// One reason for an edge: the file and line that names the other module.
#[derive(Clone, Debug)]
struct Evidence {
    file: String,
    line: usize,
}

struct Crate {
    name: &'static str,
    modules: BTreeSet<ModPath>,
    /// Per module: name → absolute path (from its `use` items, pub or not).
    bindings: BTreeMap<ModPath, BTreeMap<String, Vec<String>>>,
    globs: BTreeMap<ModPath, Vec<Vec<String>>>,
    items: BTreeMap<ModPath, BTreeSet<String>>,
    macros: BTreeMap<String, Vec<ModPath>>,
    /// From module → to module → the first place that says so.
    edges: BTreeMap<ModPath, BTreeMap<ModPath, Evidence>>,
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

/// The module a file holds by its place under `src/` (`op/llm.rs` → `op::llm`, `op/mod.rs`
/// → `op`, `lib.rs` → the root).
fn module_of_file(rel: &Path) -> ModPath {
    let mut m: ModPath = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib")) {
        m.pop();
    }
    m
}

impl Crate {
    /// Reads `files`: (path shown in messages, module, text).
    fn from_texts(name: &'static str, files: &[(String, ModPath, String)]) -> Crate {
        let facts: Vec<(String, FileFacts)> = files
            .iter()
            .map(|(shown, m, text)| (shown.clone(), read_file(text, m)))
            .collect();
        let test_modules: Vec<ModPath> = facts
            .iter()
            .flat_map(|(_, f)| f.test_modules.clone())
            .collect();
        let test_paths: Vec<String> = facts
            .iter()
            .flat_map(|(_, f)| f.test_paths.clone())
            .collect();
        let is_test = |shown: &str, m: &ModPath| {
            test_modules.iter().any(|t| m.starts_with(t))
                || test_paths.iter().any(|p| shown.ends_with(p.as_str()))
        };
        let mut c = Crate {
            name,
            modules: BTreeSet::new(),
            bindings: BTreeMap::new(),
            globs: BTreeMap::new(),
            items: BTreeMap::new(),
            macros: BTreeMap::new(),
            edges: BTreeMap::new(),
        };
        let kept: Vec<&(String, FileFacts)> = facts
            .iter()
            .zip(files)
            .filter(|((shown, _), (_, m, _))| !is_test(shown, m))
            .map(|(f, _)| f)
            .collect();
        for ((_, m, _), (shown, _)) in files.iter().zip(&facts) {
            if !is_test(shown, m) {
                c.modules.insert(m.clone());
            }
        }
        for (_, f) in &kept {
            c.modules.extend(f.inline_modules.iter().cloned());
            for (m, item) in &f.items {
                c.items.entry(m.clone()).or_default().insert(item.clone());
            }
            for (m, mac) in &f.macro_defs {
                c.macros.entry(mac.clone()).or_default().push(m.clone());
            }
        }
        // Imports, made absolute: a binding may name another (`use super::x; use x::Y;`), so
        // repeat until nothing changes.
        for _ in 0..4 {
            for (_, f) in &kept {
                for u in &f.uses {
                    let Some(abs) = c.absolute(&u.path.module, &u.path.segs) else {
                        continue;
                    };
                    if u.name == "*" {
                        let g = c.globs.entry(u.path.module.clone()).or_default();
                        if !g.contains(&abs) {
                            g.push(abs);
                        }
                    } else if u.name != "_" {
                        c.bindings
                            .entry(u.path.module.clone())
                            .or_default()
                            .insert(u.name.clone(), abs);
                    }
                }
            }
        }
        for (shown, f) in &kept {
            let written = f.uses.iter().map(|u| &u.path).chain(&f.paths);
            for w in written {
                if let Some(target) = c
                    .absolute(&w.module, &w.segs)
                    .and_then(|a| c.resolve(&a, 0))
                {
                    c.add_edge(&w.module, target, shown, w.line);
                }
            }
            for (m, mac, line) in &f.macro_calls {
                let defs = c.macros.get(mac).cloned().unwrap_or_default();
                if defs.iter().any(|d| d == m) {
                    continue; // its own macro
                }
                for d in defs {
                    c.add_edge(m, d, shown, *line);
                }
            }
        }
        c
    }

    fn add_edge(&mut self, from: &ModPath, to: ModPath, file: &str, line: usize) {
        if from != &to {
            let ev = Evidence {
                file: file.to_string(),
                line,
            };
            self.edges
                .entry(from.clone())
                .or_default()
                .entry(to)
                .or_insert(ev);
        }
    }

    /// Whether `name` means something in module `m` (a child module, an item or an import).
    fn names(&self, m: &ModPath, name: &str) -> bool {
        let mut child = m.clone();
        child.push(name.to_string());
        self.modules.contains(&child)
            || self.items.get(m).is_some_and(|s| s.contains(name))
            || self.bindings.get(m).is_some_and(|b| b.contains_key(name))
    }

    /// A path written in module `m`, from the crate root; `None` for another crate's.
    fn absolute(&self, m: &ModPath, segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?;
        let mut base: Vec<String> = m.clone();
        let rest: &[String] = match first.as_str() {
            "::" => return None,
            "crate" => {
                base.clear();
                &segs[1..]
            }
            "self" => &segs[1..],
            "super" => {
                let ups = segs.iter().take_while(|s| *s == "super").count();
                for _ in 0..ups {
                    base.pop()?;
                }
                &segs[ups..]
            }
            _ => {
                // Relative: an import of this module, or a child module or item of it.
                if let Some(target) = self.bindings.get(m).and_then(|b| b.get(first)) {
                    let mut p = target.clone();
                    p.extend(segs[1..].iter().cloned());
                    return Some(p);
                }
                if !self.names(m, first) {
                    return None; // std, a dependency, a local variable, a generic
                }
                segs
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The module that defines what an absolute path names, through imports and globs.
    fn resolve(&self, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let mut cur: ModPath = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            let mut child = cur.clone();
            child.push(seg.clone());
            if self.modules.contains(&child) {
                cur = child;
                continue;
            }
            if self.items.get(&cur).is_some_and(|s| s.contains(seg)) {
                return Some(cur);
            }
            if let Some(target) = self.bindings.get(&cur).and_then(|b| b.get(seg)) {
                let mut p = target.clone();
                p.extend(path[i + 1..].iter().cloned());
                return self.resolve(&p, depth + 1);
            }
            for g in self.globs.get(&cur).into_iter().flatten() {
                if self.modules.contains(g) && self.names(g, seg) {
                    let mut p = g.clone();
                    p.extend(path[i..].iter().cloned());
                    return self.resolve(&p, depth + 1);
                }
            }
            return Some(cur);
        }
        Some(cur)
    }

    /// Each edge at its level: folder → (child → children it depends on, with evidence).
    /// Edges between a module and its own descendants are dropped.
    fn levels(&self) -> BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, Evidence>>> {
        let mut out: BTreeMap<ModPath, BTreeMap<String, BTreeMap<String, Evidence>>> =
            BTreeMap::new();
        for (from, tos) in &self.edges {
            for (to, ev) in tos {
                let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
                if common == from.len() || common == to.len() {
                    continue;
                }
                out.entry(from[..common].to_vec())
                    .or_default()
                    .entry(from[common].clone())
                    .or_default()
                    .entry(to[common].clone())
                    .or_insert_with(|| ev.clone());
            }
        }
        out
    }

    /// Every circle: a strongly connected set of two or more siblings, as
    /// `crate: folder::{a, b}` with the edges inside it.
    fn circles(&self) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for (folder, g) in self.levels() {
            let nodes: BTreeSet<&String> =
                g.keys().chain(g.values().flat_map(|d| d.keys())).collect();
            let reach = |from: &String| -> BTreeSet<String> {
                let mut seen = BTreeSet::new();
                let mut todo = vec![from.clone()];
                while let Some(n) = todo.pop() {
                    for d in g.get(&n).into_iter().flat_map(|d| d.keys()) {
                        if seen.insert(d.clone()) {
                            todo.push(d.clone());
                        }
                    }
                }
                seen
            };
            let reaches: BTreeMap<&String, BTreeSet<String>> =
                nodes.iter().map(|n| (*n, reach(n))).collect();
            let mut done = BTreeSet::new();
            for n in &nodes {
                if done.contains(*n) || !reaches[n].contains(*n) {
                    continue;
                }
                let members: BTreeSet<String> = nodes
                    .iter()
                    .filter(|m| reaches[n].contains(**m) && reaches[*m].contains(*n))
                    .map(|m| (*m).clone())
                    .collect();
                done.extend(members.iter().cloned());
                let prefix = if folder.is_empty() {
                    String::new()
                } else {
                    format!("{}::", folder.join("::"))
                };
                let name = format!(
                    "{}: {prefix}{{{}}}",
                    self.name,
                    members.iter().cloned().collect::<Vec<_>>().join(", ")
                );
                let mut edges = Vec::new();
                for a in &members {
                    for (b, ev) in g.get(a).into_iter().flatten() {
                        if members.contains(b) {
                            edges.push(format!("{a} → {b} ({}:{})", ev.file, ev.line));
                        }
                    }
                }
                out.push((name, edges));
            }
        }
        out
    }
}

fn read_crate(name: &'static str, src: &Path) -> Crate {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let texts: Vec<(String, ModPath, String)> = files
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(src).unwrap();
            // The app's binaries are crates of their own.
            if rel == Path::new("main.rs") || rel.starts_with("bin") {
                return None;
            }
            let shown = format!("{name}/src/{}", rel.display());
            Some((
                shown,
                module_of_file(rel),
                std::fs::read_to_string(p).unwrap(),
            ))
        })
        .collect();
    Crate::from_texts(name, &texts)
}

fn core() -> Crate {
    read_crate(
        "roofline",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    )
}

fn app() -> Crate {
    read_crate(
        "roofline-lab",
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src"),
    )
}

#[test]
fn the_circles_are_the_known_ones() {
    let mut found = core().circles();
    found.extend(app().circles());
    let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
    let mut report = String::new();
    for (name, edges) in &found {
        report.push_str(&format!("\n{name}\n    {}", edges.join("\n    ")));
    }
    assert_eq!(
        names, KNOWN_CIRCLES,
        "the import circles found (left) differ from KNOWN_CIRCLES (right) in tests/it/module_deps.rs:{report}"
    );
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let c = core();
    let levels = c.levels();
    let top = levels.get(&Vec::new()).cloned().unwrap_or_default();
    for m in c.modules.iter().filter(|m| m.len() == 1) {
        assert!(
            LAYERS.contains(&m[0].as_str()),
            "module `{}` is not in LAYERS (tests/it/module_deps.rs)",
            m[0]
        );
    }
    let mut wrong = Vec::new();
    for (m, deps) in &top {
        let rank = LAYERS.iter().position(|l| l == m).unwrap();
        for (d, ev) in deps {
            let dr = LAYERS.iter().position(|l| l == d).unwrap();
            if dr >= rank {
                wrong.push(format!("`{m}` imports `{d}` ({}:{})", ev.file, ev.line));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports of a layer that is not below, against LAYERS {LAYERS:?}:\n{}",
        wrong.join("\n")
    );
}

/// A planted crate: re-exports at the root and in `mod.rs`, `super::` through a parent's
/// import, a macro, and a circle inside a folder; the circles and edges come out right.
#[test]
fn resolution_and_circles_on_a_planted_crate() {
    let files = [
        (
            "lib.rs",
            "",
            "pub mod low; pub mod high; pub mod fam; pub use low::Thing;",
        ),
        (
            "low.rs",
            "low",
            "pub struct Thing; macro_rules! mk { () => {} }",
        ),
        ("high.rs", "high", "fn f() { crate::Thing::new(); mk!(); }"),
        (
            "fam/mod.rs",
            "fam",
            "mod a; mod b; mod c; pub use self::a::{A, AA as Renamed}; pub use b::*;",
        ),
        (
            "fam/a.rs",
            "fam::a",
            "pub struct A; pub struct AA; fn f() { super::B::go(); }",
        ),
        (
            "fam/b.rs",
            "fam::b",
            "pub struct B; use super::Renamed; use super::super::high;",
        ),
        ("fam/c.rs", "fam::c", "use super::A; use crate::Thing;"),
    ];
    let files: Vec<(String, ModPath, String)> = files
        .iter()
        .map(|(f, md, t)| (f.to_string(), m(md), t.to_string()))
        .collect();
    let c = Crate::from_texts("planted", &files);
    let edges = |from: &str| -> Vec<String> {
        c.edges
            .get(&m(from))
            .map(|e| e.keys().map(|k| k.join("::")).collect())
            .unwrap_or_default()
    };
    assert_eq!(edges("high"), ["low"]); // through the root re-export, and the macro
    assert_eq!(edges("fam::a"), ["fam::b"]); // `super::B`, through the glob in mod.rs
    assert_eq!(edges("fam::b"), ["fam::a", "high"]); // `super::Renamed` is `a::AA`
    assert_eq!(edges("fam::c"), ["fam::a", "low"]);
    let circles: Vec<String> = c.circles().into_iter().map(|(n, _)| n).collect();
    assert_eq!(circles, ["planted: fam::{a, b}"]);
}

/// The core's doors (issue 41): the only modules of the core the app names, through paths
/// that say which door (no glob, no renamed import, no item taken from the crate's root).
const DOORS: &[&str] = &["inputs", "results", "url", "units", "profile", "validation"];

/// What the app's text names of the core that is not a door: `roofline::<module>` paths
/// outside [`DOORS`], `roofline::<Item>` from the root, `use roofline::{…}`, globs and
/// renames (the app's own modules are never called `roofline`).
fn off_door_paths(file: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(k) = rest.find("roofline::") {
            let before = rest[..k].chars().next_back();
            let after = &rest[k + "roofline::".len()..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let tail = &after[name.len()..];
            let door = DOORS.contains(&name.as_str());
            let glob = door && tail.split(';').next().unwrap_or("").contains("::*");
            let renamed = door
                && line.trim_start().starts_with("use ")
                && tail.split(';').next().unwrap_or("").contains(" as ");
            if !door || glob || renamed {
                out.push(format!("{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn the_app_names_only_the_core_doors() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let found: Vec<String> = files
        .iter()
        .flat_map(|p| {
            let rel = p.strip_prefix(&src).unwrap().display().to_string();
            off_door_paths(&rel, &std::fs::read_to_string(p).unwrap())
        })
        .collect();
    assert!(
        found.is_empty(),
        "the app reaches the core through {DOORS:?} only:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_door_check_sees_what_it_must() {
    let bad = "use roofline::op::Op;\nuse roofline::Chip;\nuse roofline::{Op, Chip};\n\
               use roofline::results::*;\nuse roofline::inputs::Op as O;\n";
    assert_eq!(off_door_paths("x.rs", bad).len(), 5);
    let good = "use roofline::inputs::{Chip, Op};\nuse crate::charts::roofline_chart::draw;\n\
                let a = roofline::results::analyze(&op, &chip, &o);\n";
    assert!(off_door_paths("x.rs", good).is_empty());
}
