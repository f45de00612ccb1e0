//! OutputSink (placeholder; being written).
