//! Specification of the bash interceptor: which commands the default rules block, which
//! they let through, and how user rules, bad rules and unparseable commands are handled.

use bashrt_core::intercept::{default_rules, Block, Interceptor, Rule};
use proptest::prelude::*;
use std::sync::OnceLock;

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn all_tools() -> Vec<String> {
    tools(&["read", "grep", "find", "edit", "write", "bash"])
}

/// Compiled once: building the default rules takes milliseconds in a debug build.
fn defaults() -> &'static Interceptor {
    static DEFAULTS: OnceLock<Interceptor> = OnceLock::new();
    DEFAULTS.get_or_init(|| Interceptor::new(&default_rules()))
}

/// The name of the default rule that blocks `command` when every tool is offered.
fn blocked_by(command: &str) -> Option<String> {
    defaults().check(command, &all_tools()).map(|block| block.rule)
}

#[test]
fn default_rules_carry_the_reference_messages() {
    let rules = default_rules();
    let table: Vec<(&str, &str, &str)> =
        rules.iter().map(|rule| (rule.name.as_deref().unwrap(), rule.tool.as_str(), rule.message.as_str())).collect();
    assert_eq!(
        table,
        [
            (
                "file-reader",
                "read",
                "Use the `read` tool instead of cat/head/tail. It provides better context and handles binary files."
            ),
            (
                "search-tool",
                "grep",
                "Use the `grep` tool instead of grep/rg. It respects .gitignore and provides structured output."
            ),
            (
                "file-finder",
                "find",
                "Use the `find` tool instead of find/fd. It respects .gitignore and is faster for glob patterns."
            ),
            (
                "sed-in-place",
                "edit",
                "Use the `edit` tool instead of sed -i. It provides diff preview and fuzzy matching."
            ),
            (
                "perl-in-place",
                "edit",
                "Use the `edit` tool instead of perl -i. It provides diff preview and fuzzy matching."
            ),
            (
                "awk-in-place",
                "edit",
                "Use the `edit` tool instead of awk -i inplace. It provides diff preview and fuzzy matching."
            ),
            (
                "redirect-write",
                "write",
                "Use the `write` tool instead of echo/cat redirection. It handles encoding and provides confirmation."
            ),
        ]
    );
    assert!(defaults().warnings().is_empty());
}

const EXAMPLES: [(&str, &str, &str); 24] = [
    ("file-reader", "read", "cat README.md"),
    ("file-reader", "read", "head -n 20 src/main.rs"),
    ("file-reader", "read", "tail -n 5 build.log"),
    ("file-reader", "read", "less notes.txt"),
    ("file-reader", "read", "more notes.txt"),
    ("file-reader", "read", "cat < notes.txt"),
    ("search-tool", "grep", "grep -rn TODO src"),
    ("search-tool", "grep", "rg -i 'fn main'"),
    ("search-tool", "grep", "ag foo"),
    ("search-tool", "grep", "ack foo"),
    ("file-finder", "find", "find . -name '*.rs'"),
    ("file-finder", "find", "fd --type f"),
    ("sed-in-place", "edit", "sed -i 's/a/b/' file.txt"),
    ("sed-in-place", "edit", "sed -E -i.bak 's/a/b/' file.txt"),
    ("sed-in-place", "edit", "sed --in-place s/a/b/ file.txt"),
    ("perl-in-place", "edit", "perl -pi -e 's/a/b/' file.txt"),
    ("perl-in-place", "edit", "perl -pe 's/a/b/' -i.bak file.txt"),
    ("awk-in-place", "edit", "awk -i inplace '{print $1}' file.txt"),
    ("awk-in-place", "edit", "gawk -i inplace '{print $1}' file.txt"),
    ("redirect-write", "write", "echo hi > out.txt"),
    ("redirect-write", "write", "printf '%s\\n' a b >> out.txt"),
    ("redirect-write", "write", "echo hi &> out.txt"),
    ("redirect-write", "write", "cat <<EOF > out.txt\nhello\nEOF"),
    ("redirect-write", "write", "cat > out.txt <<'EOF'\nhello\nEOF"),
];

#[test]
fn each_default_rule_blocks_its_examples_when_its_tool_is_offered() {
    let interceptor = defaults();
    for (rule, tool, command) in EXAMPLES {
        let block = interceptor.check(command, &tools(&[tool]));
        assert_eq!(
            block.as_ref().map(|block| (block.rule.as_str(), block.suggested_tool.as_str())),
            Some((rule, tool)),
            "{command:?}"
        );
    }
}

#[test]
fn no_default_rule_blocks_when_its_tool_is_not_offered() {
    let interceptor = defaults();
    for (_, tool, command) in EXAMPLES {
        let others: Vec<String> = all_tools().into_iter().filter(|t| t != tool).collect();
        assert_eq!(interceptor.check(command, &others), None, "{command:?}");
        assert_eq!(interceptor.check(command, &[]), None, "{command:?}");
    }
}

#[test]
fn a_block_names_its_rule_tool_and_message() {
    let block = defaults().check("cat README.md", &all_tools()).unwrap();
    assert_eq!(
        block,
        Block {
            rule: "file-reader".into(),
            suggested_tool: "read".into(),
            message:
                "Use the `read` tool instead of cat/head/tail. It provides better context and handles binary files."
                    .into(),
        }
    );
    assert_eq!(
        serde_json::to_value(&block).unwrap(),
        serde_json::json!({"rule": "file-reader", "suggestedTool": "read", "message": block.message}),
    );
}

#[test]
fn error_text_has_the_reference_format() {
    let block = Block { rule: "r".into(), suggested_tool: "read".into(), message: "Use read.".into() };
    assert_eq!(block.error_text("  cat x | head -5"), "Blocked: Use read.\n\nOriginal command:   cat x | head -5");
}

#[test]
fn every_simple_command_of_a_compound_command_is_checked() {
    for (command, rule) in [
        ("cd src && grep -r foo .", "search-tool"),
        ("cd src; cat main.rs", "file-reader"),
        ("false || cat main.rs", "file-reader"),
        ("(cd src && cat main.rs)", "file-reader"),
        ("{ ls; cat main.rs; }", "file-reader"),
        ("if test -f x; then cat x; fi", "file-reader"),
        ("if false; then :; elif true; then :; else grep foo x; fi", "search-tool"),
        ("for f in *.rs; do cat \"$f\"; done", "file-reader"),
        ("while true; do sed -i s/a/b/ f; break; done", "sed-in-place"),
        ("case x in x) echo hi > out.txt;; esac", "redirect-write"),
        ("f() { cat x; }; f", "file-reader"),
        ("time cat x", "file-reader"),
        ("! grep -q foo x", "search-tool"),
        ("echo $(cat version.txt)", "file-reader"),
        ("echo \"v=$(cat version.txt)\"", "file-reader"),
        ("echo `cat version.txt`", "file-reader"),
        ("x=$(grep -c foo log)", "search-tool"),
        ("diff <(cat a) b", "file-reader"),
        ("LC_ALL=C grep foo file", "search-tool"),
        ("2>/dev/null cat file", "file-reader"),
        ("ls\ncat file", "file-reader"),
    ] {
        assert_eq!(blocked_by(command).as_deref(), Some(rule), "{command:?}");
    }
}

#[test]
fn stages_that_read_piped_stdin_are_exempt() {
    for command in [
        "git log | grep fix",
        "ps aux | head -5",
        "ls | grep foo file.txt",
        "git diff | tail -n 20",
        "ls | sed -i s/a/b/ f",
    ] {
        assert_eq!(blocked_by(command), None, "{command:?}");
    }
}

#[test]
fn the_first_stage_of_a_pipeline_is_still_checked() {
    assert_eq!(blocked_by("cat app.log | grep error").as_deref(), Some("file-reader"));
    assert_eq!(blocked_by("grep -r foo . | head -5").as_deref(), Some("search-tool"));
}

#[test]
fn commands_nested_inside_a_piped_stage_are_not_fed_by_the_pipe() {
    assert_eq!(blocked_by("ls | while read f; do cat \"$f\"; done").as_deref(), Some("file-reader"));
}

#[test]
fn quoted_text_never_matches() {
    for command in [
        "echo \"cat x > y\"",
        "echo 'grep foo > out'",
        "git commit -m \"sed -i fix; echo a > b\"",
        "echo $'a > b'",
        "echo \"a -> b\"",
        "echo a\\>b",
        "printf '%s\\n' \"x >> y\"",
        "echo \"é > ü\"",
    ] {
        assert_eq!(blocked_by(command), None, "{command:?}");
    }
}

#[test]
fn quoted_file_operands_are_still_reads() {
    assert_eq!(blocked_by("cat \"my file.txt\"").as_deref(), Some("file-reader"));
    assert_eq!(blocked_by("cat 'héllo wörld.txt'").as_deref(), Some("file-reader"));
}

#[test]
fn heredoc_bodies_never_match() {
    for command in ["python3 - <<'EOF'\ncat x\ngrep y > z\nEOF", "bash <<EOF\nsed -i s/a/b/ f\nEOF"] {
        assert_eq!(blocked_by(command), None, "{command:?}");
    }
}

#[test]
fn a_heredoc_printed_without_redirection_is_not_a_read() {
    assert_eq!(blocked_by("cat <<EOF\nhello\nEOF"), None);
    assert_eq!(blocked_by("cat <<< \"hello\""), None);
}

#[test]
fn perl_i_inside_a_word_or_an_option_argument_is_not_in_place() {
    for command in
        ["perl -Mstrict -e 'print 1'", "perl script.pl --file-id 3", "perl -I lib -e 1", "perl -ne 'print' file"]
    {
        assert_eq!(blocked_by(command), None, "{command:?}");
    }
}

#[test]
fn sed_without_in_place_is_not_an_edit() {
    for command in ["sed -n '/x/p' file", "sed --posix s/a/b/ f", "sed s/a-i/b/ f"] {
        assert_eq!(blocked_by(command), None, "{command:?}");
    }
}

fn bash_creates_a_file(command: &str) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{command:?}");
    std::fs::read_dir(dir.path()).unwrap().next().is_some()
}

#[test]
fn the_write_rule_blocks_exactly_the_redirections_with_which_bash_writes_a_file() {
    let interceptor = defaults();
    for command in [
        "echo hi > out.txt",
        "echo hi >out.txt",
        "echo hi>out.txt",
        "echo hi >> out.txt",
        "echo hi >| out.txt",
        "echo hi &> out.txt",
        "echo hi &>> out.txt",
        "echo hi 2> err.txt",
        ">out.txt echo hi",
        "printf x > \"my out.txt\"",
        "cat <<EOF > out.txt\nhello\nEOF",
        "cat > out.txt <<'EOF'\nhello\nEOF",
        "cat <<-EOF >> out.txt\n\thello\nEOF",
        "echo x 2>&1",
        "echo x >&2",
        "echo x 1>&2 2>&1",
        "echo x > /dev/null",
        "echo x 2>/dev/null",
        "echo x &>/dev/null",
        "echo x >'/dev/null'",
        "echo x 2>&-",
        "echo \"a -> b\"",
        "echo 'a >> b'",
        "echo a\\>b",
        "echo a >(cat >/dev/null)",
        "cat <<'EOF'\necho hi > out.txt\nEOF",
        "cat <<EOF\nhello\nEOF",
    ] {
        let blocked = interceptor.check(command, &tools(&["write"])).is_some();
        assert_eq!(blocked, bash_creates_a_file(command), "{command:?}");
    }
}

#[test]
fn harmless_redirections_do_not_make_other_commands_writes() {
    assert_eq!(blocked_by("ls > /dev/null"), None);
    assert_eq!(blocked_by("make 2>&1"), None);
}

#[test]
fn an_invalid_rule_is_skipped_with_a_warning_and_the_others_still_work() {
    let rules = vec![
        Rule { name: None, pattern: "(".into(), flags: None, tool: "read".into(), message: "broken".into() },
        Rule {
            name: Some("no-curl".into()),
            pattern: r"^\s*curl\s".into(),
            flags: None,
            tool: "fetch".into(),
            message: "Use fetch.".into(),
        },
        Rule {
            name: None,
            pattern: "x".into(),
            flags: Some("y".into()),
            tool: "read".into(),
            message: "sticky".into(),
        },
    ];
    let interceptor = Interceptor::new(&rules);
    assert_eq!(interceptor.warnings().len(), 2, "{:?}", interceptor.warnings());
    assert!(interceptor.warnings()[0].starts_with("bashInterceptor rule 0 (pattern `(`) skipped: invalid regex: "));
    assert!(!interceptor.warnings()[0].contains('\n'));
    assert!(interceptor.warnings()[1].starts_with("bashInterceptor rule 2 (pattern `x`) skipped: unsupported flag `y`"));
    let block = interceptor.check("curl https://example.com", &tools(&["fetch", "read"])).unwrap();
    assert_eq!(block.rule, "no-curl");
    assert_eq!(block.suggested_tool, "fetch");
}

#[test]
fn a_user_rule_with_flag_i_ignores_case() {
    let rule = |flags: Option<&str>| Rule {
        name: None,
        pattern: r"^\s*CURL\s".into(),
        flags: flags.map(str::to_owned),
        tool: "fetch".into(),
        message: "Use fetch.".into(),
    };
    let fetch = tools(&["fetch"]);
    let insensitive = Interceptor::new(&[rule(Some("i"))]);
    let block = insensitive.check("cd /tmp && curl example.com", &fetch).unwrap();
    assert_eq!(block.rule, "rule-0", "an unnamed rule is named by its index");
    assert_eq!(Interceptor::new(&[rule(None)]).check("curl example.com", &fetch), None);
}

#[test]
fn rules_deserialize_from_settings_without_optional_fields() {
    let rules: Vec<Rule> = serde_json::from_str(
        r#"[{"pattern": "^\\s*wget\\s", "tool": "fetch", "message": "Use fetch."},
            {"name": "x", "pattern": "a", "flags": "i", "tool": "t", "message": "m"}]"#,
    )
    .unwrap();
    assert_eq!(rules[0].name, None);
    assert_eq!(rules[0].flags, None);
    assert_eq!(rules[1].flags.as_deref(), Some("i"));
}

#[test]
fn an_unparseable_command_falls_back_to_matching_its_whole_text() {
    // A syntax error, and an input that panics brush-parser 0.4 (fd number beyond i32).
    assert_eq!(blocked_by("cat notes.txt )").as_deref(), Some("file-reader"));
    assert_eq!(blocked_by("cat 2147483648<in").as_deref(), Some("file-reader"));
    // The fallback is the reference's plain text match: it neither splits lists nor masks quotes.
    assert_eq!(blocked_by("cd x && cat notes.txt )"), None);
    assert_eq!(blocked_by("echo \"a > b\" )").as_deref(), Some("redirect-write"));
}

#[test]
fn empty_and_blank_commands_are_never_blocked() {
    assert_eq!(blocked_by(""), None);
    assert_eq!(blocked_by("  \n\t"), None);
}

#[test]
fn deeply_nested_commands_are_checked_without_overflowing_the_stack() {
    let depth = 1500;
    let command = format!("{}cat x;{}", "{ ".repeat(depth), " }".repeat(depth));
    assert_eq!(blocked_by(&command).as_deref(), Some("file-reader"));
    let command = format!("{}cat x;{}", "{ ".repeat(100_000), " }".repeat(100_000));
    assert_eq!(blocked_by(&command), None, "too deep to parse: whole-text match");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn check_never_panics(
        command in prop_oneof![
            any::<String>(),
            "[a-z0-9 |;&<>()'\"$`\\\\\n#{}!=~-]{0,60}",
            "(cat|echo|grep|sed|perl) [a-z0-9 <>&|$()'\"`~-]{0,30}",
            "[a-z ]{0,12}(9999999999|2147483648)[<>][a-z]{0,5}",
        ]
    ) {
        let _ = defaults().check(&command, &all_tools());
    }
}
