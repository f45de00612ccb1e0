//! Configuration shared by the modes: settings from a file and `--set` overrides.

use std::path::PathBuf;

use bashrt_core::settings::Settings;

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
