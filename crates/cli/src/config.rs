//! Configuration shared by the modes: settings from a file and `--set` overrides.

use std::path::PathBuf;

use bashrt_core::{SessionName, Settings};

/// Loads settings from the file (explicit or default) and applies `--set` overrides.
pub fn load_settings(file: Option<&PathBuf>, overrides: &[String]) -> Result<Settings, String> {
    let (mut settings, mut warnings) = match file {
        Some(path) => {
            let mut s = Settings::default();
            let w = s.apply_file(path).map_err(|e| e.to_string())?;
            (s, w)
        }
        None => Settings::load_default_file().map_err(|e| e.to_string())?,
    };
    for o in overrides {
        if let Some(w) = settings.apply_override(o).map_err(|e| e.to_string())? {
            warnings.push(w);
        }
    }
    for w in warnings {
        eprintln!("bashrt: warning: {w}");
    }
    Ok(settings)
}

/// Options every mode shares: which session, which settings.
#[derive(clap::Args, Default)]
pub struct CommonArgs {
    /// Session name (default: one session per working directory).
    #[arg(long)]
    pub session: Option<String>,
    /// Settings file (default: $BASHRT_SETTINGS or ~/.config/bashrt/settings.json).
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Override one setting: KEY=VALUE (VALUE is JSON, or a plain string).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// What a mode starts from.
pub struct Setup {
    pub settings: Settings,
    pub cwd: PathBuf,
    pub session: SessionName,
}

impl CommonArgs {
    /// Settings, the current directory and the session name; an error is a message for the user.
    pub fn setup(&self) -> Result<Setup, String> {
        let settings = load_settings(self.settings.as_ref(), &self.set)?;
        let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
        let session = match self.session.as_deref() {
            Some(name) => SessionName::parse(name).map_err(|e| e.to_string())?,
            None => SessionName::for_cwd(&cwd),
        };
        Ok(Setup { settings, cwd, session })
    }
}
