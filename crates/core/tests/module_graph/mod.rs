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

mod graph;
mod source;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use graph::Graph;

#[test]
fn no_crate_has_a_module_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let crates = workspace.join("crates");
    let mut report = String::new();
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
                writeln!(report, "{name}: {}", cycle.text).unwrap();
            }
        }
    }
    assert!(checked >= 5, "only {checked} crates found under {}", crates.display());
    assert!(report.is_empty(), "module cycles (see docs/design.md, \"Module dependencies\"):\n{report}");
}

#[cfg(test)]
mod reader {
    //! The reader itself, on small crates.

    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use super::graph::Graph;

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
