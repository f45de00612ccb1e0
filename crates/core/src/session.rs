//! session (placeholder)
