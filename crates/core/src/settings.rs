//! settings (placeholder)
