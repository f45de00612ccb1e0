//! Diagnostics on stderr. By default one plain line per message, `bashrt: warning: <message>`, like
//! bashrt's other messages: a log is read by people and by programs that capture stderr, and neither
//! wants a timestamp, a module path or colour codes. `BASHRT_LOG` (a tracing filter such as `debug`)
//! turns on the detailed format, for debugging, and the logs of the MCP library, which the default
//! leaves out. Colour only when stderr is a terminal and `NO_COLOR`
//! is unset or empty.

use std::fmt;
use std::io::IsTerminal;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

pub fn init() {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let detailed = EnvFilter::try_from_env("BASHRT_LOG").ok();
    let builder = tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(color);
    match detailed {
        Some(filter) => builder.with_env_filter(filter).init(),
        // rmcp's own logs speak of its internals ("failed to send pending response during drain" when
        // a client went away, which is how a session ends): `BASHRT_LOG` shows them.
        None => builder.with_env_filter(EnvFilter::new("warn,rmcp=off")).event_format(Plain).init(),
    }
}

/// `bashrt: warning: message key=value`.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let level = match *event.metadata().level() {
            Level::ERROR => "error",
            Level::WARN => "warning",
            Level::INFO => "info",
            Level::DEBUG => "debug",
            Level::TRACE => "trace",
        };
        write!(writer, "bashrt: {level}: ")?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}
