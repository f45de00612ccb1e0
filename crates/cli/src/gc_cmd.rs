//! `bashrt gc`: brings the state directory under its budget by hand, or shows what that would remove.

use std::process::ExitCode;

use bashrt_core::Runtime;

use crate::config::load_settings;
use crate::{fail, print_out};

#[derive(clap::Args)]
pub struct GcArgs {
    /// Only list what would be removed.
    #[arg(long)]
    dry_run: bool,
    /// Print the plan as JSON.
    #[arg(long)]
    json: bool,
    /// Settings file (default: $BASHRT_SETTINGS or ~/.config/bashrt/settings.json).
    #[arg(long)]
    settings: Option<std::path::PathBuf>,
    /// Override one setting: KEY=VALUE (e.g. `state.maxBytes=100000000`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

pub fn run(args: GcArgs) -> ExitCode {
    let settings = match load_settings(args.settings.as_ref(), &args.set) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let (budget, keep) = (settings.state_budget_bytes, settings.keep_recent_secs);
    let runtime = Runtime::builder(settings).one_shot().watchdog(false).build();
    let Some(state) = runtime.state_dir().map(|s| s.path().to_path_buf()) else {
        return fail("no state directory: set BASHRT_STATE_DIR, XDG_STATE_HOME or HOME");
    };
    let plan = match runtime.collect_garbage(args.dry_run) {
        Ok(plan) => plan,
        Err(e) => return fail(e),
    };
    if args.json {
        return print_out(&format!("{}\n", serde_json::to_string(&plan).unwrap_or_default()));
    }
    let verb = if args.dry_run { "would remove" } else { "removed" };
    let mut text = format!("{}: {} used, budget {}\n", state.display(), mib(plan.used_bytes), mib(budget));
    for removal in &plan.removals {
        text.push_str(&format!("{verb} {} ({}): {}\n", removal.what, mib(removal.bytes), removal.path.display()));
    }
    if !plan.live_sessions.is_empty() {
        text.push_str(&format!("in use, kept: {}\n", plan.live_sessions.join(", ")));
    }
    if !plan.kept_recent.is_empty() {
        let n = plan.kept_recent.len();
        text.push_str(&format!("being written or written in the last {keep}s, kept: {n} artifact(s)\n"));
    }
    text.push_str(&format!("{verb} {} in {} item(s)\n", mib(plan.freed_bytes()), plan.removals.len()));
    print_out(&text)
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}
