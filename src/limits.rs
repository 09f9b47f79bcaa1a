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

/// The bounds of a jq `ignoreDifferences` expression and its evaluation
/// (`ignore::jq`).
pub mod jq {
    use std::time::Duration;

    // jaq's reader, compiler and evaluator use, per level of a parsed
    // expression, up to 11.5 KiB of stack unoptimised (an object in an object;
    // 10 KiB an `if`, 8 KiB a pipe, 2.3 KiB a parenthesis, 0.35 KiB a `?`),
    // measured on a thread with a 1 MiB stack; optimised builds use a fraction.
    // At the limits below the worst expression needs about 1.7 MiB unoptimised.

    /// The longest expression drift-doctor reads, in characters.
    pub const MAX_EXPRESSION_CHARS: usize = 4096;
    /// The deepest nesting of brackets, braces, parentheses and string
    /// interpolations in an expression.
    pub const MAX_NESTING: usize = 32;
    /// The most operators and keywords (`|`, `,`, `+`, `if`, `as`, ...) in an
    /// expression: each one can add a level to the parsed expression.
    pub const MAX_OPERATORS: usize = 128;
    /// Argo CD's default for `ignore.normalizer.jq.timeout`.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
    /// Terms one evaluation may run through without a clock: a deterministic
    /// bound (rules on Kubernetes objects take a few hundred; five million take
    /// about a second optimised).
    pub const MAX_STEPS: u64 = 5_000_000;
    /// The same bound behind the time budget when there is a clock, so that
    /// the time budget is what stops an expression.
    pub const MAX_STEPS_TIMED: u64 = 200_000_000;
    /// Stack one evaluation may use below where it started, in bytes.
    pub const MAX_STACK_BYTES: usize = 256 * 1024;
}
