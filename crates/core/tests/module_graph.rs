//! No crate of the workspace has a module cycle (the rule is in `docs/design.md`, "Module
//! dependencies"). Every crate under `crates/` is read from its `src/`: the module tree from its `mod`
//! declarations, and each module's dependencies from the paths it names (`use` trees and paths in
//! code starting with `crate::`, `super::`, `self::`, a child module or a name the module imported),
//! re-exports followed to the module that defines the item. Then, under every module, its children
//! are checked: one child depends on another when anything inside the first names anything inside
//! the second, and those dependencies must form no cycle. A module naming its own ancestors' items
//! (`super::Item`, the usual way a submodule reaches the types its parent declares) is not a
//! dependency between siblings. A failure names each cycle and the paths that make it.
//!
//! A plain text reader, not a compiler: comments and literals are skipped, macros are not expanded.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Cycles that stand only because the files that would end them are being reworked elsewhere: each is
/// (crate, the modules of the cycle, what ends it). A listed cycle that no longer occurs fails the test
/// too, so that the list only shrinks.
const KNOWN: &[(&str, &[&str], &str)] = &[
    (
        "core",
        &["agent_session", "run", "runtime", "tool"],
        "runtime.rs builds the tool and sessions (`Runtime::tool`, `Runtime::session`): \
         those constructors belong in tool.rs and agent_session.rs, as `impl Runtime` blocks",
    ),
    (
        "core",
        &["process", "reaper"],
        "process::spawn_gate asks reaper::marked_by whether a process carries the marker; \
         marker reading belongs below both",
    ),
];

#[test]
fn no_crate_has_a_module_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let crates = workspace.join("crates");
    let mut report = String::new();
    let mut known_seen = vec![false; KNOWN.len()];
    let mut checked = 0;
    let mut dirs: Vec<PathBuf> = fs::read_dir(&crates).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs {
        for root in ["lib.rs", "main.rs"] {
            let file = dir.join("src").join(root);
            if !file.is_file() {
                continue;
            }
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let relative = file.strip_prefix(&workspace).unwrap();
            let graph = Graph::load(relative, &|path: &Path| fs::read_to_string(workspace.join(path)).ok());
            assert!(graph.modules.len() > 1 || root == "main.rs", "{name}: no modules found");
            checked += 1;
            for cycle in graph.cycles() {
                let known = KNOWN.iter().position(|(c, members, _)| *c == name && cycle.members == *members);
                match known {
                    Some(i) => known_seen[i] = true,
                    None => writeln!(report, "{name}: {}", cycle.text).unwrap(),
                }
            }
        }
    }
    assert!(checked >= 5, "only {checked} crates found under {}", crates.display());
    for ((name, members, _), seen) in KNOWN.iter().zip(known_seen) {
        if !seen {
            writeln!(report, "{name}: the known cycle {{{}}} is gone: remove it from KNOWN", members.join(", "))
                .unwrap();
        }
    }
    assert!(report.is_empty(), "module cycles (see docs/design.md, \"Module dependencies\"):\n{report}");
}

/// One module: a file, or a `mod name { … }` block inside one.
struct Module {
    /// Path from the crate root (empty for the root).
    path: Vec<String>,
    file: PathBuf,
    children: BTreeMap<String, usize>,
    /// Names this module's `use` declarations bind: name → (path as written).
    bindings: BTreeMap<String, Vec<String>>,
    /// Every path the module names that may lead inside the crate, with its line.
    paths: Vec<(Vec<String>, usize)>,
}

struct Graph {
    modules: Vec<Module>,
}

/// A set of sibling modules that depend on each other, and a description: one cycle through them,
/// then every dependency between them with the path that makes it.
struct Cycle {
    /// The modules' paths, sorted.
    members: Vec<String>,
    text: String,
}

/// Module `from` depends on module `to` because of `path` (as written) at `file:line`.
struct Edge {
    to: usize,
    path: String,
    line: usize,
}

impl Graph {
    fn load(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Graph {
        let mut graph = Graph { modules: Vec::new() };
        let text = read(root).unwrap_or_else(|| panic!("cannot read {}", root.display()));
        let dir = root.parent().unwrap().to_path_buf();
        graph.add(Vec::new(), root.to_path_buf(), dir, &strip(&text), 0, read);
        graph
    }

    /// Adds the module `path` whose code is `code` (stripped; `first_line` is its first line in `file`),
    /// with its children; `dir` is where its file children live. Returns its index.
    fn add(
        &mut self,
        path: Vec<String>,
        file: PathBuf,
        dir: PathBuf,
        code: &str,
        first_line: usize,
        read: &dyn Fn(&Path) -> Option<String>,
    ) -> usize {
        let id = self.modules.len();
        self.modules.push(Module {
            path: path.clone(),
            file: file.clone(),
            children: BTreeMap::new(),
            bindings: BTreeMap::new(),
            paths: Vec::new(),
        });
        let (own, inline, declared) = split_modules(code);
        for (name, body, offset) in inline {
            let line = first_line + code[..offset].matches('\n').count();
            let child_path = [path.clone(), vec![name.clone()]].concat();
            let child = self.add(child_path, file.clone(), dir.join(&name), &body, line, read);
            self.modules[id].children.insert(name, child);
        }
        for name in declared {
            let candidates = [dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")];
            let Some((child_file, text)) = candidates.iter().find_map(|f| read(f).map(|t| (f.clone(), t))) else {
                panic!("{}: `mod {name};` names no file", file.display());
            };
            let child_dir = dir.join(&name);
            let child_path = [path.clone(), vec![name.clone()]].concat();
            let child = self.add(child_path, child_file, child_dir, &strip(&text), 0, read);
            self.modules[id].children.insert(name, child);
        }
        let (bindings, paths) = names(&own, first_line);
        self.modules[id].bindings = bindings;
        self.modules[id].paths = paths;
        id
    }

    /// The module that `segments`, named inside module `from`, leads to: the deepest module on the
    /// way, re-exports and imports followed. `None` for a path that leaves the crate.
    fn resolve(&self, from: usize, segments: &[String], depth: usize) -> Option<(usize, bool)> {
        if depth > 16 || segments.is_empty() {
            return None;
        }
        let mut current;
        let mut rest = segments;
        let relative = !matches!(segments[0].as_str(), "crate" | "self" | "super");
        match segments[0].as_str() {
            "crate" => {
                current = 0;
                rest = &rest[1..];
            }
            "self" => {
                current = from;
                rest = &rest[1..];
            }
            "super" => {
                current = from;
                while rest.first().is_some_and(|s| s == "super") {
                    current = self.parent(current)?;
                    rest = &rest[1..];
                }
            }
            _ => current = from,
        }
        // `true` while every segment so far named a module.
        for (i, segment) in rest.iter().enumerate() {
            let module = &self.modules[current];
            if let Some(&child) = module.children.get(segment) {
                current = child;
            } else if let Some(target) = module.bindings.get(segment) {
                let (to, whole) = self.resolve(current, target, depth + 1)?;
                if !whole {
                    return Some((to, false));
                }
                current = to;
            } else if i == 0 && relative {
                return None; // an extern crate, a prelude or local name
            } else {
                return Some((current, false));
            }
        }
        Some((current, true))
    }

    fn parent(&self, module: usize) -> Option<usize> {
        let path = &self.modules[module].path;
        let parent = path.get(..path.len().checked_sub(1)?)?;
        self.modules.iter().position(|m| m.path == parent)
    }

    fn edges(&self, from: usize) -> Vec<Edge> {
        let mut edges = Vec::new();
        for (path, line) in &self.modules[from].paths {
            if let Some((to, _)) = self.resolve(from, path, 0) {
                edges.push(Edge { to, path: path.join("::"), line: *line });
            }
        }
        edges
    }

    /// `inner` is `outer` or inside it.
    fn within(&self, inner: usize, outer: usize) -> bool {
        self.modules[inner].path.starts_with(&self.modules[outer].path)
    }

    /// Every cycle among the children of any module, one per strongly connected set, described.
    fn cycles(&self) -> Vec<Cycle> {
        let edges: Vec<Vec<Edge>> = (0..self.modules.len()).map(|m| self.edges(m)).collect();
        let mut found = Vec::new();
        for parent in &self.modules {
            let children: Vec<usize> = parent.children.values().copied().collect();
            let index = |module: usize| children.iter().position(|&c| self.within(module, c));
            // Between children: (from child, to child) → the first edge that makes it.
            let mut between: BTreeMap<(usize, usize), (usize, &Edge)> = BTreeMap::new();
            for (from, list) in edges.iter().enumerate() {
                let Some(a) = index(from) else { continue };
                for edge in list {
                    match index(edge.to) {
                        Some(b) if b != a => {
                            between.entry((a, b)).or_insert((from, edge));
                        }
                        _ => {}
                    }
                }
            }
            for set in strongly_connected(children.len(), &between) {
                let cycle = shortest_cycle(set[0], &set, &between);
                let names: Vec<String> =
                    cycle.iter().chain([&cycle[0]]).map(|&c| self.modules[children[c]].path.join("::")).collect();
                let mut text = names.join(" → ");
                if set.len() > cycle.len() {
                    let all: Vec<String> = set.iter().map(|&c| self.modules[children[c]].path.join("::")).collect();
                    write!(text, " (and all of {{{}}} reach each other)", all.join(", ")).unwrap();
                }
                // Every dependency inside the set, the cycle's first.
                let mut pairs: Vec<(usize, usize)> =
                    (0..cycle.len()).map(|i| (cycle[i], cycle[(i + 1) % cycle.len()])).collect();
                for &(a, b) in between.keys() {
                    if set.contains(&a) && set.contains(&b) && !pairs.contains(&(a, b)) {
                        pairs.push((a, b));
                    }
                }
                for (a, b) in pairs {
                    let (from, edge) = between[&(a, b)];
                    let module = &self.modules[from];
                    write!(
                        text,
                        "\n    {} → {}: {} names `{}` ({}:{})",
                        self.modules[children[a]].path.join("::"),
                        self.modules[children[b]].path.join("::"),
                        module.path.join("::"),
                        edge.path,
                        module.file.display(),
                        edge.line
                    )
                    .unwrap();
                }
                let mut members: Vec<String> = set.iter().map(|&c| self.modules[children[c]].path.join("::")).collect();
                members.sort();
                found.push(Cycle { members, text });
            }
        }
        found
    }
}

/// Sets of two or more nodes that all reach each other (Tarjan's algorithm, iteration order fixed).
fn strongly_connected<T>(n: usize, edges: &BTreeMap<(usize, usize), T>) -> Vec<Vec<usize>> {
    struct State<'a, T> {
        edges: &'a BTreeMap<(usize, usize), T>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        sets: Vec<Vec<usize>>,
    }
    fn visit<T>(s: &mut State<'_, T>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s.edges.range((v, 0)..(v + 1, 0)).map(|(&(_, w), _)| w).collect();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(i) if s.on_stack[w] => s.low[v] = s.low[v].min(i),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut set = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                set.push(w);
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.sets.push(set);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        sets: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.sets.sort();
    s.sets
}

/// The shortest cycle through `start` inside `set` (breadth first).
fn shortest_cycle<T>(start: usize, set: &[usize], edges: &BTreeMap<(usize, usize), T>) -> Vec<usize> {
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for (&(_, w), _) in edges.range((v, 0)..(v + 1, 0)) {
            if !set.contains(&w) {
                continue;
            }
            if w == start {
                let mut cycle = vec![v];
                while let Some(&p) = came_from.get(cycle.last().unwrap()) {
                    cycle.push(p);
                }
                cycle.reverse();
                return cycle;
            }
            if w != start && !came_from.contains_key(&w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("a strongly connected set has a cycle through each member")
}

/// The code of a file with comments blanked and literals emptied; line breaks are kept.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let starts_token = i == 0 || !ident(chars[i - 1]);
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if starts_token && (c == 'r' || (c == 'b' && next == Some('r'))) && {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"')
        } {
            // A raw string: r"…", r#"…"#, br#"…"#.
            i += if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while chars[i] == '#' {
                hashes += 1;
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\u{1b}'); a lifetime has no closing quote.
            out.push_str("' '");
            i += if next == Some('\\') { 3 } else { 2 };
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Splits a module's code into its own code, its inline child modules (name, body, byte offset) and
/// the names of its file child modules (`mod name;`).
fn split_modules(code: &str) -> (String, Vec<(String, String, usize)>, Vec<String>) {
    let bytes = code.as_bytes();
    let mut own = String::new();
    let mut inline = Vec::new();
    let mut declared = Vec::new();
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = code[i..].find("mod ") {
        let at = i + found;
        i = at + 4;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = &code[i..];
        let name_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = rest[..name_len].to_string();
        let after = rest[name_len..].trim_start();
        if name.is_empty() {
            continue;
        }
        if after.starts_with(';') {
            declared.push(name);
        } else if after.starts_with('{') {
            let open = i + name_len + (rest[name_len..].len() - after.len());
            let mut depth = 0;
            let mut close = open;
            for (k, b) in bytes[open..].iter().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            close = open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            own.push_str(&code[copied..at]);
            // Keep the line count of the parent's code.
            own.extend(code[at..=close].chars().filter(|&c| c == '\n'));
            copied = close + 1;
            inline.push((name, code[open + 1..close].to_string(), open + 1));
            i = close + 1;
        }
    }
    own.push_str(&code[copied..]);
    (own, inline, declared)
}

/// The names a module's `use` declarations bind (name → path) and every path it names, with its line.
type Names = (BTreeMap<String, Vec<String>>, Vec<(Vec<String>, usize)>);

fn names(code: &str, first_line: usize) -> Names {
    let tokens = tokenize(code);
    let mut bindings = BTreeMap::new();
    let mut paths = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (token, line) = &tokens[i];
        let line = first_line + line + 1;
        if token == "use" {
            let end = (i..tokens.len()).find(|&k| tokens[k].0 == ";").unwrap_or(tokens.len());
            let mut leaves = Vec::new();
            use_tree(&tokens[i + 1..end], &mut 0, &[], &mut leaves);
            for (path, name) in leaves {
                if let Some(name) = name {
                    bindings.insert(name, path.clone());
                }
                paths.push((path, line));
            }
            i = end + 1;
            continue;
        }
        let starts_path = i == 0 || tokens[i - 1].0 != "::";
        let after_in = i > 0 && tokens[i - 1].0 == "in";
        if starts_path && !after_in && is_ident(token) && tokens.get(i + 1).is_some_and(|t| t.0 == "::") {
            let mut path = vec![token.clone()];
            let mut k = i + 1;
            while tokens.get(k).is_some_and(|t| t.0 == "::") && tokens.get(k + 1).is_some_and(|t| is_ident(&t.0)) {
                path.push(tokens[k + 1].0.clone());
                k += 2;
            }
            paths.push((path, line));
            i = k;
            continue;
        }
        i += 1;
    }
    (bindings, paths)
}

fn is_ident(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::` and single punctuation characters, each with its line (from 0).
fn tokenize(code: &str) -> Vec<(String, usize)> {
    let mut tokens = Vec::new();
    let mut line = 0;
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // `$crate` and `r#ident` are not paths of this crate's modules.
            if start > 0 && chars[start - 1] == '$' {
                tokens.push((format!("${word}"), line));
            } else {
                tokens.push((word, line));
            }
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push(("::".to_string(), line));
            i += 2;
        } else {
            tokens.push((c.to_string(), line));
            i += 1;
        }
    }
    tokens
}

/// Expands a `use` tree into its leaves: (full path, the name it binds, if any).
fn use_tree(
    tokens: &[(String, usize)],
    at: &mut usize,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    while *at < tokens.len() {
        let token = tokens[*at].0.as_str();
        match token {
            "::" => *at += 1,
            "{" => {
                *at += 1;
                loop {
                    use_tree(tokens, at, &path, leaves);
                    match tokens.get(*at).map(|t| t.0.as_str()) {
                        Some(",") => *at += 1,
                        Some("}") => {
                            *at += 1;
                            break;
                        }
                        _ => return,
                    }
                    if tokens.get(*at).is_some_and(|t| t.0 == "}") {
                        *at += 1;
                        break;
                    }
                }
                return;
            }
            "*" => {
                *at += 1;
                leaves.push((path, None));
                return;
            }
            "," | "}" => break,
            "self" if !path.is_empty() => {
                // `a::{self}` binds `a`.
                *at += 1;
                let mut name = path.last().cloned();
                if tokens.get(*at).is_some_and(|t| t.0 == "as") {
                    name = tokens.get(*at + 1).map(|t| t.0.clone());
                    *at += 2;
                }
                leaves.push((path, name));
                return;
            }
            "as" => {
                let name = tokens.get(*at + 1).map(|t| t.0.clone()).filter(|n| n != "_");
                *at += 2;
                leaves.push((path, name));
                return;
            }
            _ => {
                path.push(token.to_string());
                *at += 1;
            }
        }
    }
    if path.len() > prefix.len() {
        let name = path.last().cloned();
        leaves.push((path, name));
    }
}

#[cfg(test)]
mod reader {
    //! The reader itself, on small crates.

    use super::*;

    fn cycles(files: &[(&str, &str)]) -> Vec<String> {
        let files: BTreeMap<PathBuf, String> =
            files.iter().map(|(p, t)| (Path::new("/c/src").join(p), t.to_string())).collect();
        let graph = Graph::load(Path::new("/c/src/lib.rs"), &|path: &Path| files.get(path).cloned());
        graph.cycles().into_iter().map(|c| c.text).collect()
    }

    #[test]
    fn finds_a_cycle_between_two_siblings() {
        let found = cycles(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::helper;\npub fn f() { helper() }\n"),
            ("b.rs", "pub fn helper() {}\npub fn g() { crate::a::f() }\n"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with("a → b → a"), "{found:?}");
        assert!(found[0].contains("`crate::b::helper` (/c/src/a.rs:1)"), "{found:?}");
        assert!(found[0].contains("`crate::a::f` (/c/src/b.rs:2)"), "{found:?}");
    }

    #[test]
    fn finds_a_longer_cycle_and_one_between_nested_siblings() {
        let found = cycles(&[
            ("lib.rs", "mod a; mod b; mod c; pub mod d;"),
            ("a.rs", "use crate::{b::{self, X as Y}};"),
            ("b.rs", "use super::c::*;"),
            ("c.rs", "fn f() { let _ = super::a::thing(); }"),
            ("d/mod.rs", "mod e;\nmod f { use super::e::E; }\n"),
            ("d/e.rs", "use super::f::F;"),
        ]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].starts_with("a → b → c → a"), "{found:?}");
        assert!(found[1].starts_with("d::e → d::f → d::e"), "{found:?}");
    }

    #[test]
    fn a_child_may_use_its_parents_items_and_reexports_lead_to_their_module() {
        let clean = cycles(&[
            ("lib.rs", "pub mod exec; mod run; pub use exec::Request;"),
            ("exec/mod.rs", "mod one;\npub use one::OneShot;\npub struct Request;\n"),
            ("exec/one.rs", "use super::Request;\nuse crate::exec::Request as R;\npub struct OneShot;"),
            ("run.rs", "use crate::Request; fn f(_: crate::exec::OneShot) {}"),
        ]);
        assert!(clean.is_empty(), "{clean:?}");
        // `crate::Request` is the exec module's, through the root's re-export.
        let found = cycles(&[
            ("lib.rs", "mod exec; mod run; pub use exec::Request;"),
            ("exec.rs", "pub struct Request; fn f() { crate::run::go() }"),
            ("run.rs", "pub fn go() {} fn g(_: crate::Request) {}"),
        ]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("run names `crate::Request`"), "{found:?}");
    }

    #[test]
    fn comments_strings_and_external_paths_are_no_dependency() {
        let found = cycles(&[
            ("lib.rs", "mod a; mod b;"),
            (
                "a.rs",
                "// crate::b::x\n/* crate::b::y */ const S: &str = \"crate::b::z\";\nconst R: &str = r#\"super::b\"#;\nuse std::fmt;\nconst C: char = '\"';\n",
            ),
            ("b.rs", "use crate::a::S; pub(in crate::b) fn f() {}"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }
}
