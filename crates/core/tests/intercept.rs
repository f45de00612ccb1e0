//! Specification of the bash interceptor: which commands the built-in rules block (only the forms their
//! suggested tool does completely, with the output going to the model), which they let through, and
//! how user rules, forms, bad rules and unparseable commands are handled.

use bashrt_core::{default_rules, Block, Form, FormStdout, Interceptor, Rule};
use proptest::prelude::*;
use std::sync::OnceLock;

fn tools(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn all_tools() -> Vec<String> {
    tools(&["read", "grep", "find", "edit", "write", "ls", "bash"])
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

fn assert_none_blocked(commands: &[&str]) {
    for command in commands {
        assert_eq!(blocked_by(command), None, "{command:?}");
    }
}

/// A user rule in the reference's format: a regex and nothing else.
fn regex_rule(pattern: &str) -> Rule {
    Rule {
        name: Some("user".into()),
        pattern: pattern.into(),
        flags: None,
        tool: "read".into(),
        message: "m".into(),
        when: vec![],
    }
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
                "directory-lister",
                "ls",
                "Use the `ls` tool instead of ls. It lists a directory, marking which entries are directories."
            ),
            (
                "redirect-write",
                "write",
                "Use the `write` tool instead of echo/cat redirection. It handles encoding and provides confirmation."
            ),
        ]
    );
    assert!(defaults().warnings().is_empty(), "{:?}", defaults().warnings());
    assert!(rules.iter().all(|rule| !rule.when.is_empty()), "every built-in rule is narrowed by forms");
}

const EXAMPLES: [(&str, &str, &str); 39] = [
    ("file-reader", "read", "cat README.md"),
    ("file-reader", "read", "cat ~/.ssh/config"),
    ("file-reader", "read", "head -n 20 f"),
    ("file-reader", "read", "head -n20 src/main.rs"),
    ("file-reader", "read", "head --lines=5 f"),
    ("file-reader", "read", "head -5 f"),
    ("file-reader", "read", "tail -n +5 build.log"),
    ("file-reader", "read", "less f"),
    ("file-reader", "read", "more notes.txt"),
    ("search-tool", "grep", "grep -rn TODO src"),
    ("search-tool", "grep", "grep -rnw src -e 'fn main'"),
    ("search-tool", "grep", "grep -i error app.log"),
    ("search-tool", "grep", "grep -r --include='*.rs' -C 2 unwrap ."),
    ("search-tool", "grep", "rg -i 'fn main'"),
    ("search-tool", "grep", "rg -F -- '->' src"),
    ("search-tool", "grep", "ag foo"),
    ("search-tool", "grep", "ack -i foo lib"),
    ("search-tool", "grep", "egrep 'a|b' app.log"),
    ("search-tool", "grep", "fgrep -r '[x]' src"),
    ("file-finder", "find", "find . -name '*.rs'"),
    ("file-finder", "find", "find -name Cargo.toml"),
    ("file-finder", "find", "find src -type f -name '*.rs' -print"),
    ("file-finder", "find", "find /tmp -type f"),
    ("file-finder", "find", "fd -g '*.rs' src"),
    ("file-finder", "find", "fd -e txt"),
    ("file-finder", "find", "fd -e md . docs"),
    ("file-finder", "find", "find . -name '*.ts' -o -name '*.tsx'"),
    ("file-finder", "find", "find -name a -o -name b -o -name c"),
    ("sed-in-place", "edit", "sed -i s/a/b/g f"),
    ("sed-in-place", "edit", "sed -E -i -e 's|old name|new name|g' file.txt"),
    ("sed-in-place", "edit", "sed --in-place 's/foo//g' file.txt"),
    ("perl-in-place", "edit", "perl -pi -e 's/a/b/g' file.txt"),
    ("perl-in-place", "edit", "perl -i -pe 's/a/b/g' file"),
    ("directory-lister", "ls", "ls"),
    ("directory-lister", "ls", "ls -p src"),
    ("redirect-write", "write", "echo hi > f.txt"),
    ("redirect-write", "write", "printf '%s\\n' a b > out.txt"),
    ("redirect-write", "write", "cat <<EOF > f\nhello\nEOF"),
    ("redirect-write", "write", "cat > out.txt <<'EOF'\nhello $USER\nEOF"),
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
fn find_with_actions_or_filters_the_find_tool_lacks_is_not_blocked() {
    assert_none_blocked(&[
        "find . -type f -exec chmod 644 {} \\;",
        "find . -name \"*.old\" -delete",
        "find . -atime +1 -type f",
        "find . -name '*.log' -ls",
        "find . -name '*.c' -printf '%s %p\\n'",
        "find . -type f -size +1M",
        "find . -newer Cargo.toml -name '*.rs'",
        "find . -perm 644 -type f",
        "find . -maxdepth 1 -name '*.txt'",
        "find . -type d -name target",
        "find . -name a -o -name b -print",
        "find . -type f -name a -o -name b",
        "find . -name a -name b -o -name c",
        "find . -name a -o",
        "fd -e txt pattern",
        "fd -e 'a*' ",
        "find . ! -name '*.rs'",
        "find \\! -name x",
        "find . -iname '*.JPG'",
        "find . -name '*.rs' -print0",
        "find src tests -name '*.rs'",
        "find -name x .",
        "find . -name *.rs",
        "find . -name \"$pattern\"",
    ]);
    assert_eq!(blocked_by("find . -type f").as_deref(), Some("file-finder"));
    assert_eq!(blocked_by("fd --type f"), None, "a listing by type alone is not a glob");
}

#[test]
fn reads_that_the_read_tool_cannot_do_in_one_call_are_not_blocked() {
    assert_none_blocked(&[
        "cat a b",
        "cat -n f",
        "cat -",
        "cat /dev/urandom",
        "cat *.txt",
        "cat \"$file\"",
        "cat file !$",
        "head -c 100 f",
        "head -n -2 f",
        "tail f",
        "tail -n 5 build.log",
        "tail -f log",
        "less -S f",
        "more +5 f",
        "cat < notes.txt",
    ]);
}

#[test]
fn searches_with_options_the_grep_tool_lacks_are_not_blocked() {
    assert_none_blocked(&[
        "ack --help-types",
        "grep -v pattern file",
        "grep -c x file",
        "grep -l foo -r .",
        "grep -o '[0-9]*' file",
        "grep -q foo file",
        "grep -f patterns file",
        "grep -e a -e b file",
        "grep foo",
        "grep -r foo *",
        "grep \"$(cat file1.txt)\" file2.txt",
        "rg -l error",
        "rg -t rust error",
        "ag -g string",
        "egrep foo",
        "grep error f1 f2",
        "rg foo src tests",
        "grep -r foo src tests",
    ]);
}

#[test]
fn edits_beyond_one_literal_replacement_are_not_blocked() {
    assert_none_blocked(&[
        "sed -i 's/foo/bar/' file",
        "sed -i 's/foo/bar/gi' file",
        "sed -i 's/a.*b/c/g' file",
        "sed -i 's/a/\\1/' file",
        "sed -i.bak 's/a/b/' file",
        "sed -i '/pattern/d' file",
        "sed -i '15i text' file",
        "sed -i 's/a/b/' f1 f2",
        "sed -i \"s/a/$x/\" file",
        "sed -ie 's/a/b/; s/c/d/' file",
        "sed -ie 's/a/b/' file",
        "sed -iE 's/a/b/' file",
        "perl -i -pe 's/a/b/' file",
        "ls -la",
        "ls -R src",
        "ls a b",
        "perl -pi.bak -e 's/a/b/' file",
        "perl -ni -e 's/a/b/' file",
        "perl -pi -e 's/a/$1/' file",
        "awk -i inplace '{print $1}' file.txt",
    ]);
}

#[test]
fn a_command_whose_output_does_not_reach_the_model_is_not_blocked() {
    assert_none_blocked(&[
        "cat f | jq '.[]'",
        "cat app.log | grep error",
        "grep -r foo . | head -5",
        "git log | grep fix",
        "cat a b >> out",
        "cat f > copy",
        "cat f 2>/dev/null",
        "grep -rn TODO src > todo.txt",
        "diff <(cat a) b",
        "echo $(cat version.txt)",
        "echo \"v=$(cat version.txt)\"",
        "echo `cat version.txt`",
        "x=$(grep -c foo log)",
        "{ cat a; } > out",
        "while read l; do echo $l; done < <(cat f)",
        "grep -q foo f && echo yes",
        "cat f || echo missing",
        "! grep foo f",
        "if grep foo f; then :; fi",
        "cat f &",
        "time cat x",
        "for i in 1 2; do cat x; done",
        "while true; do sed -i s/a/b/ f; break; done",
        "ls | while read f; do cat \"$f\"; done",
    ]);
}

#[test]
fn only_a_command_that_is_the_whole_call_besides_cd_is_blocked() {
    for (command, rule) in [
        ("cd src && grep -r foo .", "search-tool"),
        ("cd src; cat main.rs", "file-reader"),
        ("(cd src && cat main.rs)", "file-reader"),
        ("{ cat main.rs; }", "file-reader"),
        ("case x in x) echo hi > out.txt;; esac", "redirect-write"),
        ("find Symfony -name '*config*';", "file-finder"),
        ("\ncat file\n", "file-reader"),
    ] {
        assert_eq!(blocked_by(command).as_deref(), Some(rule), "{command:?}");
    }
    assert_none_blocked(&[
        "sleep 20 && cat file",
        "mkdir -p d; echo x > d/f",
        "make && grep -r warning build",
        "ls\ncat file",
        "false || cat main.rs",
        "if test -f x; then cat x; fi",
        "f() { cat x; }; f",
        "LC_ALL=C grep foo file",
        "cd \"$(dirname x)\" && cat f",
    ]);
}

#[test]
fn a_user_regex_rule_still_sees_every_simple_command_but_piped_stages() {
    let interceptor = Interceptor::new(&[regex_rule(r"^cat\s")]);
    let read = tools(&["read"]);
    for command in [
        "cd src; cat main.rs",
        "false || cat main.rs",
        "{ ls; cat main.rs; }",
        "if test -f x; then cat x; fi",
        "for f in *.rs; do cat \"$f\"; done",
        "f() { cat x; }; f",
        "time cat x",
        "echo $(cat version.txt)",
        "echo `cat version.txt`",
        "diff <(cat a) b",
        "2>/dev/null cat file",
        "cat app.log | grep error",
        "ls | while read f; do cat \"$f\"; done",
        "cat a b >> out",
    ] {
        assert_eq!(interceptor.check(command, &read).map(|b| b.rule).as_deref(), Some("user"), "{command:?}");
    }
    for command in ["ls | cat", "git diff | cat -n", "echo \"cat x\"", "python3 - <<'EOF'\ncat x\nEOF"] {
        assert_eq!(interceptor.check(command, &read), None, "{command:?}");
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
fn quoted_text_never_matches() {
    assert_none_blocked(&[
        "echo \"cat x > y\"",
        "echo 'grep foo > out'",
        "git commit -m \"sed -i fix; echo a > b\"",
        "echo $'a > b'",
        "echo \"a -> b\"",
        "echo a\\>b",
        "printf '%s\\n' \"x >> y\"",
        "echo \"é > ü\"",
    ]);
}

#[test]
fn quoted_file_operands_are_still_reads_but_quoted_command_names_are_not() {
    assert_eq!(blocked_by("cat \"my file.txt\"").as_deref(), Some("file-reader"));
    assert_eq!(blocked_by("cat 'héllo wörld.txt'").as_deref(), Some("file-reader"));
    assert_eq!(blocked_by("cat my\\ file.txt").as_deref(), Some("file-reader"));
    assert_eq!(blocked_by("\"cat\" f"), None);
    assert_eq!(blocked_by("\\cat f"), None);
    assert_eq!(blocked_by("/bin/cat f"), None);
}

#[test]
fn heredoc_bodies_never_match() {
    assert_none_blocked(&["python3 - <<'EOF'\ncat x\ngrep y > z\nEOF", "bash <<EOF\nsed -i s/a/b/ f\nEOF"]);
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
    assert_none_blocked(&["sed -n '/x/p' file", "sed --posix s/a/b/ f", "sed s/a-i/b/ f"]);
}

/// Runs `command` with bash in a directory holding `out.txt` and `err.txt` (each "old\n") and says
/// whether it printed nothing and replaced exactly one file (a new one, or an old one's whole text).
fn bash_replaces_one_file(command: &str) -> bool {
    let dir = tempfile::tempdir().unwrap();
    for name in ["out.txt", "err.txt"] {
        std::fs::write(dir.path().join(name), "old\n").unwrap();
    }
    let output = std::process::Command::new("bash").arg("-c").arg(command).current_dir(dir.path()).output().unwrap();
    assert!(output.status.success(), "{command:?}");
    let mut replaced = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let old = matches!(path.file_name().unwrap().to_str().unwrap(), "out.txt" | "err.txt");
        if !old || !text.starts_with("old\n") {
            replaced += 1;
        }
    }
    output.stdout.is_empty() && output.stderr.is_empty() && replaced == 1
}

#[test]
fn the_write_rule_blocks_exactly_the_literal_writes_that_replace_one_file() {
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
        "echo -n hi > new.txt",
        "printf x > \"my out.txt\"",
        "cat <<EOF > out.txt\nhello\nEOF",
        "cat > out.txt <<'EOF'\nhello\nEOF",
        "cat <<-EOF >> out.txt\n\thello\nEOF",
        "cat <<< 'hello' > out.txt",
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
        "echo a > out.txt > err.txt",
    ] {
        let blocked = interceptor.check(command, &tools(&["write"])).is_some();
        assert_eq!(blocked, bash_replaces_one_file(command), "{command:?}");
    }
}

#[test]
fn writes_of_text_the_shell_computes_are_not_blocked() {
    assert_none_blocked(&[
        "echo $HOME > out.txt",
        "echo \"v=$(date)\" > out.txt",
        "printf '%s' *.rs > list.txt",
        "cat <<EOF > out.txt\nhello $USER\nEOF",
        "cat <<EOF > out.txt\n`date`\nEOF",
        "echo hi > \"$target\"",
        "cat a > out.txt",
    ]);
}

#[test]
fn harmless_redirections_do_not_make_other_commands_writes() {
    assert_eq!(blocked_by("ls > /dev/null"), None);
    assert_eq!(blocked_by("make 2>&1"), None);
}

#[test]
fn an_invalid_rule_is_skipped_with_a_warning_and_the_others_still_work() {
    let rules = vec![
        Rule { pattern: "(".into(), ..regex_rule("") },
        Rule {
            name: Some("no-curl".into()),
            pattern: r"^\s*curl\s".into(),
            flags: None,
            tool: "fetch".into(),
            message: "Use fetch.".into(),
            when: vec![],
        },
        Rule { name: None, flags: Some("y".into()), ..regex_rule("x") },
        Rule {
            when: vec![Form { command: vec!["cat".into()], operands: vec!["FILE".into()], ..Form::default() }],
            ..regex_rule("cat")
        },
    ];
    let interceptor = Interceptor::new(&rules);
    let warnings = interceptor.warnings();
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].starts_with("bashInterceptor rule 0 (pattern `(`) skipped: invalid regex: "));
    assert!(!warnings[0].contains('\n'));
    assert!(warnings[1].starts_with("bashInterceptor rule 2 (pattern `x`) skipped: unsupported flag `y`"));
    assert_eq!(
        warnings[2],
        "bashInterceptor rule 3 (pattern `cat`) skipped: form 1 of `when`: unknown value class `FILE` (built in: \
         ANY, NUM, +NUM, PATH, SUBST; others are defined in `values`)"
    );
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
        when: vec![],
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
    assert!(rules[0].when.is_empty());
}

#[test]
fn a_user_rule_with_forms_blocks_only_those_shapes() {
    let rules: Vec<Rule> = serde_json::from_str(
        r#"[{"name": "curl-get", "pattern": "^curl\\s", "tool": "fetch", "message": "Use fetch.",
             "when": [{"command": ["curl"], "options": ["-s", "-L", "--max-time NUM"], "operands": ["URL"],
                       "values": {"URL": "https?://\\S+"}}]},
            {"name": "tee-write", "pattern": "^printf\\s", "tool": "write", "message": "Use write.",
             "when": [{"command": ["printf"], "operands": ["ANY+"], "stdout": "file"}]}]"#,
    )
    .unwrap();
    assert_eq!(rules[1].when[0].stdout, FormStdout::File);
    let interceptor = Interceptor::new(&rules);
    assert!(interceptor.warnings().is_empty(), "{:?}", interceptor.warnings());
    let offered = tools(&["fetch", "write"]);
    let rule = |command: &str| interceptor.check(command, &offered).map(|block| block.rule);
    assert_eq!(rule("curl -sL https://example.com").as_deref(), Some("curl-get"));
    assert_eq!(rule("curl --max-time 5 http://x.org/a").as_deref(), Some("curl-get"));
    assert_eq!(rule("curl -X POST https://example.com"), None);
    assert_eq!(rule("curl ftp://example.com"), None);
    assert_eq!(rule("curl -s https://example.com | jq ."), None);
    assert_eq!(rule("printf x > out.txt").as_deref(), Some("tee-write"));
    assert_eq!(rule("printf x"), None);
}

#[test]
fn the_default_rules_round_trip_through_the_settings_format() {
    let json = serde_json::to_value(default_rules()).unwrap();
    let back: Vec<Rule> = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, default_rules());
    assert_eq!(json[2]["when"][0]["operandsFirst"], true);
    let unknown =
        serde_json::json!([{"pattern": "x", "tool": "t", "message": "m", "when": [{"command": ["x"], "opts": []}]}]);
    assert!(serde_json::from_value::<Vec<Rule>>(unknown).is_err(), "a misspelt form field is an error");
}

#[test]
fn an_unparseable_command_falls_back_to_matching_its_whole_text_for_regex_rules_only() {
    let user = Interceptor::new(&[regex_rule(r"^\s*cat\s")]);
    let read = tools(&["read"]);
    // A syntax error, and an input that panics brush-parser 0.4 (fd number beyond i32).
    assert!(user.check("cat notes.txt )", &read).is_some());
    assert!(user.check("cat 2147483648<in", &read).is_some());
    // The fallback is the reference's plain text match: it neither splits lists nor masks quotes.
    assert_eq!(user.check("cd x && cat notes.txt )", &read), None);
    // Forms need the parsed words: the built-in rules never block what cannot be parsed.
    assert_eq!(blocked_by("cat notes.txt )"), None);
    assert_eq!(blocked_by("echo \"a > b\" )"), None);
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
    assert_eq!(blocked_by(&command), None, "too deep to parse");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn check_never_panics(
        command in prop_oneof![
            any::<String>(),
            "[a-z0-9 |;&<>()'\"$`\\\\\n#{}!=~+-]{0,60}",
            "(cat|echo|grep|sed|perl|find|head|tail) [a-z0-9 <>&|$()'\"`~+-]{0,30}",
            "[a-z ]{0,12}(9999999999|2147483648)[<>][a-z]{0,5}",
        ]
    ) {
        let _ = defaults().check(&command, &all_tools());
    }
}

#[test]
fn a_block_names_the_tool_as_the_callers_model_knows_it() {
    let claude = tools(&["Read", "Grep", "Glob", "Edit", "Write"]);
    let block = defaults().check("find . -name '*.rs'", &claude).unwrap();
    assert_eq!(block.suggested_tool, "Glob");
    assert!(block.message.starts_with("Use the `Glob` tool instead of find/fd."), "{}", block.message);
    assert_eq!(defaults().check("cat README.md", &claude).unwrap().suggested_tool, "Read");
    // Claude Code has no directory lister: `ls` runs.
    assert_eq!(defaults().check("ls src", &claude), None);
    let gemini = tools(&["read_file", "grep_search", "glob", "replace", "write_file", "list_directory"]);
    assert_eq!(defaults().check("ls src", &gemini).unwrap().suggested_tool, "list_directory");
    assert_eq!(defaults().check("sed -i 's/a/b/g' f", &gemini).unwrap().suggested_tool, "replace");
    // Explicit names for a tool the table does not know.
    let block = defaults().check("rg foo", &tools(&["grep=CodeSearch"])).unwrap();
    assert_eq!((block.suggested_tool.as_str(), block.message.contains("`CodeSearch`")), ("CodeSearch", true));
}
