//! Artifacts as resources: `artifact://<id>` for the whole output, and the template
//! `artifact://{id}{?head,tail,lines,grep}` for a window of it (the same windows as `read_output`).
//!
//! Promises: a whole artifact reads back byte for byte — as text when it is UTF-8, else as a base64
//! blob — up to [`MAX_RESOURCE_BYTES`]; past that the answer is cut and says so in its `_meta`
//! (`truncated`, `totalBytes`). Resolving a URI never leaves the session's artifact directory.

use std::collections::HashMap;
use std::io::Read;
use std::sync::Mutex;

use bashrt_core::{read_window, ArtifactDir, ArtifactError, ReadError, WindowRequest, MAX_READ_BYTES};
use rmcp::model::{MetaObject, Resource, ResourceContents, ResourceTemplate};
use serde_json::Value;

/// The most bytes one `resources/read` answer carries.
pub const MAX_RESOURCE_BYTES: usize = MAX_READ_BYTES;

/// The URI scheme of artifacts.
const SCHEME: &str = "artifact://";

/// Why a resource could not be read (the text of the protocol error).
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("unknown resource {0:?}: resources are artifact://<id>[?head=N|tail=N|lines=A-B|grep=RE]")]
    BadUri(String),
    #[error("unknown window parameter {0:?} (use head, tail, lines or grep)")]
    BadParameter(String),
    #[error("invalid {name}: {value:?}")]
    BadValue { name: &'static str, value: String },
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("cannot read artifact {id}: {reason}")]
    Io { id: String, reason: String },
}

impl From<ArtifactError> for ResourceError {
    fn from(e: ArtifactError) -> Self {
        ResourceError::Read(ReadError::Artifact(e))
    }
}

/// The command behind each artifact made on this connection, for listings.
#[derive(Default)]
pub struct Commands(Mutex<HashMap<u64, String>>);

impl Commands {
    pub fn record(&self, id: u64, command: &str) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id, command.to_string());
    }

    fn get(&self, id: u64) -> Option<String> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&id).cloned()
    }
}

/// Every artifact of the session, newest first, with its size and (when this connection made it) the
/// command that produced it.
pub fn list(dir: &ArtifactDir, commands: &Commands) -> Vec<Resource> {
    let mut ids = dir.list();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.into_iter()
        .filter_map(|id| {
            let (_, path) = dir.resolve(&id.0.to_string()).ok()?;
            let size = std::fs::metadata(&path).ok()?.len();
            let mut resource =
                Resource::new(id.url(), format!("artifact {}", id.0)).with_mime_type("text/plain").with_size(size);
            resource = match commands.get(id.0) {
                Some(command) => resource
                    .with_title(format!("Output of: {}", one_line(&command)))
                    .with_description(format!("The full output of `{command}`")),
                None => resource.with_description("The full output of an earlier command"),
            };
            Some(resource)
        })
        .collect()
}

/// The template for windows.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![ResourceTemplate::new("artifact://{id}{?head,tail,lines,grep}", "artifact window")
        .with_title("A window of a command's full output")
        .with_description(
            "Part of an artifact: head=N (first lines), tail=N (last lines), lines=A-B (a line range) or \
             grep=RE (matching lines, numbered); give at most one, none reads the whole output.",
        )
        .with_mime_type("text/plain")]
}

/// Reads `uri`: the whole artifact, or the window its query names.
pub fn read(dir: &ArtifactDir, uri: &str) -> Result<ResourceContents, ResourceError> {
    let rest = uri.strip_prefix(SCHEME).ok_or_else(|| ResourceError::BadUri(uri.to_string()))?;
    let (id, query) = match rest.split_once('?') {
        Some((id, query)) => (id, Some(query)),
        None => (rest, None),
    };
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ResourceError::BadUri(uri.to_string()));
    }
    let request = match query {
        Some(query) => window_request(query)?,
        None => WindowRequest::default(),
    };
    if request == WindowRequest::default() {
        return read_whole(dir, id, uri);
    }
    let window = request.window()?;
    let content = read_window(dir, id, &window, MAX_RESOURCE_BYTES)?;
    let meta = truncation_meta(content.truncated, None);
    Ok(with_meta(ResourceContents::text(content.content, uri), meta))
}

/// `head=5`, `lines=1-9`, `grep=err%7Cwarn` (percent-encoded, `+` for a space).
fn window_request(query: &str) -> Result<WindowRequest, ResourceError> {
    let mut request = WindowRequest::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let value =
            percent_decode(raw).ok_or_else(|| ResourceError::BadValue { name: "encoding", value: raw.into() })?;
        let count = |name: &'static str| {
            value.parse::<u64>().map_err(|_| ResourceError::BadValue { name, value: value.clone() })
        };
        match name {
            "head" => request.head = Some(count("head")?),
            "tail" => request.tail = Some(count("tail")?),
            "lines" => request.lines = Some(value),
            "grep" => request.grep = Some(value),
            other => return Err(ResourceError::BadParameter(other.to_string())),
        }
    }
    Ok(request)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The artifact's bytes as they are: text when UTF-8, a base64 blob otherwise.
fn read_whole(dir: &ArtifactDir, id: &str, uri: &str) -> Result<ResourceContents, ResourceError> {
    let (_, file) = dir.open(id)?;
    let io = |e: std::io::Error| ResourceError::Io { id: id.to_string(), reason: e.to_string() };
    let total = file.metadata().map_err(io)?.len();
    let mut bytes = Vec::new();
    file.take(MAX_RESOURCE_BYTES as u64).read_to_end(&mut bytes).map_err(io)?;
    let truncated = (bytes.len() as u64) < total;
    if truncated {
        // The cut may fall inside a character: end at the last whole one, so that a UTF-8 output
        // stays text (the `totalBytes` of the meta says there is more).
        bytes.truncate(bytes.len() - cut_character(&bytes));
    }
    let meta = truncation_meta(truncated, Some(total));
    let contents = match String::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(text, uri),
        Err(e) => ResourceContents::BlobResourceContents {
            uri: uri.to_string(),
            mime_type: Some("application/octet-stream".into()),
            blob: base64(e.as_bytes()),
            meta: None,
        },
    };
    Ok(with_meta(contents, meta))
}

/// How many bytes at the end of `bytes` are the start of a character cut short (0 to 3): none unless
/// the last character begins a valid sequence that the end cut, so an invalid byte is left to make
/// the answer a blob.
fn cut_character(bytes: &[u8]) -> usize {
    let window = bytes.len().saturating_sub(4);
    let Some(start) = bytes[window..].iter().rposition(|b| b & 0xC0 != 0x80).map(|at| window + at) else {
        return 0;
    };
    match std::str::from_utf8(&bytes[start..]) {
        // `error_len() == None`: the input ended inside a character that was valid so far.
        Err(e) if e.error_len().is_none() => bytes.len() - start,
        _ => 0,
    }
}

fn truncation_meta(truncated: bool, total: Option<u64>) -> Option<MetaObject> {
    if !truncated {
        return None;
    }
    let mut meta = MetaObject::new();
    meta.insert("truncated".into(), Value::Bool(true));
    if let Some(total) = total {
        meta.insert("totalBytes".into(), Value::from(total));
    }
    Some(meta)
}

fn with_meta(contents: ResourceContents, meta: Option<MetaObject>) -> ResourceContents {
    match meta {
        Some(meta) => contents.with_meta(meta),
        None => contents,
    }
}

fn one_line(command: &str) -> String {
    let first = command.lines().next().unwrap_or("");
    let mut line: String = first.chars().take(80).collect();
    if line.len() < command.len() {
        line.push('…');
    }
    line
}

fn base64(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_alphabet_and_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(&[0xff, 0xfe, 0x00, 0x80]), "//4AgA==");
    }

    #[test]
    fn window_queries_are_decoded() {
        let request = window_request("grep=err%7Cwarn+x").unwrap();
        assert_eq!(request.grep.as_deref(), Some("err|warn x"));
        assert_eq!(window_request("lines=2-5").unwrap().lines.as_deref(), Some("2-5"));
        assert!(matches!(window_request("head=x"), Err(ResourceError::BadValue { .. })));
        assert!(matches!(window_request("size=1"), Err(ResourceError::BadParameter(_))));
    }

    #[test]
    fn a_text_cut_inside_a_character_stays_text() {
        let root = tempfile::tempdir().unwrap();
        let dir = ArtifactDir::new(root.path().to_path_buf());
        // The limit falls after the first byte of `€` (3 bytes), then after its second.
        for before in [MAX_RESOURCE_BYTES - 1, MAX_RESOURCE_BYTES - 2] {
            let mut output = "a".repeat(before);
            output.push_str("€ and more\n");
            std::fs::write(dir.path().join("5.bash.log"), &output).unwrap();
            match read(&dir, "artifact://5").unwrap() {
                ResourceContents::TextResourceContents { text, meta, .. } => {
                    assert_eq!(text, output[..before]);
                    let meta = meta.unwrap();
                    assert_eq!(meta.get("truncated"), Some(&Value::Bool(true)));
                    assert_eq!(meta.get("totalBytes"), Some(&Value::from(output.len())));
                }
                other => panic!("not text: {other:?}"),
            }
        }
        // A cut on a boundary keeps every byte up to the limit.
        std::fs::write(dir.path().join("6.bash.log"), "€".repeat(MAX_RESOURCE_BYTES)).unwrap();
        match read(&dir, "artifact://6").unwrap() {
            ResourceContents::TextResourceContents { text, .. } => assert_eq!(text.len(), MAX_RESOURCE_BYTES - 1),
            other => panic!("not text: {other:?}"),
        }
        // Bytes that are not UTF-8 before the cut still make a blob.
        let mut binary = vec![b'a'; MAX_RESOURCE_BYTES - 1];
        binary.extend([0xff, 0xe2, 0x82, 0xac]);
        std::fs::write(dir.path().join("7.bash.log"), &binary).unwrap();
        assert!(matches!(read(&dir, "artifact://7").unwrap(), ResourceContents::BlobResourceContents { .. }));
    }

    #[test]
    fn cut_characters_are_found_at_the_end_only() {
        assert_eq!(cut_character(b""), 0);
        assert_eq!(cut_character(b"abc"), 0);
        assert_eq!(cut_character("a€".as_bytes()), 0);
        assert_eq!(cut_character(&"a€".as_bytes()[..2]), 1);
        assert_eq!(cut_character(&"a€".as_bytes()[..3]), 2);
        assert_eq!(cut_character(&"😀".as_bytes()[..3]), 3);
        assert_eq!(cut_character(b"a\xff"), 0);
        assert_eq!(cut_character(b"\x82\xac"), 0);
        // The last whole character's continuation bytes are not taken for the cut one's.
        assert_eq!(cut_character(&["😀".as_bytes(), &[0xe2]].concat()), 1);
    }

    #[test]
    fn whole_artifacts_read_back_exactly_and_windows_apply() {
        let root = tempfile::tempdir().unwrap();
        let dir = ArtifactDir::new(root.path().to_path_buf());
        std::fs::write(dir.path().join("3.bash.log"), "a\nb\nc\n").unwrap();
        std::fs::write(dir.path().join("4.bash.log"), [0xffu8, 0, 1]).unwrap();
        match read(&dir, "artifact://3").unwrap() {
            ResourceContents::TextResourceContents { text, meta, .. } => {
                assert_eq!(text, "a\nb\nc\n");
                assert!(meta.is_none());
            }
            other => panic!("{other:?}"),
        }
        match read(&dir, "artifact://4").unwrap() {
            ResourceContents::BlobResourceContents { blob, .. } => assert_eq!(blob, "/wAB"),
            other => panic!("{other:?}"),
        }
        match read(&dir, "artifact://3?tail=1").unwrap() {
            ResourceContents::TextResourceContents { text, .. } => assert_eq!(text, "c\n"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(read(&dir, "artifact://../x"), Err(ResourceError::BadUri(_))));
        assert!(matches!(read(&dir, "file:///etc/passwd"), Err(ResourceError::BadUri(_))));
        assert!(read(&dir, "artifact://9").is_err());
    }
}
