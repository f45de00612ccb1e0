//! env (placeholder)
