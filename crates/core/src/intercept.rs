//! Interception (placeholder; being written).
