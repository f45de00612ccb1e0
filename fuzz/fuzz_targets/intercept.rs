//! The interceptor on any command: with the built-in rules, with rules of any pattern and flags, and
//! with a rule of any form (names, options, operands, value classes).
#![no_main]

use bashrt_core::{Form, FormStdin, FormStdout};

#[path = "../../crates/core/tests/invariants/mod.rs"]
mod invariants;

#[derive(Debug, arbitrary::Arbitrary)]
struct FormInput<'a> {
    command: Vec<&'a str>,
    options: Vec<&'a str>,
    require: Vec<&'a str>,
    operands: Vec<&'a str>,
    values: Vec<(&'a str, &'a str)>,
    operands_first: bool,
    stdin_text: bool,
    stdout_file: bool,
}

#[derive(Debug, arbitrary::Arbitrary)]
struct Input<'a> {
    command: &'a str,
    pattern: &'a str,
    flags: Option<&'a str>,
    form: Option<FormInput<'a>>,
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

libfuzzer_sys::fuzz_target!(|input: Input<'_>| {
    invariants::let_parser_panics_unwind();
    match input.form {
        None => invariants::interceptor(input.command, input.pattern, input.flags),
        Some(form) => {
            let form = Form {
                command: owned(&form.command),
                options: owned(&form.options),
                require: owned(&form.require),
                operands: owned(&form.operands),
                operands_first: form.operands_first,
                values: form.values.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                stdin: if form.stdin_text { FormStdin::Text } else { FormStdin::None },
                stdout: if form.stdout_file { FormStdout::File } else { FormStdout::Shown },
                args: None,
            };
            invariants::interceptor_form(input.command, form);
        }
    }
});
