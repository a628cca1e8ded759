//! Streaming gzip (RFC 1952) for the importer: SGLang and vLLM write their traces as
//! `.json.gz`, and the page reads them as they are, a slice at a time, in the importer's worker
//! (issue 43). The DEFLATE data is inflated by `miniz_oxide` (pure Rust); the header, the
//! trailer's CRC-32 and length, and concatenated members are read here.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

/// The two bytes every gzip member starts with.
pub(crate) const MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Most bytes a file may inflate to (a guard against a small file that expands without end).
pub(crate) const MAX_INFLATED: u64 = 4 << 30;
/// Bytes inflated per call.
const OUT: usize = 64 << 10;

const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

enum Stage {
    /// The member's header, collected until complete.
    Header(Vec<u8>),
    /// DEFLATE data.
    Body,
    /// The member's 8-byte trailer.
    Trailer(Vec<u8>),
    /// A member has ended: what follows is another member, or NUL padding.
    Between(Vec<u8>),
}

/// A gzip stream read in slices of any size: [`Gunzip::feed`] hands each inflated piece to a
/// sink, [`Gunzip::finish`] checks the stream ended where a member ends.
pub(crate) struct Gunzip {
    stage: Stage,
    state: Box<InflateState>,
    out: Vec<u8>,
    crc: crc32fast::Hasher,
    member_len: u64,
    total: u64,
}

/// Why a gzip stream could not be read, in words.
fn corrupt(what: &str) -> String {
    format!("the gzip file is corrupt ({what})")
}

/// The header's length once `h` holds all of it, `Ok(None)` while it may still grow.
fn header_len(h: &[u8]) -> Result<Option<usize>, String> {
    if h.len() < 10 {
        return Ok(None);
    }
    if h[..2] != MAGIC {
        return Err(corrupt("a member does not start with the gzip signature"));
    }
    if h[2] != 8 {
        return Err(format!(
            "the gzip file uses compression method {}, not DEFLATE (8)",
            h[2]
        ));
    }
    let flags = h[3];
    if flags & 0xe0 != 0 {
        return Err(corrupt("reserved header flags are set"));
    }
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let Some(len) = h.get(at..at + 2) else {
            return Ok(None);
        };
        at += 2 + usize::from(u16::from_le_bytes([len[0], len[1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match h.get(at..).and_then(|r| r.iter().position(|&b| b == 0)) {
                Some(end) => at += end + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    Ok((h.len() >= at).then_some(at))
}

impl Gunzip {
    pub(crate) fn new() -> Gunzip {
        Gunzip {
            stage: Stage::Header(Vec::new()),
            state: InflateState::new_boxed(DataFormat::Raw),
            out: vec![0; OUT],
            crc: crc32fast::Hasher::new(),
            member_len: 0,
            total: 0,
        }
    }

    /// Bytes inflated so far.
    pub(crate) fn inflated(&self) -> u64 {
        self.total
    }

    /// Reads the next compressed bytes, handing what they inflate to `sink` (which may fail:
    /// its error ends the read).
    pub(crate) fn feed(
        &mut self,
        mut input: &[u8],
        sink: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), String> {
        while !input.is_empty() {
            match &mut self.stage {
                Stage::Header(h) => {
                    // Headers are short: take bytes one slice at a time until one is whole.
                    let before = h.len();
                    h.extend_from_slice(input);
                    match header_len(h)? {
                        Some(len) => {
                            input = &input[len - before..];
                            self.stage = Stage::Body;
                        }
                        None => {
                            if h.len() > 1 << 20 {
                                return Err(corrupt("a header field runs past 1 MiB"));
                            }
                            input = &[];
                        }
                    }
                }
                Stage::Body => {
                    let r = inflate(&mut self.state, input, &mut self.out, MZFlush::None);
                    input = &input[r.bytes_consumed..];
                    let piece = &self.out[..r.bytes_written];
                    self.crc.update(piece);
                    self.member_len += piece.len() as u64;
                    self.total += piece.len() as u64;
                    if self.total > MAX_INFLATED {
                        return Err(format!(
                            "the gzip file inflates past {} GiB: too large to read in the page",
                            MAX_INFLATED >> 30
                        ));
                    }
                    if !piece.is_empty() {
                        sink(piece)?;
                    }
                    match r.status {
                        Ok(MZStatus::StreamEnd) => self.stage = Stage::Trailer(Vec::new()),
                        Ok(_) | Err(MZError::Buf) => {}
                        Err(_) => return Err(corrupt("its DEFLATE data is invalid")),
                    }
                }
                Stage::Trailer(t) => {
                    let take = (8 - t.len()).min(input.len());
                    t.extend_from_slice(&input[..take]);
                    input = &input[take..];
                    if t.len() == 8 {
                        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                        let len = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
                        let ours = std::mem::take(&mut self.crc).finalize();
                        if crc != ours {
                            return Err(corrupt("CRC-32 mismatch"));
                        }
                        if len != self.member_len as u32 {
                            return Err(corrupt("its length field disagrees with its data"));
                        }
                        self.stage = Stage::Between(Vec::new());
                    }
                }
                Stage::Between(b) => {
                    b.extend_from_slice(input);
                    input = &[];
                    if b.iter().all(|&x| x == 0) {
                        continue;
                    }
                    let start = b.iter().position(|&x| x != 0).unwrap_or(0);
                    if b[..start].iter().any(|&x| x != 0) || b[start] != MAGIC[0] {
                        return Err(corrupt("bytes follow the end of its data"));
                    }
                    if b.len() - start < 2 {
                        continue;
                    }
                    if b[start + 1] != MAGIC[1] {
                        return Err(corrupt("bytes follow the end of its data"));
                    }
                    // Another member: start over with what is held.
                    let rest = b[start..].to_vec();
                    self.stage = Stage::Header(Vec::new());
                    self.state = InflateState::new_boxed(DataFormat::Raw);
                    self.member_len = 0;
                    self.feed(&rest, sink)?;
                }
            }
        }
        Ok(())
    }

    /// Ends the stream: an error unless it ended at a member's end.
    pub(crate) fn finish(self) -> Result<(), String> {
        match self.stage {
            Stage::Between(b) if b.iter().all(|&x| x == 0) => Ok(()),
            Stage::Between(_) => Err(corrupt("bytes follow the end of its data")),
            _ => Err("the gzip file was cut short".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "hello\n" as `printf 'hello\n' | gzip -n` writes it (no name, no time).
    const HELLO: [u8; 26] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9,
        0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00,
    ];

    fn gunzip(bytes: &[u8], slice: usize) -> Result<Vec<u8>, String> {
        let mut g = Gunzip::new();
        let mut out = Vec::new();
        for c in bytes.chunks(slice.max(1)) {
            g.feed(c, &mut |p| {
                out.extend_from_slice(p);
                Ok(())
            })?;
        }
        g.finish()?;
        Ok(out)
    }

    #[test]
    fn members_slices_and_damage() {
        for slice in [1, 2, 3, 7, 100] {
            assert_eq!(gunzip(&HELLO, slice).unwrap(), b"hello\n");
        }
        // Two members, then NUL padding (as tape blocks leave).
        let mut two = HELLO.to_vec();
        two.extend_from_slice(&HELLO);
        two.extend_from_slice(&[0, 0, 0]);
        assert_eq!(gunzip(&two, 5).unwrap(), b"hello\nhello\n");
        // A name field (FNAME) before the data.
        let mut named = HELLO[..10].to_vec();
        named[3] = FNAME;
        named.extend_from_slice(b"t.json\0");
        named.extend_from_slice(&HELLO[10..]);
        assert_eq!(gunzip(&named, 4).unwrap(), b"hello\n");
        // Cut short, a flipped CRC bit, trailing junk, another method.
        assert!(gunzip(&HELLO[..20], 3).unwrap_err().contains("cut short"));
        let mut bad = HELLO;
        bad[18] ^= 1;
        assert!(gunzip(&bad, 3).unwrap_err().contains("CRC-32"));
        let mut junk = HELLO.to_vec();
        junk.push(b'x');
        assert!(gunzip(&junk, 3).unwrap_err().contains("follow"));
        let mut method = HELLO;
        method[2] = 7;
        assert!(gunzip(&method, 3).unwrap_err().contains("method 7"));
    }
}
