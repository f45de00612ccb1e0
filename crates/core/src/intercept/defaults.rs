//! The built-in rules: the reference's names, tools and messages, each narrowed by forms to the commands
//! its suggested tool does completely (a plain read of named files, a plain search, a find by name or
//! type, one literal replacement in one file, a plain write of literal text). They are ordinary
//! settings data; `bashrt intercept --rules` prints them in the settings format.

use super::{Form, FormStdin, FormStdout, Rule};

const EDIT_SUFFIX: &str = "It provides diff preview and fuzzy matching.";

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|word| (*word).to_owned()).collect()
}

fn form(command: &[&str], options: &[&str], require: &[&str], operands: &[&str]) -> Form {
    Form {
        command: words(command),
        options: words(options),
        require: words(require),
        operands: words(operands),
        ..Form::default()
    }
}

fn rule(name: &str, pattern: &str, tool: &str, message: String, when: Vec<Form>) -> Rule {
    Rule { name: Some(name.to_owned()), pattern: pattern.to_owned(), flags: None, tool: tool.to_owned(), message, when }
}

/// The settings default (`bashInterceptor.patterns`).
pub fn default_rules() -> Vec<Rule> {
    let edit = |what: &str| format!("Use the `edit` tool instead of {what}. {EDIT_SUFFIX}");
    vec![
        rule(
            "file-reader",
            r"^(cat|head|tail|less|more)\s",
            "read",
            "Use the `read` tool instead of cat/head/tail. It provides better context and handles binary files."
                .to_owned(),
            vec![
                // One file per read; several files printed together are not one read.
                form(&["cat", "less", "more"], &[], &[], &["PATH"]),
                // The first lines: the read tool's `limit`.
                form(&["head"], &["-n NUM", "--lines=NUM", "-NUM"], &[], &["PATH"]),
                // From line N on: the read tool's `offset`. The last N lines are not something it does.
                form(&["tail"], &["-n +NUM", "--lines=+NUM"], &["-n +NUM|--lines=+NUM"], &["PATH"]),
            ],
        ),
        rule(
            "search-tool",
            r"^(grep|egrep|fgrep|rg|ripgrep|ag|ack)\s",
            "grep",
            "Use the `grep` tool instead of grep/rg. It respects .gitignore and provides structured output.".to_owned(),
            search_forms(),
        ),
        rule(
            "file-finder",
            r"^(find|fd)\s",
            "find",
            "Use the `find` tool instead of find/fd. It respects .gitignore and is faster for glob patterns."
                .to_owned(),
            {
                let find = |require: &str| {
                    let options = ["-name NAME", "-type f", "-print"];
                    let form = form(&["find"], &options, &[require], &["PATH?"]);
                    // A name pattern with a `/` matches nothing in find.
                    let values = [("NAME".to_owned(), "[^/]+".to_owned())].into();
                    Form { operands_first: true, values, ..form }
                };
                let fd_options = ["-g", "--glob", "-H", "--hidden", "-t f", "-t file", "--type=f", "--type=file"];
                // `fd -e txt` (every `.txt` file: `**/*.txt`), alone or with `.` (match all) and a path.
                let fd_extension = {
                    let options = ["-e EXT", "--extension=EXT", "-H", "--hidden", "-t f", "-t file", "--type=f"];
                    let form = form(&["fd"], &options, &["-e EXT|--extension=EXT"], &["DOT?"]);
                    let values = [("EXT".to_owned(), "[A-Za-z0-9_]+".to_owned()), ("DOT".to_owned(), r"\.".to_owned())];
                    Form { values: values.into(), ..form }
                };
                let fd_extension_in = {
                    let options = ["-e EXT", "--extension=EXT", "-H", "--hidden", "-t f", "-t file", "--type=f"];
                    let form = form(&["fd"], &options, &["-e EXT|--extension=EXT"], &["DOT", "PATH"]);
                    let values = [("EXT".to_owned(), "[A-Za-z0-9_]+".to_owned()), ("DOT".to_owned(), r"\.".to_owned())];
                    Form { values: values.into(), ..form }
                };
                // `find [PATH] -name A -o -name B …`: one glob with alternatives. Only this order: with
                // `-type` or `-print` the `-o` binds otherwise (`-name A -o -name B -print` prints B alone).
                let find_any_of = Form {
                    command: words(&["find"]),
                    args: Some(r"([^-\s]\S*\s)?-name [^/\s]+( -o -name [^/\s]+)+".to_owned()),
                    ..Form::default()
                };
                vec![
                    find("-name NAME"),
                    find("-type f"),
                    find_any_of,
                    form(&["fd"], &fd_options, &["-g|--glob"], &["ANY", "PATH?"]),
                    fd_extension,
                    fd_extension_in,
                ]
            },
        ),
        rule(
            "sed-in-place",
            r"^sed\s",
            "edit",
            edit("sed -i"),
            // One literal replacement in one file (see the SUBST class); no backup suffix (`-i[]`).
            vec![
                form(&["sed"], &["-i[]", "--in-place", "-E", "-r"], &["-i[]|--in-place"], &["SUBST", "PATH"]),
                form(
                    &["sed"],
                    &["-i[]", "--in-place", "-E", "-r", "-e SUBST", "--expression=SUBST"],
                    &["-i[]|--in-place", "-e SUBST|--expression=SUBST"],
                    &["PATH"],
                ),
            ],
        ),
        rule(
            "perl-in-place",
            r"^perl\s",
            "edit",
            edit("perl -i"),
            vec![form(&["perl"], &["-p", "-i[]", "-e SUBST"], &["-p", "-i[]", "-e SUBST"], &["PATH"])],
        ),
        rule(
            "directory-lister",
            r"^ls(\s|$)",
            "ls",
            "Use the `ls` tool instead of ls. It lists a directory, marking which entries are directories.".to_owned(),
            // The names in one directory; `-l`, `-R`, sorting and colour options are more than that.
            vec![form(&["ls"], &["-1", "-p", "-F"], &[], &["PATH?"])],
        ),
        rule(
            "redirect-write",
            r"^(echo|printf|cat)\s",
            "write",
            "Use the `write` tool instead of echo/cat redirection. It handles encoding and provides confirmation."
                .to_owned(),
            vec![
                Form { stdout: FormStdout::File, ..form(&["echo"], &["-n", "-e", "-E"], &[], &["ANY*"]) },
                Form { stdout: FormStdout::File, ..form(&["printf"], &[], &[], &["ANY+"]) },
                Form { stdin: FormStdin::Text, stdout: FormStdout::File, ..form(&["cat"], &[], &[], &[]) },
            ],
        ),
    ]
}

/// grep and its old names (`egrep` is `grep -E`, `fgrep` is `grep -F`).
const GREPS: [&str; 3] = ["grep", "egrep", "fgrep"];

/// grep, rg, ag and ack with the options the grep tool has: a pattern (regex or literal, any case,
/// whole words), a path, one glob, context lines. Its output always has file names and line numbers,
/// so `-n` and `-H` change nothing; it always recurses.
fn search_forms() -> Vec<Form> {
    const RECURSIVE: &str = "-r|-R|--recursive|--dereference-recursive";
    let grep_options = [
        "-r",
        "-R",
        "--recursive",
        "--dereference-recursive",
        "-n",
        "--line-number",
        "-H",
        "--with-filename",
        "-i",
        "--ignore-case",
        "-F",
        "--fixed-strings",
        "-E",
        "--extended-regexp",
        "-w",
        "--word-regexp",
        "-I",
        "-s",
        "--no-messages",
        "-C NUM",
        "--context=NUM",
        "-NUM",
        "--include=ANY",
    ];
    let with_e = |options: &[&'static str]| {
        let mut all = options.to_vec();
        all.extend(["-e ANY", "--regexp=ANY"]);
        all
    };
    let rg_options = [
        "-i",
        "--ignore-case",
        "-F",
        "--fixed-strings",
        "-w",
        "--word-regexp",
        "-n",
        "--line-number",
        "--hidden",
        "-C NUM",
        "--context=NUM",
        "-g ANY",
        "--glob=ANY",
    ];
    let ag_options = ["-i", "--ignore-case", "-w", "--word-regexp", "-Q", "--literal"];
    vec![
        // Without a path, grep reads stdin unless it recurses. The grep tool searches one path: a
        // search of several files at once is not one call of it.
        form(&GREPS, &grep_options, &[RECURSIVE], &["ANY", "PATH?"]),
        form(&GREPS, &grep_options, &[], &["ANY", "PATH"]),
        form(&GREPS, &with_e(&grep_options), &[RECURSIVE, "-e ANY|--regexp=ANY"], &["PATH?"]),
        form(&GREPS, &with_e(&grep_options), &["-e ANY|--regexp=ANY"], &["PATH"]),
        form(&["rg", "ripgrep"], &rg_options, &[], &["ANY", "PATH?"]),
        form(&["rg", "ripgrep"], &with_e(&rg_options), &["-e ANY|--regexp=ANY"], &["PATH?"]),
        form(&["ag", "ack"], &ag_options, &[], &["ANY", "PATH?"]),
    ]
}
