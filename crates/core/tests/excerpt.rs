//! The excerpt view of crafted outputs, through the real sink: where the errors are, how many there
//! are, and outputs that are hard to cut (one giant line, invalid UTF-8, no errors at all).

use bashrt_core::{
    OutputSink, Severity, Signature, SignatureSet, SinkConfig, SinkOutput, ViewOptions, DEFAULT_MAX_BYTES,
};

use bashrt_core::testing::{build_excerpt, excerpt_of, ExcerptView};

/// Pushes `output` in `chunk`-byte pieces through a default sink and builds the view.
fn view_of(output: &[u8], chunk: usize) -> (ExcerptView, SinkOutput) {
    let mut sink = OutputSink::new(SinkConfig::default(), None);
    for piece in output.chunks(chunk) {
        sink.push(piece);
    }
    let out = sink.finish();
    let found = excerpt_of(&out).expect("the default config indexes errors");
    let view = build_excerpt(
        found,
        out.tail(),
        out.total_lines(),
        out.total_bytes(),
        DEFAULT_MAX_BYTES,
        &ViewOptions::default(),
    );
    (view, out)
}

fn filler(from: u64, to: u64) -> String {
    (from..=to).map(|i| format!("step {i}: compiled module number {i} of the project\n")).collect()
}

/// Every excerpt, whatever the output: within the budget, the head first, the tail last, markers
/// between, ranges in order.
fn check_shape(view: &ExcerptView, out: &SinkOutput) {
    assert!(view.text.len() <= DEFAULT_MAX_BYTES, "view is {} bytes", view.text.len());
    assert!(view.text.contains("\n… lines ") || view.text.contains("\n… "), "no marker");
    for pair in view.ranges.windows(2) {
        assert!(pair[0].end < pair[1].start, "ranges overlap or are out of order: {:?}", view.ranges);
    }
    let tail = view.tail.expect("a tail");
    assert_eq!(tail.end, out.total_lines());
}

#[test]
fn an_error_on_line_2_of_100000_is_in_the_head() {
    let mut output = String::from("   Compiling demo v0.1.0\nerror[E0425]: cannot find value `x` in this scope\n");
    output.push_str(&filler(3, 100_000));
    let (view, out) = view_of(output.as_bytes(), 64 * 1024);
    check_shape(&view, &out);
    assert!(view.text.starts_with("   Compiling demo v0.1.0\nerror[E0425]: cannot find value `x`"));
    assert_eq!(view.head.unwrap().start, 1);
    assert_eq!(view.error_lines.errors, 1);
    assert_eq!(view.error_lines.shown, 1);
    assert!(view.text.contains("none of them match error patterns"), "{}", &view.text[..2000]);
    assert!(view.text.ends_with("step 100000: compiled module number 100000 of the project\n"));
}

#[test]
fn one_error_among_10000_warnings_is_shown_with_its_location() {
    let mut output = filler(1, 500);
    for i in 0..10_000 {
        output.push_str(&format!("warning: unused variable: `v{i}`\n  --> src/gen.rs:{i}:9\n"));
        if i == 6000 {
            output.push_str("error[E0308]: mismatched types\n  --> src/main.rs:4:18\n   |\n");
        }
    }
    output.push_str("error: could not compile `demo` (bin \"demo\") due to 1 previous error; 10000 warnings emitted\n");
    output.push_str(&filler(1, 300));
    let (view, out) = view_of(output.as_bytes(), 4096);
    check_shape(&view, &out);
    let error_line = 500 + 6001 * 2 + 1;
    assert!(view.text.contains(&format!("\n{error_line}:error[E0308]: mismatched types\n")), "error missing");
    assert!(view.text.contains(&format!("\n{}-  --> src/main.rs:4:18\n", error_line + 1)), "location missing");
    assert_eq!(view.error_lines.errors, 2);
    assert_eq!(view.error_lines.warnings, 10_000);
    // Warnings fill at most their share: most of the budget is the tail's.
    let warnings_shown = view.text.matches(":warning: unused variable").count();
    assert!(warnings_shown > 0 && warnings_shown < 200, "{warnings_shown} warnings shown");
}

#[test]
fn errors_only_in_the_middle_are_numbered_between_head_and_tail() {
    let mut output = filler(1, 3000);
    output.push_str("Traceback (most recent call last):\n  File \"/srv/app.py\", line 9, in load\n");
    output.push_str("    return int(size)\nValueError: invalid literal for int() with base 10: '12kb'\n");
    output.push_str(&filler(3005, 6000));
    let (view, out) = view_of(output.as_bytes(), 65536);
    check_shape(&view, &out);
    assert_eq!(view.ranges.len(), 3, "{:?}", view.ranges);
    assert_eq!(view.section_matched, 2);
    assert!(view.text.contains(
        "3001:Traceback (most recent call last):\n3002-  File \"/srv/app.py\", line 9, in load\n\
         3003-    return int(size)\n3004:ValueError: invalid literal for int() with base 10: '12kb'\n"
    ));
    let head_end = view.head.unwrap().end;
    assert!(view.text.contains(&format!(
        "… lines {}-{} omitted ({} lines); 2 of them match error patterns and are shown below as N:line, with \
         context as N-line …\n",
        head_end + 1,
        view.tail.unwrap().start - 1,
        view.tail.unwrap().start - 1 - head_end
    )));
    assert!(view.text.contains(&format!(
        "… end of matched lines; the output ends with lines {}-6000 …\n",
        view.tail.unwrap().start
    )));
    assert_eq!(view.describe_ranges(), format!("lines 1-{head_end}, 2 error lines, {}-6000", view.tail.unwrap().start));
}

#[test]
fn more_error_lines_than_fit_keep_the_earliest_within_the_budget() {
    let mut output = filler(1, 1000);
    for i in 0..5000 {
        output.push_str(&format!("src/m{i}.c:{i}:5: error: 'thing_{i}' undeclared (first use in this function)\n"));
    }
    output.push_str(&filler(1, 1000));
    let (view, out) = view_of(output.as_bytes(), 8192);
    check_shape(&view, &out);
    assert_eq!(view.error_lines.errors, 5000);
    assert!(view.section_matched > 50 && view.section_matched < 5000, "{}", view.section_matched);
    assert!(view.error_lines.shown < view.error_lines.found);
    // Earliest first: the first error is there, and shown errors are a prefix of them.
    assert!(view.text.contains("\n1001:src/m0.c:0:5: error: 'thing_0' undeclared"));
    let last_shown = 1000 + view.section_matched;
    assert!(view.text.contains(&format!("\n{last_shown}:src/m")));
    assert!(!view.text.contains(&format!("\n{}:src/m", last_shown + 1)));
    assert!(view.text.contains("5000 of them match error patterns;"), "{}", &view.text[..3000]);
}

#[test]
fn a_single_giant_line_is_cut_at_both_ends() {
    // Classified by its first kept bytes (a line is kept up to 1 KiB), so the error starts the line.
    let line = format!("error: something went wrong: {}", "x".repeat(3_000_000));
    let (view, out) = view_of(line.as_bytes(), 65536);
    assert_eq!(out.total_lines(), 1);
    assert!(view.text.len() <= DEFAULT_MAX_BYTES, "{}", view.text.len());
    assert!(view.text.starts_with("error: something went wrong: xxx"));
    // Both parts are one line longer than `bash.maxLineChars`: the view clamps them too.
    assert!(view.text.contains(" chars omitted]\n… "), "{}", &view.text[..300]);
    assert!(view.text.contains(" bytes omitted from the middle of line 1; none of them match"));
    assert!(view.text.ends_with(" chars omitted]"));
    assert_eq!(view.head.unwrap(), view.tail.unwrap());
    assert_eq!(view.error_lines.errors, 1);
}

#[test]
fn invalid_utf8_is_replaced_and_errors_are_still_found() {
    let mut output = filler(1, 2000).into_bytes();
    output.extend_from_slice(b"error: bad byte \xff\xfe in \xc3 config\n");
    output.extend_from_slice(&[0xE2, 0x82]);
    output.extend_from_slice(b"\n");
    output.extend(filler(2003, 4000).into_bytes());
    let (view, out) = view_of(&output, 1000);
    check_shape(&view, &out);
    assert!(view.text.contains("\n2001:error: bad byte \u{FFFD}\u{FFFD} in \u{FFFD} config\n"), "missing");
}

#[test]
fn no_errors_at_all_is_head_and_tail() {
    let output = filler(1, 5000);
    let (view, out) = view_of(output.as_bytes(), 65536);
    check_shape(&view, &out);
    assert_eq!(view.ranges.len(), 2);
    assert_eq!(view.error_lines.found, 0);
    assert_eq!(view.section_matched, 0);
    assert!(view.text.contains("omitted") && view.text.contains("none of them match error patterns …\n"));
    // The whole budget is used by the head and the tail.
    assert!(view.text.len() > DEFAULT_MAX_BYTES - 1000, "{}", view.text.len());
}

#[test]
fn the_view_does_not_depend_on_how_the_output_was_cut() {
    let mut output = filler(1, 1500);
    for i in 0..40 {
        output.push_str(&format!("  File \"x.py\", line {i}, in f\nKeyError: 'k{i}'\n"));
        output.push_str(&filler(1, 20));
        output.push_str(&format!("warning: careful {i}\n"));
    }
    output.push_str(&filler(1, 1500));
    let (whole, _) = view_of(output.as_bytes(), output.len());
    for chunk in [1, 7, 100, 4095, 65536] {
        let (view, _) = view_of(output.as_bytes(), chunk);
        assert_eq!(view, whole, "chunks of {chunk}");
    }
    assert_eq!(whole.error_lines.errors, 40);
}

#[test]
fn signatures_from_settings_replace_or_extend_the_set() {
    let mut settings = bashrt_core::Settings::default();
    let warning = settings
        .apply_override(r#"bash.extraErrorSignatures=[{"name":"boom","severity":"error","literals":["BOOM"]},{"name":"bad","severity":"error","literals":["x"],"pattern":"("}]"#)
        .unwrap()
        .unwrap();
    assert!(warning.starts_with("bash.extraErrorSignatures signature 1 (bad) skipped: invalid regex"), "{warning}");
    let set = settings.error_signatures.clone();
    assert_eq!(set.classify("a BOOM here").map(|m| m.severity), Some(Severity::Error));
    assert_eq!(set.classify("error: still the defaults").map(|m| m.severity), Some(Severity::Error));
    settings.apply_override("bash.errorSignatures=[]").unwrap();
    let set = settings.error_signatures.clone();
    assert!(set.classify("error: no longer").is_none());
    assert!(set.classify("BOOM").is_some());
    let only: Vec<Signature> = set.extra().to_vec();
    assert_eq!(only.len(), 1);
    assert!(SignatureSet::new(Vec::new(), Vec::new()).is_empty());
    assert!(settings.apply_override("bash.view=sideways").is_err());
    settings.apply_override("bash.view=tail").unwrap();
    assert!(settings.sink_config(None).signatures.is_none());
}

/// Runs `script` in bash in `dir` and returns what it printed (stdout and stderr, as one stream).
fn output_of(dir: &std::path::Path, script: &str) -> Vec<u8> {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1; {script}"))
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("bash runs");
    out.stdout
}

/// The lines of the view shown as matched (`N:line`), without their numbers.
fn matched_lines(view: &ExcerptView) -> Vec<&str> {
    view.text
        .lines()
        .filter_map(|l| l.split_once(':').filter(|(n, _)| n.parse::<u64>().is_ok()).map(|(_, rest)| rest))
        .collect()
}

#[test]
fn the_panic_of_todays_rustc_with_its_thread_id_is_shown_with_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let program = r#"
fn main() {
    for i in 0..3000 { println!("worker 1: processed batch {i} of the nightly import"); }
    let worker = std::thread::Builder::new().name("worker-2".into()).spawn(|| {
        let batches: Vec<u32> = Vec::new();
        let _ = batches[7];
    }).unwrap();
    let _ = worker.join();
    for i in 0..3000 { println!("worker 1: processed batch {i} of the nightly export"); }
}
"#;
    std::fs::write(dir.path().join("main.rs"), program).unwrap();
    let output = output_of(dir.path(), "rustc -O -o demo main.rs && ./demo");
    let text = String::from_utf8_lossy(&output);
    // The line as this toolchain prints it (rustc 1.95: `thread 'worker-2' (12345) panicked at …`).
    let panic = text.lines().find(|l| l.contains("panicked at")).unwrap_or_else(|| panic!("{text}"));
    let (view, _) = view_of(&output, 64 * 1024);
    let matched = matched_lines(&view);
    assert!(matched.contains(&panic), "{panic:?} not matched in:\n{}", view.text);
    assert!(view.text.contains("index out of bounds: the len is 0 but the index is 7"), "{}", view.text);
}

#[test]
fn a_merge_conflict_among_thousands_of_files_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
set -e
git init -q -b main . && git config user.email t@example.com && git config user.name t
for i in $(seq 1 1500); do echo "line $i" > "file_$i.txt"; done
echo base > conflict.txt && git add -A && git commit -qm base
git checkout -qb topic && echo topic > conflict.txt
for i in $(seq 1 1500); do echo "topic $i" >> "file_$i.txt"; done
git commit -qam topic
git checkout -q main && echo main > conflict.txt && git commit -qam main
git merge --no-edit --stat topic || true
"#;
    let output = output_of(dir.path(), script);
    let text = String::from_utf8_lossy(&output);
    let conflict = text.lines().find(|l| l.starts_with("CONFLICT (content)")).unwrap_or_else(|| panic!("{text}"));
    let (view, _) = view_of(&output, 64 * 1024);
    assert!(view.text.lines().any(|l| l == conflict || l.ends_with(&format!(":{conflict}"))), "{}", view.text);
}

#[test]
fn frames_under_a_traceback_and_the_request_above_a_download_error_come_with_them() {
    let mut output = filler(1, 2000);
    output.push_str("Traceback (most recent call last):\n");
    for (file, line, func) in
        [("app.py", 90, "<module>"), ("app.py", 71, "main"), ("loader.py", 40, "load"), ("loader.py", 12, "parse")]
    {
        output.push_str(&format!("  File \"{file}\", line {line}, in {func}\n    return step_{line}()\n"));
    }
    output.push_str("KeyError: 'id'\n");
    output.push_str(&filler(2001, 2500));
    // A lint in a format no signature names, found by the location under it, with its source lines.
    output.push_str("E722 Do not use bare `except`\n  --> pkg/mod_012.py:18:5\n   |\n17 |     total += 1\n");
    output.push_str("18 |     except:\n   |     ^^^^^^\n");
    output.push_str(&filler(2501, 3000));
    output.push_str("--2026-12-07 12:00:00--  http://127.0.0.1:8000/data/part-0042.bin\n");
    output.push_str("Connecting to 127.0.0.1:8000... connected.\n");
    output.push_str("HTTP request sent, awaiting response... 404 File not found\n");
    output.push_str("2026-12-07 12:00:00 ERROR 404: File not found.\n");
    output.push_str(&filler(3001, 4000));
    // Node's uncaught error under a supervisor's gutter: the location and the code line above it.
    output.push_str("[2] /srv/app/migrate.js:4\n[2]   if (i === 27) throw new Error(`no such relation`);\n");
    output.push_str(
        "[2]                 ^\n[2] \n[2] Error: no such relation\n[2]     at apply (/srv/app/migrate.js:4:23)\n",
    );
    output.push_str(&filler(4001, 5000));
    let (view, out) = view_of(output.as_bytes(), 4096);
    check_shape(&view, &out);
    for needed in ["File \"loader.py\", line 40, in load", "File \"app.py\", line 71, in main", "KeyError: 'id'"] {
        assert!(view.text.contains(needed), "{needed} missing:\n{}", view.text);
    }
    assert!(view.text.contains("-2026-12-07 12:00:00--  http://127.0.0.1:8000/data/part-0042.bin\n"), "{}", view.text);
    for needed in
        ["-[2] /srv/app/migrate.js:4\n", "-[2]   if (i === 27) throw", "-[2]     at apply (/srv/app/migrate.js:4:23)"]
            .into_iter()
            .chain([":E722 Do not use bare `except`\n", "-  --> pkg/mod_012.py:18:5\n", "-18 |     except:\n"])
    {
        assert!(view.text.contains(needed), "{needed} missing:\n{}", view.text);
    }
}

#[test]
fn the_blocks_under_an_error_come_with_it_and_end_where_they_end() {
    let mut output = filler(1, 2000);
    // Lua: the traceback under a header at the error's own depth.
    output.push_str("FAILED target_1100: build.lua:8: attempt to index a nil value (field 'opts')\n");
    output
        .push_str("stack traceback:\n\tbuild.lua:8: in upvalue 'flags'\n\tbuild.lua:12: in function <build.lua:11>\n");
    output.push_str(&filler(2001, 2500));
    // Go's race detector: blocks of frames, each under a header, separated by blank lines.
    output.push_str("==================\nWARNING: DATA RACE\nRead at 0x00c0001e5048 by goroutine 459:\n");
    output.push_str("  example.com/cache.(*Cache).Get()\n      /src/cache/cache.go:17 +0xcc\n\n");
    output.push_str("Previous write at 0x00c0001e5048 by goroutine 461:\n  example.com/cache.(*Cache).Put()\n");
    output.push_str("      /src/cache/cache.go:12 +0xe7\n==================\n");
    output.push_str(&filler(2501, 3000));
    // gdb: the signal, where it stopped with the source line, then the thread's frames.
    output.push_str("\nThread 42 \"ledger\" received signal SIGSEGV, Segmentation fault.\n");
    output.push_str("[Switching to Thread 0x7fffe3da96c0 (LWP 24701)]\n");
    output.push_str("lookup_field (rec=0x7fffe3da3398, name=0x555555556008 \"price\") at ledger.c:15\n");
    output.push_str("15\t        if (strcmp(rec->fields[i]->name, name) == 0)\n\n");
    output.push_str("Thread 42 (Thread 0x7fffe3da96c0 (LWP 24701) \"ledger\"):\n");
    output.push_str("#0  lookup_field (rec=0x7fffe3da3398, name=0x555555556008 \"price\") at ledger.c:15\n");
    output.push_str("#1  0x000055555555524f in price_of (rec=0x7fffe3da3398) at ledger.c:22\n");
    output.push_str(&filler(3001, 3500));
    // Ansible: the task's origin, then the playbook's lines around it with a caret.
    output.push_str("[ERROR]: Task failed: Module failed: non-zero return code\nOrigin: /srv/site.yml:165:7\n\n");
    output.push_str("164\n165     - name: check release directory\n          ^ column 7\n\n");
    output.push_str(&filler(3501, 4000));
    // An error that opens no block: the lines after it that merely look like one are not kept.
    output.push_str("12:00:01 ERROR lost the lease\nSummary:\nstep 4001 done\n\n  detail that is not the error's\n");
    output.push_str(&filler(4002, 5000));
    let (view, out) = view_of(output.as_bytes(), 4096);
    check_shape(&view, &out);
    for needed in [
        "-stack traceback:\n",
        "-\tbuild.lua:12: in function <build.lua:11>\n",
        "-Read at 0x00c0001e5048 by goroutine 459:\n",
        "-Previous write at 0x00c0001e5048 by goroutine 461:\n",
        "-      /src/cache/cache.go:12 +0xe7\n",
        "-lookup_field (rec=0x7fffe3da3398, name=0x555555556008 \"price\") at ledger.c:15\n",
        "-15\t        if (strcmp",
        "-#1  0x000055555555524f in price_of (rec=0x7fffe3da3398) at ledger.c:22\n",
        "-Origin: /srv/site.yml:165:7\n",
        "-165     - name: check release directory\n",
        "-          ^ column 7\n",
    ] {
        assert!(view.text.contains(needed), "{needed:?} missing:\n{}", view.text);
    }
    for unwanted in ["Summary:", "step 4001 done", "detail that is not the error's"] {
        assert!(!view.text.contains(unwanted), "{unwanted:?} kept:\n{}", view.text);
    }
}

#[test]
fn a_numbered_failure_a_cross_mark_and_a_panic_behind_a_gutter_are_found_with_their_blocks() {
    let mut output = filler(1, 1500);
    // ExUnit: the number opens the block; the details sit deeper than it, not than the matched line.
    output.push_str("  1) test invoice with 15 percent discount (Billing.Part23Test)\n");
    output.push_str("     test/part_23_test.exs:164\n     Assertion with == failed\n");
    output.push_str(
        "     code:  assert inv == %{total: 11472}\n     left:  %{\n              total: 11473\n            }\n",
    );
    output.push_str("     stacktrace:\n       test/part_23_test.exs:166: (test)\n\n");
    output.push_str(&filler(1501, 3000));
    // stylelint: a cross mark where eslint writes `error`, among warnings.
    for i in 0..300 {
        output.push_str(&format!("styles/page_{i:03}.css\n   1:1   ⚠  Expected class selector to be kebab-case\n\n"));
    }
    output.push_str("styles/page_096.css\n  32:3  ✖  Unclosed block  CssSyntaxError\n\n");
    output.push_str(&filler(3001, 4000));
    // A build script's panic under cargo's `[package version]` gutter; a frame naming `assert_failed`
    // stays in the block of the panic's message.
    output.push_str("[demo 0.1.0] thread 'main' (22846) panicked at build.rs:13:13:\n");
    output.push_str("[demo 0.1.0] data/currencies.csv:2418: expected 3 fields, found 2\n");
    output.push_str("    assertion `left == right` failed: not discounted yet\n      left: 500\n     right: 0\n");
    output.push_str("    stack backtrace:\n       3: core::panicking::assert_failed::<u64, u64>\n");
    output.push_str("                 at /rustc/library/core/src/panicking.rs:394:5\n");
    output.push_str("       4: demo::tests::min_discount\n                 at ./src/lib.rs:7517:9\n");
    output.push_str(&filler(4001, 5000));
    let (view, out) = view_of(output.as_bytes(), 4096);
    check_shape(&view, &out);
    for needed in [
        "-  1) test invoice with 15 percent discount (Billing.Part23Test)\n",
        "-     code:  assert inv == %{total: 11472}\n",
        "-              total: 11473\n",
        "-       test/part_23_test.exs:166: (test)\n",
        "-styles/page_096.css\n",
        ":  32:3  ✖  Unclosed block  CssSyntaxError\n",
        ":[demo 0.1.0] thread 'main' (22846) panicked at build.rs:13:13:\n",
        "-[demo 0.1.0] data/currencies.csv:2418: expected 3 fields, found 2\n",
        "-                 at ./src/lib.rs:7517:9\n",
    ] {
        assert!(view.text.contains(needed), "{needed:?} missing:\n{}", view.text);
    }
    assert!(!view.text.contains(":   1:1   ⚠"), "a warning taken for an error:\n{}", view.text);
}

#[test]
fn the_blocks_under_thousands_of_errors_stay_within_the_index_budget() {
    // Each error opens a block of 20 long deeper lines: what the index keeps stays near its budget.
    let mut output = String::new();
    let frame = format!("    at frame {}\n", "x".repeat(900));
    for i in 0..5000 {
        output.push_str(&format!("error: failure number {i}\n"));
        for _ in 0..20 {
            output.push_str(&frame);
        }
    }
    let mut sink = OutputSink::new(SinkConfig::default(), None);
    for piece in output.as_bytes().chunks(65536) {
        sink.push(piece);
    }
    let out = sink.finish();
    let index = &excerpt_of(&out).expect("indexed").index;
    let kept: usize = index.lines.values().map(|l| l.bytes.len() + 16).sum();
    // Errors' budget, plus the rare slot's quarter, plus one line of overshoot per rank.
    assert!(kept <= DEFAULT_MAX_BYTES * 5 / 4 + 4 * 1024, "{kept} bytes kept");
}

#[test]
fn errors_near_the_end_are_shown_with_everything_between_them() {
    // 120 errors in the last 38 KB, each of its own text, between ordinary lines: a tail that starts
    // at the first of them fits the budget with the head, so the lines between them are shown too, as
    // the plain tail would show them, rather than the errors alone and a shorter tail.
    let mut output = filler(1, 4000);
    for i in 0..120 {
        // Texts that differ in letters, not numbers: rare, each chosen for the section.
        let word: String = [b'a' + (i / 26) as u8, b'a' + (i % 26) as u8].iter().map(|&b| b as char).collect();
        output.push_str(&format!("ERROR check {word} rejected the record\n"));
        for j in 0..5 {
            output.push_str(&format!("progress {i}.{j}: the other services are still being checked\n"));
        }
    }
    let (view, out) = view_of(output.as_bytes(), 4096);
    check_shape(&view, &out);
    for needed in ["ERROR check aa rejected the record\n", "progress 0.3: the other", "progress 60.2: the other"] {
        assert!(view.text.contains(needed), "{needed:?} missing:\n{}", view.text);
    }
}

#[test]
fn a_text_repeated_hundreds_of_times_gives_way_to_a_rare_one_and_shows_once() {
    let mut output = String::new();
    for i in 0..3000 {
        output.push_str(&format!("worker {i}: request failed with error 104, retrying\n"));
        output.push_str(&filler(1, 3));
    }
    output.push_str("db: error: relation \"users\" does not exist\n");
    output.push_str(&filler(1, 2000));
    let (view, _) = view_of(output.as_bytes(), 65536);
    let matched = matched_lines(&view);
    assert!(matched.contains(&"db: error: relation \"users\" does not exist"), "{}", view.text);
    // The text repeated by every worker is shown a few times among the matched lines, not 3,000.
    let retries = matched.iter().filter(|l| l.contains("request failed with error 104")).count();
    assert!(retries <= 3, "{retries} retries shown:\n{}", view.text);
}

#[test]
fn binary_bytes_at_the_head_of_a_long_output_are_described_not_shown() {
    let mut output = Vec::new();
    // An executable's first bytes, as `head -c 3000 /bin/true` prints them: NUL padding, an ELF header.
    output.extend_from_slice(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0");
    for i in 0..3000u32 {
        output.push(if i % 97 == 0 { b'\n' } else { (i % 7) as u8 });
    }
    output.push(b'\n');
    output.extend_from_slice(filler(1, 3000).as_bytes());
    let (view, out) = view_of(&output, 4096);
    check_shape(&view, &out);
    assert!(!view.text.contains('␀') && !view.text.contains('\u{FFFD}'), "{}", &view.text[..view.text.len().min(2000)]);
    assert!(view.text.starts_with("[lines 1-"), "{}", &view.text[..200]);
    assert!(
        view.text.contains(" of binary data, not shown]\nstep 1: compiled module number 1"),
        "{}",
        &view.text[..400]
    );
}
