//! The RPC decoder fuzz target's invariants (see `fuzz/`), as proptests in the normal suite.

use proptest::prelude::*;

use crate::invariants;

/// Request-ish lines: JSON objects with and without the fields that matter, broken JSON, raw bytes.
fn input() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        r#"\{("id":("r1"|7|null|\[\]|-1.5),)?("type":("bash"|"abort"|"read_artifact"|"get_history"|"list_sessions"|"x"|3),)?("command":"ls",|"artifactId":(7|"7"|-1),|"limit":(1|-1),)?"z":1\}"#,
        "[{}\\[\\]\":,a-z0-9 \\\\]{0,30}",
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ];
    prop_oneof![
        proptest::collection::vec(line, 0..6).prop_map(|lines| lines.join("\n").into_bytes()),
        proptest::collection::vec(any::<u8>(), 0..120),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn line_decoder(
        input in input(),
        cuts in proptest::collection::vec(any::<usize>(), 0..10),
        max in prop_oneof![0usize..16, Just(bashrt_rpc::MAX_LINE_BYTES)],
    ) {
        invariants::line_decoder(&input, &cuts, max);
    }
}
