//! The signals that end a server mode: SIGINT, SIGTERM and SIGHUP end `bashrt rpc` and `bashrt mcp` as
//! the end of stdin would, so that commands are stopped and answered rather than orphaned.

/// Calls `shutdown` (once, on its own thread) at the first SIGINT, SIGTERM or SIGHUP.
pub fn on_shutdown_signal(shutdown: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if signals.forever().next().is_some() {
            shutdown();
        }
    })?;
    Ok(())
}
