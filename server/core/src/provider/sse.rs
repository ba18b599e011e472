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
    event: Option<String>,
    data: Vec<String>,
}

/// A single line may not exceed this (a misbehaving server cannot grow memory without bound).
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

impl SseDecoder {
    pub fn new() -> SseDecoder {
        SseDecoder::default()
    }

    /// Feed bytes; returns the events completed by them.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        self.buf.extend_from_slice(chunk);
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(pos) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + pos;
            let mut line = &self.buf[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            let line = String::from_utf8_lossy(line).into_owned();
            start = end + 1;
            self.line(&line, &mut out);
        }
        self.buf.drain(..start);
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
        let data = std::mem::take(&mut self.data).join("\n");
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
