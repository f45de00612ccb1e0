//! The module tree of a crate, what each module names, and the cycles among siblings.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::source::{names, split_modules, strip};

/// One module: a file, or a `mod name { … }` block inside one.
pub struct Module {
    /// Path from the crate root (empty for the root).
    path: Vec<String>,
    file: PathBuf,
    children: BTreeMap<String, usize>,
    /// Names this module's `use` declarations bind: name → (path as written).
    bindings: BTreeMap<String, Vec<String>>,
    /// Every path the module names that may lead inside the crate, with its line.
    paths: Vec<(Vec<String>, usize)>,
}

pub struct Graph {
    pub modules: Vec<Module>,
}

/// A set of sibling modules that depend on each other, as a description: one cycle through them, then
/// every dependency between them with the path that makes it.
pub struct Cycle {
    pub text: String,
}

/// Module `from` depends on module `to` because of `path` (as written) at `file:line`.
pub struct Edge {
    to: usize,
    path: String,
    line: usize,
}

impl Graph {
    pub fn load(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Graph {
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
    pub fn cycles(&self) -> Vec<Cycle> {
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
                found.push(Cycle { text });
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
