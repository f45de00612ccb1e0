//! validate (placeholder)
