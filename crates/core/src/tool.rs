//! tool (placeholder)
