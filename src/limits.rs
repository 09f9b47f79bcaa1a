//! The limits that keep hostile input from exhausting the stack, memory or
//! time, in one place so every reader states and applies the same numbers.

#![warn(missing_docs)]

/// How deep a manifest may nest (maps and lists). Kubernetes objects rarely
/// pass 20 levels; serde_yaml's own reader stops at 128.
pub const MAX_NESTING: usize = 128;

/// How deep a recursive walk over a value or a schema follows it: past the
/// deepest value the readers accept ([`MAX_NESTING`]), so a walk never stops
/// short on valid input, and bounded for the walks over text that was not
/// read first (a scanner of pasted text) or over recursive schemas.
pub const MAX_WALK_DEPTH: usize = MAX_NESTING + 72;

/// The largest side (Git, live or diff text) read by default, in bytes. A
/// larger side is refused before it is read whole; the CLI's
/// `--max-input-mib` raises it.
pub const DEFAULT_MAX_SIDE_BYTES: u64 = 64 * 1024 * 1024;
