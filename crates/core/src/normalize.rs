//! Normalization (placeholder; being written).
