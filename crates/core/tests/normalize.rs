//! Specification of `normalize_bash_command`: what is extracted, what is left alone, and
//! that an extraction never changes what bash prints.

use std::process::{Command, Stdio};

use bashrt_core::{normalize_bash_command, ExtractedLimit, LimitKind, Normalized};
use proptest::prelude::*;

fn extracted(command: &str, kind: LimitKind, count: u64) -> Normalized {
    Normalized { command: command.to_owned(), extracted: Some(ExtractedLimit { kind, count }) }
}

fn unchanged(command: &str) -> Normalized {
    Normalized { command: command.trim().to_owned(), extracted: None }
}

#[test]
fn every_head_count_form_is_extracted() {
    for form in ["-n 5", "-n5", "-5", "--lines=5", "--lines 5"] {
        let command = format!("ls -la | head {form}");
        assert_eq!(normalize_bash_command(&command), extracted("ls -la", LimitKind::Head, 5), "{command}");
    }
}

#[test]
fn every_tail_count_form_is_extracted() {
    for form in ["-n 3", "-n3", "-3", "--lines=3", "--lines 3"] {
        let command = format!("git log --oneline | grep fix | tail {form}");
        assert_eq!(
            normalize_bash_command(&command),
            extracted("git log --oneline | grep fix", LimitKind::Tail, 3),
            "{command}"
        );
    }
}

#[test]
fn zero_is_a_count_of_no_lines() {
    assert_eq!(normalize_bash_command("seq 3 | head -n 0"), extracted("seq 3", LimitKind::Head, 0));
}

#[test]
fn leading_and_trailing_whitespace_is_trimmed_with_or_without_extraction() {
    assert_eq!(normalize_bash_command("  \n ls -la \t\n"), unchanged("ls -la"));
    assert_eq!(normalize_bash_command("\n  ls  |  head -n 2  \n"), extracted("ls", LimitKind::Head, 2));
}

#[test]
fn commands_that_are_not_one_pipeline_are_left_alone() {
    for command in [
        "a; b | head -5",
        "a && b | tail -3",
        "a || b | head -5",
        "ls | head -5;",
        "ls | head -5 &",
        "ls | head -5\necho done",
        "! ls | head -5",
        "time ls | head -5",
        "head -5",
        "head -5 file.txt",
    ] {
        assert_eq!(normalize_bash_command(command), unchanged(command), "{command:?}");
    }
}

#[test]
fn last_stages_that_are_not_a_plain_line_count_are_left_alone() {
    for command in [
        "ls | head",
        "ls | head -c 5",
        "ls | head -c5",
        "ls | tail -f",
        "ls | tail -n +5",
        "ls | tail +5",
        "ls | head -n -5",
        "ls | head -n 5 file",
        "ls | head -n 5 -q",
        "ls | head -n 5 > out.txt",
        "ls | head -n 5 2>&1",
        "ls | LC_ALL=C head -n 5",
        "ls | head -n \"5\"",
        "ls | head '-5'",
        "ls | head -n 5x",
        "ls | head -n 99999999999999999999999",
        "ls | sort | head -5 | wc -l",
        "ls | /usr/bin/head -5",
        "ls | { head -5; }",
    ] {
        assert_eq!(normalize_bash_command(command), unchanged(command), "{command:?}");
    }
}

#[test]
fn pipe_with_stderr_before_the_last_stage_is_left_alone() {
    assert_eq!(normalize_bash_command("ls |& head -5"), unchanged("ls |& head -5"));
}

#[test]
fn limits_inside_quotes_or_substitutions_are_left_alone() {
    for command in [
        "echo \"x | head -5\"",
        "echo 'x | head -5'",
        "echo $(ls | head -5)",
        "files=$(ls | head -5)",
        "echo `ls | head -5`",
        "echo x \\| head -5",
    ] {
        assert_eq!(normalize_bash_command(command), unchanged(command), "{command:?}");
    }
}

#[test]
fn heredoc_commands_keep_their_inner_whitespace_and_body() {
    let command = "cat <<EOF\n  indented | head -5\n\ttabbed\nEOF";
    assert_eq!(normalize_bash_command(command), unchanged(command));
}

#[test]
fn a_pipeline_whose_heredoc_body_follows_the_last_stage_is_left_alone() {
    for command in ["cat <<EOF | head -5\nline\nEOF", "cat <<EOF | head -5\nEOF", "cat <<EOF |\nline\nEOF\nhead -5"] {
        assert_eq!(normalize_bash_command(command), unchanged(command), "{command:?}");
    }
}

#[test]
fn a_heredoc_that_ends_inside_an_earlier_stage_does_not_prevent_extraction() {
    let command = "{ cat <<EOF\na\nb\nEOF\n} | head -n 1";
    assert_eq!(normalize_bash_command(command), extracted("{ cat <<EOF\na\nb\nEOF\n}", LimitKind::Head, 1));
}

#[test]
fn non_ascii_text_before_the_stage_is_cut_on_the_right_character() {
    assert_eq!(
        normalize_bash_command("echo 'héllo wörld — 你好' | grep ö | head -n 1"),
        extracted("echo 'héllo wörld — 你好' | grep ö", LimitKind::Head, 1)
    );
}

#[test]
fn a_comment_after_the_stage_goes_with_the_stage() {
    assert_eq!(normalize_bash_command("ls | head -5 # first five # really"), extracted("ls", LimitKind::Head, 5));
}

#[test]
fn a_line_continuation_before_the_cut_pipe_is_removed() {
    assert_eq!(normalize_bash_command("ls -la \\\n  | head -n 5"), extracted("ls -la", LimitKind::Head, 5));
    assert_eq!(normalize_bash_command("ls -la |\\\n  head -n 5"), extracted("ls -la", LimitKind::Head, 5));
    assert_eq!(normalize_bash_command("ls -la |\n  head -n 5"), extracted("ls -la", LimitKind::Head, 5));
}

#[test]
fn compound_first_stages_are_kept_whole() {
    assert_eq!(normalize_bash_command("(cd /tmp && ls) | tail -n 2"), extracted("(cd /tmp && ls)", LimitKind::Tail, 2));
    assert_eq!(normalize_bash_command("echo x 2>&1 | head -1"), extracted("echo x 2>&1", LimitKind::Head, 1));
}

#[test]
fn parse_errors_leave_the_command_alone() {
    for command in ["ls | head -5 )", "ls | | head -5", "echo 'unterminated | head -5"] {
        assert_eq!(normalize_bash_command(command), unchanged(command), "{command:?}");
    }
}

#[test]
fn parser_panics_leave_the_command_alone() {
    // brush-parser 0.4 unwraps a redirect fd number that does not fit in i32.
    for command in ["echo 99999999999>out | head -5", "cat 2147483648<in | tail -2"] {
        assert_eq!(normalize_bash_command(command), unchanged(command), "{command:?}");
    }
}

#[test]
fn deep_nesting_is_parsed_without_overflowing_the_callers_stack() {
    let depth = 1500;
    let group = format!("{}ls;{}", "{ ".repeat(depth), " }".repeat(depth));
    assert_eq!(normalize_bash_command(&format!("{group} | head -n 3")), extracted(&group, LimitKind::Head, 3));
}

#[test]
fn nesting_too_deep_to_parse_safely_is_left_alone() {
    for depth in [5_000, 200_000] {
        let command = format!("{}ls;{} | head -n 3", "{ ".repeat(depth), " }".repeat(depth));
        assert_eq!(normalize_bash_command(&command), unchanged(&command));
        let command = format!("echo {}x{} | head -n 3", "$(".repeat(depth), ")".repeat(depth));
        assert_eq!(normalize_bash_command(&command), unchanged(&command));
    }
}

fn bash_stdout(command: &str) -> Vec<u8> {
    let output = Command::new("bash").arg("-c").arg(command).output().unwrap();
    output.stdout
}

/// Runs `command` with bash and pipes its stdout through the real `head`/`tail`.
fn bash_stdout_limited(command: &str, limit: ExtractedLimit) -> Vec<u8> {
    let mut producer = Command::new("bash").arg("-c").arg(command).stdout(Stdio::piped()).spawn().unwrap();
    let program = match limit.kind {
        LimitKind::Head => "head",
        LimitKind::Tail => "tail",
    };
    let output = Command::new(program)
        .arg("-n")
        .arg(limit.count.to_string())
        .stdin(producer.stdout.take().unwrap())
        .output()
        .unwrap();
    producer.wait().unwrap();
    output.stdout
}

#[test]
fn extracted_limits_reproduce_what_bash_prints() {
    for original in [
        "seq 1 100 | head -n 5",
        "seq 1 100 | head -7",
        "seq 1 100 | tail --lines=4",
        "seq 1 100 | tail -n3",
        "seq 1 30 | grep 1 | head --lines 2",
        "seq 1 10 | head -n 0",
        "yes | head -5",
        "printf 'é\\nü\\n你\\n' | tail -n 2",
        "for i in 1 2 3; do echo \"line $i | head -1\"; done | tail -1 # last",
        "{ cat <<EOF\na1\na2\nEOF\n} | head -n 1",
        "seq 1 5 \\\n  | tail -n 2",
    ] {
        let normalized = normalize_bash_command(original);
        let Some(limit) = normalized.extracted else {
            panic!("{original:?} was not extracted");
        };
        assert_eq!(
            bash_stdout_limited(&normalized.command, limit),
            bash_stdout(original),
            "{original:?} → {:?}",
            normalized.command
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_and_only_ever_shortens_the_trimmed_command(
        command in prop_oneof![
            any::<String>(),
            "[a-z0-9 |;&<>()'\"$`\\\\\n#{}!=+-]{0,60}",
            "[a-z ]{0,12}(9999999999|2147483648)[<>][a-z]{0,5}( \\| (head|tail) -[0-9n ]{1,4})?",
            "[a-z $'\"()|]{0,30} \\| (head|tail) (-n ?|-|--lines[= ])[0-9+-]{1,3}[ #a-z;&]{0,5}",
        ]
    ) {
        let normalized = normalize_bash_command(&command);
        let trimmed = command.trim();
        prop_assert!(trimmed.starts_with(&normalized.command));
        if normalized.extracted.is_none() {
            prop_assert_eq!(normalized.command.as_str(), trimmed);
        } else {
            prop_assert!(normalized.command.len() < trimmed.len());
        }
    }
}
