//! A Server-Sent Events decoder that tolerates what real servers send: CRLF or LF line ends,
//! comments (keep-alives), multi-line `data:`, and UTF-8 sequences split across network chunks
//! (bytes are buffered until a whole line is present, then decoded).

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already known to hold no newline (a long line arriving in small chunks
    /// is scanned once, not once per chunk).
    scanned: usize,
    event: Option<String>,
    data: Vec<String>,
    /// Newline-delimited JSON (Ollama's chat stream): each non-empty line is an event.
    lines: bool,
}

/// Passed to a stream's parser as the event name once the body has ended.
pub(crate) const EOF_EVENT: &str = "\u{0}eof";

/// A single line may not exceed this (a misbehaving server cannot grow memory without bound).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

impl SseDecoder {
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// A decoder of newline-delimited JSON: each non-empty line is one event's data.
    pub fn lines() -> SseDecoder {
        SseDecoder {
            lines: true,
            ..SseDecoder::default()
        }
    }

    /// Feed bytes; returns the events completed by them.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        // The lines are read out of the buffer in place (borrowed, not copied), so it is taken
        // out while `line` updates the decoder.
        let buf = std::mem::take(&mut self.buf);
        let mut start = 0;
        let mut from = self.scanned.min(buf.len());
        while let Some(pos) = buf[from..].iter().position(|&b| b == b'\n') {
            let end = from + pos;
            let mut line = &buf[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            match std::str::from_utf8(line) {
                Ok(l) => self.line(l, &mut out),
                Err(_) => self.line(&String::from_utf8_lossy(line), &mut out),
            }
            start = end + 1;
            from = start;
        }
        self.buf = buf;
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        if self.buf.len() > MAX_LINE_BYTES {
            return Err("SSE line too long".into());
        }
        Ok(out)
    }

    /// End of stream: a final event without its blank line still counts.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buf.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned();
            let mut out = Vec::new();
            self.line(line.trim_end_matches('\r'), &mut out);
            if let Some(e) = out.pop() {
                return Some(e);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if self.lines {
            if !line.trim().is_empty() {
                out.push(SseEvent {
                    event: None,
                    data: line.to_string(),
                });
            }
            return;
        }
        if line.is_empty() {
            if let Some(e) = self.dispatch() {
                out.push(e);
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_string()),
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if self.data.is_empty() {
            self.event = None;
            return None;
        }
        let mut lines = std::mem::take(&mut self.data);
        let data = if lines.len() == 1 {
            lines.pop().unwrap_or_default()
        } else {
            lines.join("\n")
        };
        Some(SseEvent {
            event: self.event.take(),
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_comments_and_split_utf8() {
        let mut d = SseDecoder::new();
        let text = "é";
        let bytes = format!(
            ": keep-alive\r\ndata: {{\"t\":\"{text}\"}}\r\n\r\nevent: error\ndata: a\ndata: b\n\n"
        );
        let bytes = bytes.as_bytes();
        let mut events = Vec::new();
        // Feed one byte at a time: splits the 2-byte é.
        for b in bytes {
            events.extend(d.push(std::slice::from_ref(b)).unwrap_or_default());
        }
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].data, "{\"t\":\"é\"}");
        assert_eq!(events[1].event.as_deref(), Some("error"));
        assert_eq!(events[1].data, "a\nb");
    }

    #[test]
    fn finish_flushes_unterminated_event() {
        let mut d = SseDecoder::new();
        assert!(d.push(b"data: [DONE]").unwrap_or_default().is_empty());
        assert_eq!(d.finish().map(|e| e.data), Some("[DONE]".to_string()));
    }
}

#[cfg(test)]
mod property {
    use super::*;
    use proptest::prelude::*;

    fn all(input: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        let mut last = 0;
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
        points.sort_unstable();
        for p in points.into_iter().chain(std::iter::once(input.len())) {
            if let Ok(ev) = d.push(&input[last..p]) {
                out.extend(ev);
            }
            last = p;
        }
        out.extend(d.finish());
        out
    }

    fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"data: ".to_vec()),
            Just(b"event: x\n".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b": keep-alive\n".to_vec()),
            Just("é✓".as_bytes().to_vec()),
            Just(vec![0xff, 0xfe, 0xc3]),
            proptest::collection::vec(any::<u8>(), 0..16),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        /// Any byte split gives the same events as the unsplit input; nothing panics on invalid
        /// UTF-8, stray CRs or comments.
        #[test]
        fn splits_do_not_change_events(input in sse_bytes(), cuts in proptest::collection::vec(any::<usize>(), 0..12)) {
            prop_assert_eq!(all(&input, &cuts), all(&input, &[]));
        }
    }

    /// A huge line in small chunks is refused past the limit, in linear time.
    #[test]
    fn huge_lines_are_bounded() {
        let mut d = SseDecoder::new();
        let chunk = vec![b'a'; 64 * 1024];
        let mut refused = false;
        for _ in 0..(MAX_LINE_BYTES / chunk.len() + 2) {
            if d.push(&chunk).is_err() {
                refused = true;
                break;
            }
        }
        assert!(refused);
    }
}
