//! The caller's tools by the names its model knows them. A rule suggests a tool by a generic name
//! (`read`, `grep`, `find`, `edit`, `write`, `ls`); each agent calls its own differently (Claude Code:
//! `Read`, `Grep`, `Glob`, `Edit`, `Write`; Gemini CLI: `read_file`, `grep_search`, `glob`,
//! `replace`, `write_file`, `list_directory`). A caller lists its tools as its model knows them,
//! and a block names the tool by that name, so the model can call it.
//!
//! An entry of the list is `generic=Name` (explicit), or a name alone: matched to a generic name
//! ignoring case (`Read` is `read`), or through [`KNOWN`] (`Glob` is `find`).

/// Tool names of known agents, lowercase, and the generic name each stands for.
pub const KNOWN: &[(&str, &str)] = &[
    ("read_file", "read"),
    ("read_many_files", "read"),
    ("view", "read"),
    ("grep_search", "grep"),
    ("search_file_content", "grep"),
    ("glob", "find"),
    ("replace", "edit"),
    ("multiedit", "edit"),
    ("str_replace", "edit"),
    ("write_file", "write"),
    ("create_file", "write"),
    ("list_directory", "ls"),
];

/// The name the caller knows `generic` by, when one of `tool_names` stands for it.
pub fn resolve<'a>(generic: &str, tool_names: &'a [String]) -> Option<&'a str> {
    tool_names.iter().find_map(|entry| {
        let entry = entry.trim();
        let (stands_for, shown) = match entry.split_once('=') {
            Some((generic, shown)) => (generic.trim(), shown.trim()),
            None => (entry, entry),
        };
        let lower = stands_for.to_ascii_lowercase();
        let known = KNOWN.iter().find(|(name, _)| *name == lower).map_or(lower.as_str(), |(_, generic)| generic);
        (!shown.is_empty() && known.eq_ignore_ascii_case(generic)).then_some(shown)
    })
}

/// `message` naming `shown` where it names the rule's tool as `` `generic` ``.
pub fn rename_in_message(message: &str, generic: &str, shown: &str) -> String {
    if generic == shown {
        return message.to_string();
    }
    message.replace(&format!("`{generic}`"), &format!("`{shown}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn names_resolve_ignoring_case_through_known_names_or_explicitly() {
        let claude = names(&["Read", "Grep", "Glob", "Edit", "Write"]);
        assert_eq!(resolve("read", &claude), Some("Read"));
        assert_eq!(resolve("find", &claude), Some("Glob"));
        assert_eq!(resolve("ls", &claude), None);
        let gemini = names(&["read_file", "grep_search", "glob", "replace", "write_file", "list_directory"]);
        assert_eq!(resolve("edit", &gemini), Some("replace"));
        assert_eq!(resolve("ls", &gemini), Some("list_directory"));
        assert_eq!(resolve("find", &names(&["find=FileSearch"])), Some("FileSearch"));
        assert_eq!(resolve("grep", &names(&["grep"])), Some("grep"));
        assert_eq!(resolve("grep", &names(&[""])), None);
    }

    #[test]
    fn a_message_names_the_callers_tool() {
        assert_eq!(
            rename_in_message("Use the `read` tool instead of cat.", "read", "Read"),
            "Use the `Read` tool instead of cat."
        );
    }
}
