//! What a WebSocket connection's writer sends: shared by the socket and its terminal channels.

/// What the writer task sends.
pub enum Out {
    Frame(bytes::Bytes),
    /// A terminal channel's output (its first byte the channel).
    Binary(bytes::Bytes),
    Text(String),
    Ping,
    Close(u16, &'static str),
}
