//! The reader of `tests/it/module_deps.rs`: Rust source to tokens, then what one file says
//! (its `use` trees, paths in code, macros, items and modules), and its own tests on tricky
//! inputs.

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
    /// A string literal's raw text (between the quotes); other literals are dropped.
    Str(String),
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: usize,
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Rust source → tokens, without comments; string literals keep their raw text, numbers,
/// chars and lifetimes are dropped; `r#name` is `name`.
pub(super) fn tokenize(src: &str) -> Vec<Token> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    // Skips a quoted literal starting at the opening quote `s[i]`; returns the index after it.
    let quoted = |mut i: usize, line: &mut usize| -> (usize, String) {
        let q = s[i];
        i += 1;
        let start = i;
        while i < s.len() && s[i] != q {
            if s[i] == '\\' {
                i += 1;
            }
            if at(i) == '\n' {
                *line += 1;
            }
            i += 1;
        }
        (i + 1, s[start..i.min(s.len())].iter().collect())
    };
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if s[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            let (next, text) = quoted(i, &mut line);
            out.push(Token {
                tok: Tok::Str(text),
                line,
            });
            i = next;
        } else if c == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                i = quoted(i, &mut line).0; // a char literal
            } else {
                i += 1; // a lifetime or label: its name is skipped as an identifier would be
                while is_ident_char(at(i)) {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while is_ident_char(at(i)) || (at(i) == '.' && at(i + 1).is_ascii_digit()) {
                i += 1;
            }
        } else if is_ident_start(c) {
            let start = i;
            while is_ident_char(at(i)) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            if raw_prefix && (at(i) == '"' || at(i) == '#') {
                let mut hashes = 0;
                while at(i + hashes) == '#' {
                    hashes += 1;
                }
                if at(i + hashes) == '"' {
                    // A raw string: ends at `"` followed by as many `#`.
                    i += hashes + 1;
                    let body = i;
                    while i < s.len() && !(s[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#')) {
                        if s[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    out.push(Token {
                        tok: Tok::Str(s[body..i.min(s.len())].iter().collect()),
                        line,
                    });
                    i += hashes + 1;
                } else if word == "r" && hashes == 1 && is_ident_start(at(i + 1)) {
                    // A raw identifier `r#name`.
                    let start = i + 1;
                    i = start;
                    while is_ident_char(at(i)) {
                        i += 1;
                    }
                    out.push(Token {
                        tok: Tok::Ident(s[start..i].iter().collect()),
                        line,
                    });
                } else {
                    out.push(Token {
                        tok: Tok::Ident(word),
                        line,
                    });
                }
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                let (next, text) = quoted(i, &mut line);
                out.push(Token {
                    tok: Tok::Str(text),
                    line,
                });
                i = next;
            } else if word == "b" && at(i) == '\'' {
                i = quoted(i, &mut line).0;
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line,
                });
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token {
                tok: Tok::Sep,
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                tok: Tok::Punct(c),
                line,
            });
            i += 1;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// What one file says

/// A module's path from its crate root (`["analysis", "composite"]`; the root is empty).
pub(super) type ModPath = Vec<String>;

/// A path as written, before resolution (`super::super::op::Op`, `crate::Op`, `derivation::f`).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Written {
    /// The module whose code writes it (a file's module, or an inline module inside it).
    pub(super) module: ModPath,
    pub(super) segs: Vec<String>,
    pub(super) line: usize,
}

/// One leaf of a `use` tree: `use a::{b as c}` gives path `a::b`, name `c`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct UseLeaf {
    pub(super) path: Written,
    /// The name it binds (`_` for `as _`, `*` for a glob).
    pub(super) name: String,
}

#[derive(Debug, Default)]
pub(super) struct FileFacts {
    pub(super) uses: Vec<UseLeaf>,
    /// Paths in code (not in `use` items) with at least two segments.
    pub(super) paths: Vec<Written>,
    /// Macro calls: (module, macro name, line).
    pub(super) macro_calls: Vec<(ModPath, String, usize)>,
    /// Macros defined (`macro_rules! name`): (module, name).
    pub(super) macro_defs: Vec<(ModPath, String)>,
    /// Items named at module level (fn, struct, enum, trait, type, const, static, union, mod).
    pub(super) items: Vec<(ModPath, String)>,
    /// Inline modules (`mod m { .. }`), not under `#[cfg(test)]`.
    pub(super) inline_modules: Vec<ModPath>,
    /// `#[cfg(test)] mod m;` (its module path) and `#[path = ".."]` targets under it.
    pub(super) test_modules: Vec<ModPath>,
    pub(super) test_paths: Vec<String>,
}

pub(super) fn ident(t: Option<&Token>) -> Option<&str> {
    match t.map(|t| &t.tok) {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

pub(super) fn is(t: Option<&Token>, want: &Tok) -> bool {
    t.is_some_and(|t| &t.tok == want)
}

/// Reads one `use` tree at `toks[*i]` under `prefix` (the segments of the groups around it).
pub(super) fn use_tree(
    toks: &[Token],
    i: &mut usize,
    module: &ModPath,
    prefix: Vec<String>,
    out: &mut Vec<UseLeaf>,
) {
    let mut segs = prefix;
    let line = toks.get(*i).map_or(0, |t| t.line);
    if is(toks.get(*i), &Tok::Sep) {
        // `use ::name`: an external crate.
        *i += 1;
        segs.push("::".into());
    }
    loop {
        match toks.get(*i).map(|t| &t.tok) {
            Some(Tok::Punct('$')) if ident(toks.get(*i + 1)) == Some("crate") => {
                segs.push("crate".into());
                *i += 2;
            }
            Some(Tok::Ident(s)) => {
                segs.push(s.clone());
                *i += 1;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                let path = Written {
                    module: module.clone(),
                    segs,
                    line,
                };
                out.push(UseLeaf {
                    path,
                    name: "*".into(),
                });
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while *i < toks.len() && !is(toks.get(*i), &Tok::Punct('}')) {
                    use_tree(toks, i, module, segs.clone(), out);
                    if is(toks.get(*i), &Tok::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => return,
        }
        if is(toks.get(*i), &Tok::Sep) {
            *i += 1;
            continue;
        }
        let mut name = segs.last().cloned().unwrap_or_default();
        if name == "self" {
            segs.pop();
            name = segs.last().cloned().unwrap_or_default();
        }
        if ident(toks.get(*i)) == Some("as") {
            name = ident(toks.get(*i + 1)).unwrap_or("_").to_string();
            *i += 2;
        }
        let path = Written {
            module: module.clone(),
            segs,
            line,
        };
        out.push(UseLeaf { path, name });
        return;
    }
}

pub(super) const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod",
];

/// What the file of module `module` says: its uses, paths, macros, items and inline modules.
pub(super) fn read_file(text: &str, module: &ModPath) -> FileFacts {
    let toks = tokenize(text);
    let mut f = FileFacts::default();
    // One frame per open `{`: the inline module it opens (if any) and whether it is test code.
    struct Frame {
        module: Option<String>,
        test: bool,
    }
    let mut frames: Vec<Frame> = Vec::new();
    let mut cfg_test = false;
    let mut path_attr: Option<String> = None;
    let mut i = 0;
    while i < toks.len() {
        let in_test = frames.iter().any(|fr| fr.test);
        let here: ModPath = module
            .iter()
            .cloned()
            .chain(frames.iter().filter_map(|fr| fr.module.clone()))
            .collect();
        let module_level = frames.iter().all(|fr| fr.module.is_some());
        let t = &toks[i];
        match &t.tok {
            Tok::Punct('#') => {
                // An attribute: `#[..]` or `#![..]`; notes `cfg(test)` and `path = ".."`.
                let mut j = i + 1;
                if is(toks.get(j), &Tok::Punct('!')) {
                    j += 1;
                }
                if is(toks.get(j), &Tok::Punct('[')) {
                    let start = j;
                    let mut depth = 0;
                    while j < toks.len() {
                        match toks[j].tok {
                            Tok::Punct('[') => depth += 1,
                            Tok::Punct(']') => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    let attr = &toks[start + 1..j.min(toks.len())];
                    let words: Vec<&Tok> = attr.iter().map(|t| &t.tok).collect();
                    if words
                        == [
                            &Tok::Ident("cfg".into()),
                            &Tok::Punct('('),
                            &Tok::Ident("test".into()),
                            &Tok::Punct(')'),
                        ]
                    {
                        cfg_test = true;
                    }
                    if let [Tok::Ident(p), Tok::Punct('='), Tok::Str(v)] = &words[..] {
                        if p == "path" {
                            path_attr = Some(v.clone());
                        }
                    }
                    i = j + 1;
                    continue;
                }
                i += 1;
            }
            Tok::Punct('{') => {
                frames.push(Frame {
                    module: None,
                    test: cfg_test,
                });
                cfg_test = false;
                path_attr = None;
                i += 1;
            }
            Tok::Punct('}') => {
                frames.pop();
                i += 1;
            }
            Tok::Punct(';') => {
                cfg_test = false;
                path_attr = None;
                i += 1;
            }
            Tok::Ident(w) if w == "use" && !is(toks.get(i + 1), &Tok::Punct('<')) => {
                i += 1;
                let mut leaves = Vec::new();
                use_tree(&toks, &mut i, &here, Vec::new(), &mut leaves);
                if !(in_test || cfg_test) {
                    f.uses.extend(leaves);
                }
            }
            Tok::Ident(w) if w == "mod" && ident(toks.get(i + 1)).is_some() => {
                let name = ident(toks.get(i + 1)).unwrap().to_string();
                let mut child = here.clone();
                child.push(name.clone());
                if is(toks.get(i + 2), &Tok::Punct('{')) {
                    if !(in_test || cfg_test) {
                        f.inline_modules.push(child);
                    }
                    frames.push(Frame {
                        module: Some(name.clone()),
                        test: cfg_test,
                    });
                    i += 3;
                } else {
                    if cfg_test || in_test {
                        f.test_modules.push(child);
                        f.test_paths.extend(path_attr.take());
                    }
                    i += 2;
                }
                if module_level && !(in_test || cfg_test) {
                    f.items.push((here.clone(), name));
                }
                cfg_test = false;
                path_attr = None;
            }
            Tok::Ident(w) if w == "macro_rules" && is(toks.get(i + 1), &Tok::Punct('!')) => {
                if let Some(name) = ident(toks.get(i + 2)) {
                    f.macro_defs.push((here.clone(), name.to_string()));
                }
                i += 3;
            }
            Tok::Ident(w)
                if module_level
                    && ITEM_KEYWORDS.contains(&w.as_str())
                    && ident(toks.get(i + 1)).is_some_and(|n| !ITEM_KEYWORDS.contains(&n)) =>
            {
                if !(in_test || cfg_test) {
                    let name = ident(toks.get(i + 1)).unwrap().to_string();
                    f.items.push((here.clone(), name));
                }
                i += 2;
            }
            Tok::Ident(_) | Tok::Punct('$') => {
                // A path in code: only where one starts (not after `::`), two segments or more.
                let after_sep = i > 0 && is(toks.get(i - 1), &Tok::Sep);
                let mut segs = Vec::new();
                let mut j = i;
                loop {
                    match toks.get(j).map(|t| &t.tok) {
                        Some(Tok::Punct('$')) if ident(toks.get(j + 1)) == Some("crate") => {
                            segs.push("crate".to_string());
                            j += 2;
                        }
                        Some(Tok::Ident(s)) => {
                            segs.push(s.clone());
                            j += 1;
                        }
                        _ => break,
                    }
                    let more =
                        ident(toks.get(j + 1)).is_some() || is(toks.get(j + 1), &Tok::Punct('$'));
                    if is(toks.get(j), &Tok::Sep) && more {
                        j += 1;
                    } else {
                        break;
                    }
                }
                if segs.is_empty() {
                    i += 1;
                    continue;
                }
                let is_macro_call = is(toks.get(j), &Tok::Punct('!'))
                    && matches!(
                        toks.get(j + 1).map(|t| &t.tok),
                        Some(Tok::Punct('(' | '[' | '{'))
                    );
                if !(in_test || cfg_test || after_sep) {
                    if is_macro_call {
                        let name = segs.last().unwrap().clone();
                        f.macro_calls.push((here.clone(), name, t.line));
                    }
                    if segs.len() >= 2 {
                        f.paths.push(Written {
                            module: here.clone(),
                            segs,
                            line: t.line,
                        });
                    }
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
    f
}

// ---------------------------------------------------------------------------------------------
// The reader itself, on tricky inputs

pub(super) fn m(p: &str) -> ModPath {
    p.split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

fn uses_of(text: &str) -> Vec<(String, String)> {
    read_file(text, &m("a::b"))
        .uses
        .into_iter()
        .map(|u| (u.path.segs.join("::"), u.name))
        .collect()
}

#[test]
fn use_trees_are_read_whole() {
    let t = "pub(crate) use crate::{op::{self, Op as O, r#type::X}, units::*, ::std::fmt};\n\
             use super::super::c::{d, e::{f as _}};\n\
             use $crate::field::Spec;";
    let got = uses_of(t);
    let want = [
        ("crate::op", "op"),
        ("crate::op::Op", "O"),
        ("crate::op::type::X", "X"),
        ("crate::units", "*"),
        ("crate::::::std::fmt", "fmt"),
        ("super::super::c::d", "d"),
        ("super::super::c::e::f", "_"),
        ("crate::field::Spec", "Spec"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn comments_strings_chars_and_lifetimes_are_not_code() {
    let t = r####"
        // use crate::gone;
        /* use crate::gone; /* nested */ still a comment crate::gone */
        /// [`crate::gone`] is a doc link
        fn f<'a>(x: &'a str) -> char {
            let s = "crate::gone \" still in the string";
            let r = r#"crate::gone "# ;
            let b = br"crate::gone";
            let q = '"';
            let e = '\'';
            crate::kept::call(s, 'x')
        }
    "####;
    let f = read_file(t, &m("a"));
    let paths: Vec<String> = f.paths.iter().map(|w| w.segs.join("::")).collect();
    assert_eq!(paths, ["crate::kept::call"]);
    assert!(f.uses.is_empty());
}

#[test]
fn paths_in_code_macros_and_test_modules() {
    let t = "
        use x::Y;
        macro_rules! mine { () => { $crate::deep::thing() }; }
        fn g() { let v = crate::op::Op::default_for(\"matmul\"); op_fields!(v); derivation::line(); a != b; }
        mod inner { pub fn h() { super::super::sib::f() } }
        #[cfg(test)]
        mod tests { use crate::anything::Else; fn t() { crate::other::f(); } }
        #[cfg(test)]
        #[path = \"x_tests.rs\"]
        mod more;
    ";
    let f = read_file(t, &m("a"));
    let paths: Vec<(String, String)> = f
        .paths
        .iter()
        .map(|w| (w.module.join("::"), w.segs.join("::")))
        .collect();
    let want = [
        ("a", "crate::deep::thing"),
        ("a", "crate::op::Op::default_for"),
        ("a", "derivation::line"),
        ("a::inner", "super::super::sib::f"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(paths, want);
    let calls: Vec<&str> = f.macro_calls.iter().map(|(_, n, _)| n.as_str()).collect();
    assert_eq!(calls, ["op_fields"]);
    assert_eq!(f.macro_defs, [(m("a"), "mine".to_string())]);
    assert_eq!(f.uses.len(), 1);
    assert_eq!(f.inline_modules, [m("a::inner")]);
    assert_eq!(f.test_modules, [m("a::more")]);
    assert_eq!(f.test_paths, ["x_tests.rs"]);
}
