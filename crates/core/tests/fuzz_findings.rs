//! What the fuzz targets and the invariant proptests found, each kept as a regression test.

use bashrt_core::{model_view, text_view, AllocateError, ArtifactAllocator, ArtifactDir, View, ViewOptions};

/// A run of `ESC ]` (string sequences, each cut short by the next) was skipped by mutual recursion, one
/// frame per sequence: 50 KB of them — one tail — overflowed a thread's stack and aborted the process.
#[test]
fn a_long_run_of_cut_string_sequences_is_skipped_without_recursion() {
    let input = b"\x1b]".repeat(200_000);
    let small_stack = std::thread::Builder::new().stack_size(64 * 1024);
    let view = small_stack.spawn(move || text_view(&input, &ViewOptions::default())).unwrap().join();
    assert_eq!(view.unwrap(), "");
    // The sequence that cuts a string sequence short is still skipped as a whole.
    let text = b"a\x1b]0;title\x1b[31mred\x1b]8;;\x1bPdcs\x1b\\b\n";
    assert_eq!(model_view(text, &ViewOptions::default()), View::Text("aredb\n".into()));
}

/// The next id after the largest one overflowed (a panic in debug builds, id 0 in release) when an
/// artifact named after `u64::MAX` was present; it is now an allocation error like any other.
#[test]
fn an_artifact_with_the_largest_id_makes_allocation_fail_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!("{}.bash.log", u64::MAX)), "x").unwrap();
    let error: AllocateError = ArtifactDir::new(dir.path().to_path_buf()).allocator().allocate().unwrap_err();
    assert_eq!(error.to_string(), format!("cannot allocate an artifact id in {}", dir.path().display()));
}

/// brush-parser backtracks exponentially in the depth of `(` it cannot close: the normalize target's
/// 38-byte `til\ntailtd||((((…(i` took over 10 s, and a few more parens take hours, before any timeout
/// applies. Text nested deeper than any real command is now unparseable at once; this test would hang
/// without that.
#[test]
fn deeply_nested_unclosed_parens_are_refused_instead_of_parsed_for_hours() {
    use bashrt_core::normalize_bash_command;
    use bashrt_core::{default_rules, Interceptor};

    let tools: Vec<String> = ["read", "grep", "find", "edit", "write", "ls"].map(String::from).to_vec();
    let interceptor = Interceptor::new(&default_rules());
    for text in [
        format!("til\ntailtd||{}i", "(".repeat(40)),
        format!("{}; {} | head -n 1", "(".repeat(40), ")".repeat(40)),
        format!("cat x && {} | tail -1", "( ((".repeat(20)),
    ] {
        let normalized = normalize_bash_command(&text);
        assert_eq!((normalized.command.as_str(), normalized.extracted), (text.trim(), None));
        assert_eq!(interceptor.check(&text, &tools), None, "{text:?}");
    }
    // Nesting that real commands use still parses.
    let nested = "( ( ( (cd a && ls) ) ) ) | head -n 2";
    assert!(normalize_bash_command(nested).extracted.is_some());
    let arithmetic = "{ (( i = ((1 + 2) * 3) )); seq 1 $(( (i) )); } | tail -n 1";
    assert!(normalize_bash_command(arithmetic).extracted.is_some());
}

/// brush-parser's tokenizer never returns on a here-document operator with an odd tag (none, `''`, a form
/// feed, `$`) at the end of a `$( )`: it loops, allocating until memory runs out (the normalize target
/// found one such input in each of three runs, 20 to 97 bytes, each reaching gigabytes in seconds). A
/// tag other than a plain word is now refused before tokenizing; this test would exhaust memory without.
#[test]
fn a_here_document_without_a_tag_is_refused_before_the_tokenizer_loops() {
    use bashrt_core::normalize_bash_command;
    use bashrt_core::{default_rules, Interceptor};

    let found = "f$(\u{1}\0\0\u{1b}(*| t *||\u{1}|\u{19}<(O<< <hOe( *|e|(*<e||<Nhea*|\u{19}<(O<O<he<Nhea*hee*hNa<\0\0\0|\u{15}<(O<headcase x in x)";
    let tools: Vec<String> = ["read", "grep", "find", "edit", "write", "ls"].map(String::from).to_vec();
    let interceptor = Interceptor::new(&default_rules());
    let found_again = "|\t\t\t\t|< <<\u{c}| tail$(";
    for text in [
        found,
        found_again,
        "seq 3 | tail -n 1 $(<<  ",
        "echo $(cat <<-\t\t | head -1",
        "cat x | head -2 $(<< ",
        "cat <<'' | head -1 $(",
        "cat <<\"\" | head -1 $(",
        "$(i|(<<  $  +#tail{|X{-$(\u{91}$I\u{92}$I\u{92}\u{4}-f z",
    ] {
        assert_eq!(normalize_bash_command(text).extracted, None, "{text:?}");
        assert_eq!(interceptor.check(&format!("{text}  "), &tools), None, "{text:?}");
    }
    // Here-documents with a plain tag, and here-strings, still parse.
    for text in [
        "{ cat <<EOF\na\nEOF\n} | head -n 1",
        "cat <<< 'a b' | tail -n 1",
        "{ cat <<-  'X'\n\tx\nX\n} | head -1",
        "{ cat <<\\END_1.x\na\nEND_1.x\n} | tail -1",
        "echo \"$(cat <<\"EOF\"\na\nEOF\n)\" | head -n 1",
    ] {
        assert!(normalize_bash_command(text).extracted.is_some(), "{text:?}");
    }
}
