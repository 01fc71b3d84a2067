//! Sink: one `OutputSink` for every way a command's output arrives (pipes or a PTY).
//!
//! In: chunks of bytes, in arrival order, of any size. Out: a bounded,
//! UTF-8-safe window (the first and last bytes, default 50 KiB in all), exact
//! byte and line counts, and — as soon as the stream outgrows the window —
//! an artifact file holding every byte, in order. Memory stays bounded
//! whatever the output size: the window plus one chunk.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Default window size (head + tail).
pub const DEFAULT_WINDOW: usize = 50 * 1024;

/// A sink failure: the artifact could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SinkError {
    /// Creating or writing the artifact failed.
    #[error("cannot write the output artifact `{path}`: {source}")]
    Artifact {
        /// Its path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Anything that takes a command's output.
pub trait Sink {
    /// Takes the next chunk.
    ///
    /// # Errors
    /// When the artifact cannot be written.
    fn write(&mut self, chunk: &[u8]) -> Result<(), SinkError>;
}

/// What a finished sink holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SinkOutput {
    /// The text shown: the whole output, or head + a marker + tail.
    pub shown: String,
    /// True when some bytes are only in the artifact.
    pub truncated: bool,
    /// Bytes of the head shown (from offset 0).
    pub head_bytes: usize,
    /// First byte of the tail shown (its end is `total_bytes`).
    pub tail_from: u64,
    /// Every byte seen.
    pub total_bytes: u64,
    /// Lines seen (a final line without a newline counts).
    pub total_lines: u64,
    /// The artifact with every byte, when the output outgrew the window or
    /// was not UTF-8 (the artifact then holds the raw bytes).
    pub artifact: Option<PathBuf>,
    /// True when `shown` replaced bytes that are not UTF-8 (U+FFFD): the
    /// artifact holds them as they were.
    pub lossy: bool,
}

/// The bounded, spilling sink.
#[derive(Debug)]
pub struct OutputSink {
    head_cap: usize,
    tail_cap: usize,
    /// Every byte while the stream fits the window; after that, the head only.
    head: Vec<u8>,
    /// The last `tail_cap` bytes once spilled (a ring: `tail_start` is the oldest byte).
    tail: Vec<u8>,
    tail_start: usize,
    total: u64,
    newlines: u64,
    last: Option<u8>,
    spill_dir: PathBuf,
    spill_name: String,
    artifact: Option<(PathBuf, std::io::BufWriter<File>)>,
    /// Flush every chunk to the artifact (a background job's output is read while it runs).
    live: bool,
}

impl OutputSink {
    /// A sink with a window of `window` bytes (split evenly between head and tail)
    /// that spills to `spill_dir/spill_name` on overflow.
    pub fn new(window: usize, spill_dir: &Path, spill_name: &str) -> OutputSink {
        let head_cap = window / 2;
        OutputSink {
            head_cap,
            tail_cap: window - head_cap,
            head: Vec::new(),
            tail: Vec::new(),
            tail_start: 0,
            total: 0,
            newlines: 0,
            last: None,
            spill_dir: spill_dir.to_path_buf(),
            spill_name: spill_name.to_owned(),
            artifact: None,
            live: false,
        }
    }

    /// A sink whose artifact exists from the first byte (background jobs).
    ///
    /// # Errors
    /// When the artifact cannot be created.
    pub fn always_spill(window: usize, artifact: &Path) -> Result<OutputSink, SinkError> {
        let dir = artifact.parent().unwrap_or(Path::new("."));
        let name = artifact
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("output");
        let mut s = OutputSink::new(window, dir, name);
        s.live = true;
        s.open_artifact()?;
        Ok(s)
    }

    fn window(&self) -> usize {
        self.head_cap + self.tail_cap
    }

    fn open_artifact(&mut self) -> Result<(), SinkError> {
        let path = self.spill_dir.join(&self.spill_name);
        let err = |source| SinkError::Artifact {
            path: path.clone(),
            source,
        };
        crate::exec::files::private_dir(&self.spill_dir).map_err(err)?;
        let file: File = crate::exec::files::create_private(&path).map_err(err)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
        w.write_all(&self.head).map_err(err)?;
        // Keep only the head window in memory from now on.
        let keep = utf8_floor(&self.head, self.head_cap);
        let tail_bytes = self
            .head
            .get(self.head.len().saturating_sub(self.tail_cap)..)
            .unwrap_or_default()
            .to_vec();
        self.head.truncate(keep);
        self.tail = tail_bytes;
        self.tail_start = 0;
        self.artifact = Some((path, w));
        Ok(())
    }

    fn push_tail(&mut self, chunk: &[u8]) {
        if self.tail_cap == 0 {
            return;
        }
        if chunk.len() >= self.tail_cap {
            self.tail = chunk
                .get(chunk.len() - self.tail_cap..)
                .unwrap_or_default()
                .to_vec();
            self.tail_start = 0;
            return;
        }
        if self.tail.len() < self.tail_cap {
            let room = self.tail_cap - self.tail.len();
            let (now, rest) = chunk.split_at(room.min(chunk.len()));
            self.tail.extend_from_slice(now);
            if rest.is_empty() {
                return;
            }
            return self.push_tail(rest);
        }
        // The ring is full: overwrite from the oldest byte, wrapping once at most.
        let first = (self.tail_cap - self.tail_start).min(chunk.len());
        let (a, b) = chunk.split_at(first);
        if let Some(dst) = self.tail.get_mut(self.tail_start..self.tail_start + first) {
            dst.copy_from_slice(a);
        }
        if let Some(dst) = self.tail.get_mut(..b.len()) {
            dst.copy_from_slice(b);
        }
        self.tail_start = (self.tail_start + chunk.len()) % self.tail_cap;
    }

    fn tail_bytes(&self) -> Vec<u8> {
        let (a, b) = self.tail.split_at(self.tail_start.min(self.tail.len()));
        [b, a].concat()
    }

    /// Ends the stream.
    ///
    /// # Errors
    /// When the artifact cannot be flushed.
    pub fn finish(mut self) -> Result<SinkOutput, SinkError> {
        if self.artifact.is_none() && std::str::from_utf8(&self.head).is_err() {
            // Binary output: keep the raw bytes in an artifact, whatever the size.
            self.open_artifact()?;
        }
        let lines = self.newlines + u64::from(self.last.is_some_and(|b| b != b'\n'));
        if let Some((path, mut w)) = self.artifact.take() {
            w.flush().map_err(|source| SinkError::Artifact {
                path: path.clone(),
                source,
            })?;
            let truncated = self.total > self.window() as u64;
            if !truncated {
                // Spilled from the start (a job) but small: show it whole.
                let all = std::fs::read(&path).unwrap_or_default();
                return Ok(SinkOutput {
                    lossy: std::str::from_utf8(&all).is_err(),
                    shown: String::from_utf8_lossy(&all).into_owned(),
                    truncated: false,
                    head_bytes: all.len(),
                    tail_from: self.total,
                    total_bytes: self.total,
                    total_lines: lines,
                    artifact: Some(path),
                });
            }
            let head_len = utf8_floor(&self.head, self.head_cap);
            let tail = self.tail_bytes();
            let skip = utf8_ceil(&tail);
            let tail_shown = tail.get(skip..).unwrap_or_default();
            let tail_from = self.total - tail_shown.len() as u64;
            let omitted = tail_from - head_len as u64;
            let shown = format!(
                "{}\n[… {omitted} bytes omitted; the whole output is in {} …]\n{}",
                String::from_utf8_lossy(self.head.get(..head_len).unwrap_or_default()),
                path.display(),
                String::from_utf8_lossy(tail_shown)
            );
            return Ok(SinkOutput {
                lossy: std::str::from_utf8(self.head.get(..head_len).unwrap_or_default()).is_err()
                    || std::str::from_utf8(tail_shown).is_err(),
                shown,
                truncated: true,
                head_bytes: head_len,
                tail_from,
                total_bytes: self.total,
                total_lines: lines,
                artifact: Some(path),
            });
        }
        Ok(SinkOutput {
            lossy: false,
            shown: String::from_utf8_lossy(&self.head).into_owned(),
            truncated: false,
            head_bytes: self.head.len(),
            tail_from: self.total,
            total_bytes: self.total,
            total_lines: lines,
            artifact: None,
        })
    }
}

impl Sink for OutputSink {
    fn write(&mut self, chunk: &[u8]) -> Result<(), SinkError> {
        if chunk.is_empty() {
            return Ok(());
        }
        self.total += chunk.len() as u64;
        self.newlines += memchr_count(chunk);
        self.last = chunk.last().copied();
        match &mut self.artifact {
            Some((path, w)) => {
                w.write_all(chunk).map_err(|source| SinkError::Artifact {
                    path: path.clone(),
                    source,
                })?;
                if self.live {
                    w.flush().map_err(|source| SinkError::Artifact {
                        path: path.clone(),
                        source,
                    })?;
                }
                self.push_tail(chunk);
            }
            None => {
                self.head.extend_from_slice(chunk);
                if self.head.len() > self.window() {
                    self.open_artifact()?;
                }
            }
        }
        Ok(())
    }
}

fn memchr_count(chunk: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', chunk).count() as u64
}

/// The largest `n <= max` that does not cut a UTF-8 sequence of `bytes`.
fn utf8_floor(bytes: &[u8], max: usize) -> usize {
    let mut n = max.min(bytes.len());
    while n > 0 && n < bytes.len() && bytes.get(n).is_some_and(|b| b & 0xC0 == 0x80) && max - n < 4
    {
        n -= 1;
    }
    n
}

/// How many leading continuation bytes to skip so that `bytes` starts on a character.
fn utf8_ceil(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|b| *b & 0xC0 == 0x80)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(window: usize, chunks: &[&[u8]]) -> (SinkOutput, Vec<u8>) {
        let dir = std::env::temp_dir().join(format!(
            "sg-sink-{}-{}",
            std::process::id(),
            chunks.len() + window
        ));
        // Made by the sink itself, private (an existing directory open to others is refused).
        let _ = std::fs::remove_dir_all(&dir);
        let mut s = OutputSink::new(window, &dir, "out");
        for c in chunks {
            s.write(c).unwrap();
        }
        let out = s.finish().unwrap();
        let art = out
            .artifact
            .as_ref()
            .map(|p| std::fs::read(p).unwrap())
            .unwrap_or_default();
        (out, art)
    }

    #[test]
    fn small_output_is_whole() {
        let (o, _) = run(100, &[b"ab\n", b"cd"]);
        assert_eq!(o.shown, "ab\ncd");
        assert!(!o.truncated && o.artifact.is_none());
        assert_eq!((o.total_bytes, o.total_lines), (5, 2));
    }

    #[test]
    fn overflow_spills_every_byte_in_order() {
        let data: Vec<u8> = (0..10_000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let chunks: Vec<&[u8]> = data.chunks(77).collect();
        let (o, art) = run(1000, &chunks);
        assert!(o.truncated);
        assert_eq!(art, data);
        assert_eq!(o.total_bytes, data.len() as u64);
        assert_eq!(o.total_lines, 10_000);
        assert!(o.shown.starts_with("line 0\n"));
        assert!(o.shown.ends_with("line 9999\n"));
        assert!(o.head_bytes <= 500 && o.total_bytes - o.tail_from <= 500);
    }

    #[test]
    fn cuts_are_utf8_safe() {
        let data = "é".repeat(1000);
        let chunks: Vec<&[u8]> = data.as_bytes().chunks(3).collect();
        let (o, art) = run(101, &chunks);
        assert_eq!(art, data.as_bytes());
        assert!(!o.shown.contains('\u{fffd}'), "{}", o.shown);
    }
}
