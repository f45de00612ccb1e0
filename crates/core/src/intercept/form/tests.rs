//! Forms matched against invocations: option clusters and values, operands, literal values and
//! substitutions, words the shell expands, and the errors of bad forms.

use super::*;

fn form(command: &str, options: &[&str], require: &[&str], operands: &[&str]) -> CompiledForm {
    CompiledForm::new(&Form {
        command: vec![command.to_owned()],
        options: options.iter().map(|s| (*s).to_owned()).collect(),
        require: require.iter().map(|s| (*s).to_owned()).collect(),
        operands: operands.iter().map(|s| (*s).to_owned()).collect(),
        ..Form::default()
    })
    .unwrap()
}

fn call(words: &[&str]) -> Invocation {
    Invocation {
        name: Some(words[0].to_owned()),
        args: words[1..].iter().map(|w| Some((*w).to_owned())).collect(),
        ..Invocation::default()
    }
}

#[test]
fn short_options_cluster_and_take_attached_or_separate_values() {
    let grep = form("grep", &["-r", "-n", "-C NUM", "-e ANY"], &["-e ANY"], &["PATH*"]);
    for words in [
        &["grep", "-rn", "-e", "x", "src"][..],
        &["grep", "-rnC3", "-ex"],
        &["grep", "-C", "3", "-e", "x", "."],
        &["grep", "-e", "-x"],
    ] {
        assert!(grep.matches(&call(words)), "{words:?}");
    }
    for words in [
        &["grep", "-rv", "-e", "x"][..],
        &["grep", "-C", "x", "-e", "x"],
        &["grep", "-e", "x", "-e", "y"],
        &["grep", "-r", "x"],
        &["grep", "-e"],
    ] {
        assert!(!grep.matches(&call(words)), "{words:?}");
    }
}

#[test]
fn long_options_take_values_with_equals_or_as_the_next_word() {
    let head = form("head", &["--lines=NUM", "-NUM"], &[], &["PATH+"]);
    assert!(head.matches(&call(&["head", "--lines=5", "f"])));
    assert!(head.matches(&call(&["head", "--lines", "5", "f"])));
    assert!(head.matches(&call(&["head", "-20", "f"])));
    assert!(!head.matches(&call(&["head", "--lines=-5", "f"])));
    assert!(!head.matches(&call(&["head", "--bytes=5", "f"])));
    assert!(!head.matches(&call(&["head", "-20"])));
}

#[test]
fn a_flag_that_takes_an_attached_suffix_must_end_its_cluster() {
    let sed = form("sed", &["-i[]", "-E", "-e ANY"], &["-i[]"], &["PATH"]);
    assert!(sed.matches(&call(&["sed", "-Ei", "-e", "s/a/b/", "f"])));
    assert!(sed.matches(&call(&["sed", "-i", "-E", "-e", "s/a/b/", "f"])));
    assert!(!sed.matches(&call(&["sed", "-iE", "-e", "s/a/b/", "f"])));
    assert!(!sed.matches(&call(&["sed", "-ie", "s/a/b/", "f"])));
    assert!(!sed.matches(&call(&["sed", "-i.bak", "-e", "s/a/b/", "f"])));
}

#[test]
fn literal_values_and_single_dash_long_options() {
    let mut find = form("find", &["-name ANY", "-type f"], &["-name ANY|-type f"], &["PATH?"]);
    find.operands_first = true;
    assert!(find.matches(&call(&["find", ".", "-type", "f"])));
    assert!(find.matches(&call(&["find", "-name", "*.rs"])));
    assert!(!find.matches(&call(&["find", ".", "-type", "d"])));
    assert!(!find.matches(&call(&["find", "-name", "x", "."])));
    assert!(!find.matches(&call(&["find", "."])));
    assert!(!find.matches(&call(&["find", ".", "-n", "x"])));
}

#[test]
fn a_word_the_shell_expands_never_matches() {
    let cat = form("cat", &[], &[], &["PATH+"]);
    let mut invocation = call(&["cat", "a"]);
    assert!(cat.matches(&invocation));
    invocation.args.push(None);
    assert!(!cat.matches(&invocation));
    assert!(!cat.matches(&call(&["cat", "-"])));
    assert!(!cat.matches(&call(&["cat", "/dev/urandom"])));
}

#[test]
fn a_literal_substitution_is_one_global_s_command_of_plain_text() {
    for good in ["s/a/b/g", "s|old name|new name|g", "s#a/b#c/d#g", "s/foo//g", "s,x,y,g"] {
        assert!(is_literal_substitution(good), "{good}");
    }
    // Without `g`, sed changes the first match on every line: no single edit does that.
    for bad in [
        "s/a/b/",
        "s/a/b/gi",
        "s/a/b",
        "s/a.b/c/g",
        "s/a/&x/g",
        "s/a/\\1/g",
        "s/a/$1/g",
        "s//b/g",
        "y/a/b/",
        "s;a;b;g",
        "s/a/b/g;d",
    ] {
        assert!(!is_literal_substitution(bad), "{bad}");
    }
}

#[test]
fn bad_forms_are_reported() {
    let bad = |options: &[&str], require: &[&str], operands: &[&str]| {
        CompiledForm::new(&Form {
            command: vec!["x".into()],
            options: options.iter().map(|s| (*s).to_owned()).collect(),
            require: require.iter().map(|s| (*s).to_owned()).collect(),
            operands: operands.iter().map(|s| (*s).to_owned()).collect(),
            ..Form::default()
        })
        .unwrap_err()
    };
    assert_eq!(bad(&["n"], &[], &[]), FormError::NotAnOption("n".into()));
    assert_eq!(bad(&["-n WORD"], &[], &[]), FormError::UnknownClass("WORD".into()));
    assert_eq!(bad(&["-n"], &["-x"], &[]), FormError::UnknownRequired("-x".into()));
    assert_eq!(bad(&[], &[], &["PATH*", "ANY"]), FormError::MisplacedQuantifier("PATH*".into()));
    assert_eq!(CompiledForm::new(&Form::default()).unwrap_err(), FormError::NoCommand);
}
