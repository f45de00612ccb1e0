//! What the fuzz targets and the invariant proptests found, each kept as a regression test.

use bashrt_core::artifact::{AllocateError, ArtifactAllocator, ArtifactDir};
use bashrt_core::view::{model_view, text_view, View, ViewOptions};

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
