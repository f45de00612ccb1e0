//! The client's pipes, watched: a client that went away shows up as the end of stdin or as a failed
//! write (a broken pipe), and either must stop what runs at once. The SDK, left to itself, lets running
//! handlers finish for a few seconds after the end of its input; cancelling the server's token cancels
//! every request's token now, which kills the commands.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

/// Reads from `inner`; the end of the input or a failed read cancels `gone` (the server's shutdown).
pub struct WatchedInput<R> {
    inner: R,
    gone: CancellationToken,
}

impl<R> WatchedInput<R> {
    pub fn new(inner: R, gone: CancellationToken) -> Self {
        Self { inner, gone }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedInput<R> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &poll {
            Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended && !self.gone.is_cancelled() {
            tracing::info!("the client closed stdin; shutting down");
            self.gone.cancel();
        }
        poll
    }
}

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
