//! The protocol's output, watched: a client that went away shows up as a failed write (a broken pipe)
//! before it shows up as the end of stdin, and the server must then stop what runs, not wait for input
//! that will never come.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::AsyncWrite;
use tokio_util::sync::CancellationToken;

/// Writes to `inner`; the first failed write or flush cancels `gone` (the server's shutdown).
pub struct WatchedOutput<W> {
    inner: W,
    gone: CancellationToken,
}

impl<W> WatchedOutput<W> {
    pub fn new(inner: W, gone: CancellationToken) -> Self {
        Self { inner, gone }
    }

    fn watch<T>(&self, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if let Poll::Ready(Err(e)) = &poll {
            if !self.gone.is_cancelled() {
                tracing::info!("the client went away ({e}); shutting down");
                self.gone.cancel();
            }
        }
        poll
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for WatchedOutput<W> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
