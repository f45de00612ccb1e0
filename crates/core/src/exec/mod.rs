//! Executor (placeholder; being written).
