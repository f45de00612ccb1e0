//! What the model sees (placeholder; being written).
