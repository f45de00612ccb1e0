//! result (placeholder)
