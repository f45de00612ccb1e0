//! The fuzz targets' invariants (see `fuzz/`), as proptests in the normal suite: a few hundred cases
//! each, so the suite stays fast while every invariant runs on every change.

use bashrt_core::{Form, FormStdin, FormStdout};
use proptest::prelude::*;

use crate::invariants;

/// Shell-ish text: what the parser-driven stages see, with the characters that matter to them.
fn shell_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-z0-9 |;&<>()'\"$`\\\\\n#{}!=~+-]{0,60}",
        "(cat|grep|sed|seq 1 9|echo \"a|b\") [a-z0-9 ./<>&$'\"-]{0,12}( \\| (head|tail) (-n ?|-|--lines[= ])[0-9+-]{1,3}[ #a-z;&]{0,4})?",
    ]
}

/// Output-ish bytes: lines, multibyte characters, escape sequences, carriage returns, and raw bytes.
fn output() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => "[ab€é𝄞\n\r\t\u{1b}\\[\\]m07]{0,160}".prop_map(String::into_bytes),
        1 => proptest::collection::vec(any::<u8>(), 0..160),
        // Lines the error index looks for, among others.
        1 => proptest::collection::vec(
            proptest::sample::select(vec![
                "error: x\n", "error[E0308]: y\n", "warning: w\n", "thread 'm' panicked at a.rs:1\n",
                "Traceback (most recent call last):\n", "ValueError: v\n", "  --> a.rs:3:1\n", "ok\n", "\n", "é",
            ]),
            0..40,
        )
        .prop_map(|lines| lines.concat().into_bytes()),
    ]
}

/// `len` bytes past an artifact cap: mostly letters, some newlines and raw bytes. Built from a seed,
/// since drawing thousands of bytes one strategy each is slow.
fn long_output(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match state % 8 {
                0 => b'\n',
                1 => (state >> 8) as u8,
                _ => b'a' + (state >> 8) as u8 % 26,
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn normalizer(command in shell_text()) {
        invariants::normalizer(&command);
    }

    #[test]
    fn interceptor(
        command in shell_text(),
        pattern in prop_oneof!["[a-z.*+?|()^$\\\\s]{0,12}", any::<String>()],
        flags in proptest::option::of("[imsgux]{0,3}"),
    ) {
        invariants::interceptor(&command, &pattern, flags.as_deref());
    }

    #[test]
    fn interceptor_with_any_form(
        command in prop_oneof![
            "(cat|sed|find|head)( [a-z./]{1,5}){0,3}",
            "(cat|sed|find|head)( -[a-z]| -[a-z] [0-9]| [a-z./]{1,5}| [0-9]{1,2}| --[a-z]=[0-9]){0,3}",
            "(cat|sed|find|head) [a-z0-9 ./<>=+-]{0,16}",
            "(cat|sed) (-[a-z]{1,2} )?(-n ?[0-9]{1,2} )?'?s/a/b/'? [a-z./]{1,6}( > [a-z]{1,3})?",
            shell_text(),
        ],
        names in prop_oneof![
            2 => Just(vec!["cat|sed|find|head".to_owned()]),
            1 => proptest::collection::vec(prop_oneof!["cat|sed|find|head", "[a-z]{0,3}"], 0..3),
        ],
        options in proptest::collection::vec(
            prop_oneof![
                3 => "-[a-z]",
                1 => "-[a-z] (NUM|ANY|PATH|X|lit)",
                1 => "--[a-z]{0,4}=(NUM|X)",
                1 => "-(NUM|X)",
                1 => "-[a-z]\\[\\]",
                1 => "[-a-zA-Z=\\[\\] +]{0,6}",
            ],
            0..4,
        ),
        require in prop_oneof![3 => Just(vec![]), 1 => proptest::collection::vec("-[a-z](\\|-[a-z])?|[-a-z|=NUM ]{0,6}", 1..2)],
        operands in prop_oneof![
            1 => Just(vec!["ANY*".to_owned()]),
            2 => proptest::collection::vec("(PATH|ANY|NUM|\\+NUM|SUBST|X|Y_2|lit)[?*+]?", 0..2),
        ],
        value in proptest::option::of(("[A-Z_]{1,3}|X", prop_oneof!["[a-z.*+?()\\[\\]^$]{0,8}", any::<String>()])),
        flags in (any::<bool>(), any::<bool>(), any::<bool>()),
    ) {
        let form = Form {
            command: names.iter().flat_map(|n| n.split('|')).map(str::to_owned).collect(),
            options,
            require,
            operands,
            operands_first: flags.0,
            values: value.into_iter().collect(),
            stdin: if flags.1 { FormStdin::Text } else { FormStdin::None },
            stdout: if flags.2 { FormStdout::File } else { FormStdout::Shown },
            args: None,
        };
        invariants::interceptor_form(&command, form);
    }

    #[test]
    fn sink_fed_any_chunking(
        stream in output(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        max_bytes in 0usize..64,
        head_lines in proptest::option::of(0u64..6),
        spill in any::<bool>(),
        scan in any::<bool>(),
    ) {
        let case = invariants::SinkCase { max_bytes, head_lines, spill, artifact_cap: None, scan };
        invariants::sink(&stream, &cuts, case);
    }

    #[test]
    fn artifact_windows(
        content in output(),
        head in proptest::option::of(prop_oneof![0u64..8, any::<u64>()]),
        tail in proptest::option::of(prop_oneof![0u64..8, any::<u64>()]),
        lines in proptest::option::of(prop_oneof!["[0-9]{1,2}-[0-9]{1,2}", "[0-9 +-]{0,8}", any::<String>()]),
        grep in proptest::option::of(prop_oneof!["[ab€^$.*\\\\n]{0,4}", any::<String>()]),
        pick in 0usize..5,
        cap in prop_oneof![0usize..40, Just(usize::MAX / 2)],
    ) {
        // Mostly one window (or none), sometimes all of them at once.
        let request = invariants::Request {
            head: head.filter(|_| pick == 0 || pick == 4),
            tail: tail.filter(|_| pick == 1 || pick == 4),
            lines: lines.as_deref().filter(|_| pick == 2 || pick == 4),
            grep: grep.as_deref().filter(|_| pick == 3 || pick == 4),
        };
        invariants::window(&content, request, cap);
    }

    #[test]
    fn artifact_ids(
        reference in prop_oneof![
            "(artifact://)?[0-9]{0,3}/{0,2}",
            "(artifact://)?[0-9]{19,21}",
            "(artifact:/?/?)?[0-9a-z./-]{0,8}",
            any::<String>(),
        ],
        present in proptest::collection::vec(prop_oneof![0u64..40, Just(u64::MAX), any::<u64>()], 0..12),
    ) {
        invariants::artifact_id(&reference, &present);
    }
}

proptest! {
    // Streams of kilobytes through a real file: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn sink_spilling_past_the_artifact_cap(
        stream in (0usize..3000, any::<u64>()).prop_map(|(len, seed)| long_output(len, seed)),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        max_bytes in 0usize..64,
        artifact_cap in 0u64..1100,
    ) {
        let artifact_cap = Some(artifact_cap);
        let case = invariants::SinkCase { max_bytes, head_lines: None, spill: true, artifact_cap, scan: false };
        invariants::sink(&stream, &cuts, case);
    }
}
