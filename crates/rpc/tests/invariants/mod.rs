//! The RPC decoder's invariants, shared by the fuzz target (`fuzz/`) and the proptests
//! (`tests/fuzz_invariants.rs`): each check runs the real framing and parsing on arbitrary input and
//! panics when a promise is broken.

use std::collections::VecDeque;
use std::io::{self, Read};

use bashrt_rpc::testing::{parse, Frame, LineReader, RequestError};
use serde_json::Value;

/// A reader that hands out the input in the given pieces, with an `EINTR` before each one.
struct Chunked {
    pieces: VecDeque<Vec<u8>>,
    interrupt: bool,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let Some(piece) = self.pieces.front_mut() else {
            return Ok(0);
        };
        let n = piece.len().min(buf.len());
        buf[..n].copy_from_slice(&piece[..n]);
        piece.drain(..n);
        if piece.is_empty() {
            self.pieces.pop_front();
        }
        Ok(n)
    }
}

/// The frames the decoder documents for `input`, computed the obvious way.
fn expected_frames(input: &[u8], max: usize) -> Vec<Frame> {
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if input.is_empty() || input.ends_with(b"\n") {
        pieces.pop();
    }
    pieces
        .into_iter()
        .map(|piece| match piece.len() > max {
            true => Frame::TooLong { bytes: piece.len() as u64 },
            false => Frame::Line(piece.to_vec()),
        })
        .collect()
}

/// Frames `input`, delivered in pieces cut at `cuts`, with a line limit of `max`: the frames are
/// exactly the input's lines (the over-long ones reported by length, never kept), whatever the
/// delivery; then each frame is parsed, which never panics and answers with the request's `type` and
/// `id` whenever the line carries them.
pub fn line_decoder(input: &[u8], cuts: &[usize], max: usize) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    points.sort_unstable();
    let mut pieces = VecDeque::new();
    let mut at = 0;
    for p in points.into_iter().chain([input.len()]) {
        if p > at {
            pieces.push_back(input[at..p].to_vec());
            at = p;
        }
    }
    let mut reader = LineReader::new(Chunked { pieces, interrupt: false }, max);
    let mut frames = Vec::new();
    while let Some(frame) = reader.next_frame().expect("reading from memory") {
        frames.push(frame);
    }
    assert_eq!(frames, expected_frames(input, max), "frames of {input:?} (limit {max})");
    for frame in frames {
        request(frame);
    }
}

/// Parses one frame; see [`line_decoder`].
pub fn request(frame: Frame) {
    let envelope = match &frame {
        Frame::Line(bytes) => std::str::from_utf8(bytes).ok().and_then(|text| serde_json::from_str::<Value>(text).ok()),
        Frame::TooLong { .. } => None,
    };
    let envelope = envelope.as_ref().and_then(Value::as_object);
    let kind = envelope.and_then(|map| map.get("type")).and_then(Value::as_str);
    let id = envelope.and_then(|map| map.get("id")).filter(|id| id.is_string() || id.is_number());
    match parse(frame) {
        Ok(request) => {
            assert_eq!(Some(request.request.command()), kind);
            assert_eq!(request.id.as_ref(), id);
        }
        Err(rejected) => {
            assert!(!rejected.error.to_string().is_empty());
            if envelope.is_some() && rejected.error != RequestError::BadId {
                assert_eq!(rejected.id.as_ref(), id, "{:?}", rejected.error);
            }
            match kind {
                Some(kind) if !matches!(rejected.error, RequestError::BadId) => assert_eq!(rejected.command, kind),
                _ => assert!(rejected.command == "parse" || Some(rejected.command.as_str()) == kind),
            }
        }
    }
}
