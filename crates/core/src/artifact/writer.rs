//! Writing one artifact: buffered appends, a per-artifact cap that keeps the head and a rolling tail of
//! the stream, and a budget asked before the file grows.
//!
//! Promises: the file never holds more than `max_bytes` (plus a marker line); up to that, it is the raw
//! stream byte for byte; past it, it is the stream's first half, a marker line saying how many bytes
//! were dropped, and the stream's last bytes, in order. Memory stays bounded (one write buffer, one
//! copy buffer). The budget is asked before every growth of the file; a refusal is an error like a
//! full disk.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Asked before an artifact grows; `Err` says why it may not (the state directory's budget).
pub trait ArtifactBudget: Send {
    /// The file is about to be `bytes` long (it only ever grows through here).
    fn grow(&mut self, bytes: u64) -> Result<(), String>;

    /// The artifact was given up (a write failed, or growth was refused) and its file emptied: the
    /// room kept for it can go to the spills beside it at once, not at the end of its call.
    fn release(&mut self) {}
}

/// Small reads are batched up to this; a full 64 KiB read goes to the file at once, uncopied. Kept
/// small because fifty commands may be spilling at once.
const BUFFER_BYTES: usize = 64 * 1024;

/// Room kept for the marker line at the end of the head.
const MARKER_ROOM: u64 = 256;

/// Copies in the file go through a buffer of this size.
const COPY_BYTES: usize = 1024 * 1024;

/// What a finished artifact holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// Bytes of the stream (all of them, dropped ones included).
    pub stream_bytes: u64,
    /// Bytes of the stream not in the file (0 when it holds the whole stream).
    pub dropped_bytes: u64,
}

pub(crate) struct ArtifactWriter {
    file: File,
    buf: Vec<u8>,
    /// Bytes of the stream accepted so far.
    stream: u64,
    /// Bytes in the file (flushed), before the cap.
    file_len: u64,
    /// The cap; past it the stream goes to the ring.
    max_bytes: u64,
    /// Bytes of the stream kept at the start (the marker is written over the end of this region).
    head: u64,
    /// Size of the ring that holds the newest bytes, at `[head, head + ring)` of the file.
    ring: u64,
    budget: Option<Box<dyn ArtifactBudget>>,
}

impl ArtifactWriter {
    pub(crate) fn new(file: File, max_bytes: u64, budget: Option<Box<dyn ArtifactBudget>>) -> Self {
        // A cap too small to hold a marker is raised to hold one and a little of each end.
        let max_bytes = max_bytes.max(4 * MARKER_ROOM);
        let head = max_bytes / 2;
        Self {
            file,
            buf: Vec::with_capacity(BUFFER_BYTES),
            stream: 0,
            file_len: 0,
            max_bytes,
            head,
            ring: max_bytes - head,
            budget,
        }
    }

    /// Appends `bytes` of the stream. After an error the artifact is given up: the file is emptied
    /// (it could only be served as the full output it is not) and the budget told.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.write_stream(bytes).inspect_err(|_| self.abandon())
    }

    fn abandon(&mut self) {
        let _ = self.file.set_len(0);
        if let Some(budget) = self.budget.as_mut() {
            budget.release();
        }
    }

    fn write_stream(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        // Up to the cap: buffered appends.
        if self.stream < self.max_bytes {
            let room = (self.max_bytes - self.stream) as usize;
            let now = &bytes[..bytes.len().min(room)];
            if self.buf.len() + now.len() > BUFFER_BYTES {
                self.flush_buffer()?;
            }
            if now.len() >= BUFFER_BYTES {
                self.append(now)?;
            } else {
                self.buf.extend_from_slice(now);
            }
            self.stream += now.len() as u64;
            bytes = &bytes[now.len()..];
            if bytes.is_empty() {
                return Ok(());
            }
            self.flush_buffer()?;
        }
        // Past it: the newest bytes overwrite the oldest of the ring (whatever the buffer still holds
        // goes to the file first, where it belongs).
        self.flush_buffer()?;
        while !bytes.is_empty() {
            let slot = (self.stream - self.head) % self.ring;
            let n = bytes.len().min((self.ring - slot) as usize);
            self.file.write_all_at(&bytes[..n], self.head + slot)?;
            self.stream += n as u64;
            bytes = &bytes[n..];
        }
        Ok(())
    }

    /// What the stream holds so far, and how much of it will not be in the file (past the cap; until
    /// [`ArtifactWriter::finish`] the ring there is not in order).
    pub(crate) fn kept(&self) -> Kept {
        Kept { stream_bytes: self.stream, dropped_bytes: self.stream.saturating_sub(self.max_bytes) }
    }

    /// Flushes; past the cap, puts the ring in order behind a marker. Closing is the caller's. After
    /// an error the artifact is given up, as after one of [`ArtifactWriter::write`].
    pub(crate) fn finish(mut self, path: &Path) -> io::Result<(File, Kept)> {
        match self.put_in_order(path) {
            Ok(kept) => Ok((self.file, kept)),
            Err(e) => {
                self.abandon();
                Err(e)
            }
        }
    }

    fn put_in_order(&mut self, path: &Path) -> io::Result<Kept> {
        self.flush_buffer()?;
        if self.stream <= self.max_bytes {
            return Ok(Kept { stream_bytes: self.stream, dropped_bytes: 0 });
        }
        let dropped = self.stream - self.max_bytes;
        // The ring's oldest byte is at `start`: move `[start, ring)` to the front and `[0, start)`
        // after it, keeping `[0, start)` aside in a file beside the artifact.
        let start = (self.stream - self.head) % self.ring;
        if start > 0 {
            self.grow_to(self.max_bytes + start)?;
            let dir = path.parent().unwrap_or(Path::new("."));
            let aside = tempfile::Builder::new().prefix(".rotate-").tempfile_in(dir)?;
            copy_range(&self.file, self.head, aside.as_file(), 0, start)?;
            copy_range(&self.file, self.head + start, &self.file, self.head, self.ring - start)?;
            copy_range(aside.as_file(), 0, &self.file, self.head + self.ring - start, start)?;
        }
        let marker = format!(
            "\n[… {dropped} bytes of output dropped here: this artifact keeps the first and the last {} bytes \
             (artifacts.maxBytes = {})]\n",
            self.head - MARKER_ROOM,
            self.max_bytes
        );
        let mut line = marker.into_bytes();
        line.resize(MARKER_ROOM as usize, b' ');
        if let Some(last) = line.last_mut() {
            *last = b'\n';
        }
        self.file.write_all_at(&line, self.head - MARKER_ROOM)?;
        self.file.set_len(self.max_bytes)?;
        Ok(Kept { stream_bytes: self.stream, dropped_bytes: dropped + MARKER_ROOM })
    }

    fn flush_buffer(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let buf = std::mem::take(&mut self.buf);
        let result = self.append(&buf);
        self.buf = buf;
        self.buf.clear();
        result
    }

    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.grow_to(self.file_len + bytes.len() as u64)?;
        self.file.write_all_at(bytes, self.file_len)?;
        self.file_len += bytes.len() as u64;
        Ok(())
    }

    fn grow_to(&mut self, bytes: u64) -> io::Result<()> {
        match &mut self.budget {
            Some(budget) => budget.grow(bytes).map_err(io::Error::other),
            None => Ok(()),
        }
    }
}

/// Copies `len` bytes from `src` at `from` to `dst` at `to` (ranges may overlap only when `to < from`,
/// as when the ring moves to the front).
fn copy_range(src: &File, from: u64, dst: &File, to: u64, len: u64) -> io::Result<()> {
    let mut buf = vec![0u8; COPY_BYTES.min(len as usize).max(1)];
    let mut done = 0;
    while done < len {
        let n = buf.len().min((len - done) as usize);
        src.read_exact_at(&mut buf[..n], from + done)?;
        dst.write_all_at(&buf[..n], to + done)?;
        done += n as u64;
    }
    Ok(())
}

impl Write for ArtifactWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        ArtifactWriter::write(self, bytes).map(|()| bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_buffer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(max: u64, chunks: &[&[u8]]) -> (Vec<u8>, Kept) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.bash.log");
        let file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path).unwrap();
        let mut writer = ArtifactWriter::new(file, max, None);
        for chunk in chunks {
            writer.write(chunk).unwrap();
        }
        let (_, kept) = writer.finish(&path).unwrap();
        (std::fs::read(&path).unwrap(), kept)
    }

    #[test]
    fn under_the_cap_the_file_is_the_stream() {
        let stream: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let (file, kept) = run(8192, &[&stream[..1000], &stream[1000..]]);
        assert_eq!(file, stream);
        assert_eq!(kept, Kept { stream_bytes: 5000, dropped_bytes: 0 });
    }

    #[test]
    fn past_the_cap_the_head_a_marker_and_the_tail_in_order() {
        let stream: Vec<u8> = (0..100_000u32).flat_map(|i| format!("{i}\n").into_bytes()).collect();
        for chunk in [1usize, 777, 4096, 65536, stream.len()] {
            let chunks: Vec<&[u8]> = stream.chunks(chunk).collect();
            let (file, kept) = run(8192, &chunks);
            assert_eq!(file.len(), 8192);
            assert_eq!(&file[..4096 - 256], &stream[..4096 - 256], "head, chunks of {chunk}");
            assert_eq!(&file[4096..], &stream[stream.len() - 4096..], "tail, chunks of {chunk}");
            let marker = String::from_utf8_lossy(&file[4096 - 256..4096]);
            assert!(marker.contains(&format!("{} bytes of output dropped", stream.len() - 8192)), "{marker}");
            assert_eq!(kept.stream_bytes, stream.len() as u64);
        }
    }

    #[test]
    fn a_refused_growth_is_an_error() {
        struct Refuse;
        impl ArtifactBudget for Refuse {
            fn grow(&mut self, bytes: u64) -> Result<(), String> {
                if bytes > 1000 {
                    Err("the state directory is at its budget".into())
                } else {
                    Ok(())
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("a")).unwrap();
        let mut writer = ArtifactWriter::new(file, 1 << 20, Some(Box::new(Refuse)));
        let error = writer.write(&vec![b'x'; 300_000]).unwrap_err();
        assert!(error.to_string().contains("budget"), "{error}");
    }
}
