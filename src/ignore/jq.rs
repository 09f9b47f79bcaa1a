//! The user's `jqPathExpressions`, run by the jaq engine as `del(<expr>)`
//! under bounds, so that no expression can crash or stall an analysis.
//!
//! - Before jaq reads an expression, its length and nesting are checked
//!   ([`MAX_EXPRESSION_CHARS`], [`MAX_NESTING`], [`MAX_OPERATORS`]): jaq's
//!   lexer, parser and compiler recurse once per level, and an expression
//!   within these limits stays far from the end of any stack drift-doctor
//!   runs on (the main thread's 8 MiB, a 2 MiB test thread, the page's
//!   worker).
//! - A definition that calls itself (`def f: f; f`) is refused: jaq runs a
//!   recursive call inside a path update as a Rust call, so unbounded
//!   recursion would exhaust the stack.
//! - The loops of jq's standard library (`range`, `repeat`, `while`,
//!   `until`, `recurse(f)`) check a budget on every round: a step budget
//!   (every term jaq evaluates counts), a stack budget, and the time budget
//!   Argo CD gives each expression (`ignore.normalizer.jq.timeout`, 1 s by
//!   default), measured with a clock the shell passes in, since the core has
//!   none. What no check inside jaq sees (outputs that multiply without a
//!   loop) is bounded by an [`Executor`] the shell may pass in: the CLI runs
//!   each evaluation on a worker thread and stops waiting at the budget.
//! - Filters that read the outside world (`now`, `env`, `input`, `debug`,
//!   `stderr`) are not available.
//!
//! Each expression is compiled once per [`JqRuntime`] (one per analysis). An
//! expression that runs out of budget is skipped for the rest of the
//! analysis, and the runtime keeps one warning for it.
//!
//! jaq itself ([`super::jaq`]) is behind the `jq-engine` feature. A build
//! without it (the page's analysis worker, which keeps jaq out of its first
//! download) runs expressions in an [`Engine`] the shell installs
//! ([`install_engine`]: the worker's calls the jq module); with none, an
//! expression is not run and a warning says why.

use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::limits::jq::{
    DEFAULT_TIMEOUT, MAX_EXPRESSION_CHARS, MAX_NESTING, MAX_OPERATORS, MAX_STACK_BYTES, MAX_STEPS,
    MAX_STEPS_TIMED,
};

/// The bounds of one evaluation, as an [`Engine`] receives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The time budget.
    pub timeout: Duration,
    /// The step budget.
    pub max_steps: u64,
    /// Whether the time budget is checked (the shell gave a clock; the
    /// engine reads its own).
    pub timed: bool,
}

/// A jq engine outside the core, for a build without `jq-engine`: it
/// compiles and runs expressions exactly as [`super::jaq`] does. `Err` is
/// an engine that could not be asked (not loaded, failed): the expression
/// is then not run, with a warning.
pub trait Engine: Send + Sync {
    /// Compile `del(<expr>)` for an expression [`check_shape`] passed.
    fn compile(&self, expr: &str) -> Result<Result<(), Refusal>, String>;
    /// Run `del(<expr>)` on the object written as JSON `object`: the
    /// result's JSON text (None as [`JqRuntime::delete`] says), or why it
    /// was stopped.
    fn delete(
        &self,
        expr: &str,
        object: &str,
        limits: Limits,
    ) -> Result<Result<Option<String>, Stop>, String>;
}

/// The engine [`install_engine`] installed.
static INSTALLED: Mutex<Option<Arc<dyn Engine>>> = Mutex::new(None);

/// Run the jq expressions of every later analysis with `engine` (the page's
/// worker installs the one that calls its jq module).
pub fn install_engine(engine: Arc<dyn Engine>) {
    *INSTALLED.lock().unwrap_or_else(PoisonError::into_inner) = Some(engine);
}

fn installed_engine() -> Option<Arc<dyn Engine>> {
    INSTALLED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Time since a fixed start, from the shell (the core has no clock).
pub type Clock = fn() -> Duration;

/// What one evaluation gives: the object with the paths removed (None when
/// the expression fails on it), or why it was stopped.
pub type Outcome = Result<Option<Value>, Stop>;
/// One evaluation, ready to run on another thread.
pub type Job = Box<dyn FnOnce() -> Outcome + Send>;
/// Runs a job and waits at most the given time for it: None when it gave up
/// (the shell's way to bound what the step and stack budgets cannot see,
/// such as an expression whose outputs multiply without a loop). Natively
/// the CLI runs jobs on a thread it can leave behind; the page's worker runs
/// them inline and tells the page, which can end the worker.
pub type Executor = Arc<dyn Fn(&Evaluation<'_>, Job, Duration) -> Option<Outcome> + Send + Sync>;

/// Which rule and expression a job evaluates, for a shell that has to name
/// the expression it stopped from outside (see [`JqRuntime::mark_timed_out`]).
#[derive(Debug, Clone, Copy)]
pub struct Evaluation<'a> {
    /// The rule, as warnings name it.
    pub source: &'a str,
    /// The expression's text.
    pub expr: &'a str,
}

/// How much longer than the time budget an executor waits, so that the
/// budget's own check, when it sees the overrun, is what reports it.
const EXECUTOR_GRACE: Duration = Duration::from_millis(250);

/// The state of the jq expressions of one analysis: limits, the compiled
/// expressions, and the warnings about expressions that failed. Clones share
/// it.
#[derive(Clone, Default)]
pub struct JqRuntime(Arc<Mutex<State>>);

struct State {
    timeout: Duration,
    /// Set for tests; else [`MAX_STEPS`] or, with a clock, [`MAX_STEPS_TIMED`].
    max_steps: Option<u64>,
    clock: Option<Clock>,
    executor: Option<Executor>,
    /// Set for tests; else the installed engine, else jaq in-process.
    engine: Option<Arc<dyn Engine>>,
    programs: HashMap<String, Arc<Compiled>>,
    /// Expressions stopped at run time, by rule and expression text.
    stopped: BTreeMap<(String, String), String>,
    /// What reading the settings noticed without refusing them.
    notes: Vec<String>,
}

impl Default for State {
    fn default() -> Self {
        State {
            timeout: DEFAULT_TIMEOUT,
            max_steps: None,
            clock: None,
            executor: None,
            engine: None,
            programs: HashMap::new(),
            stopped: BTreeMap::new(),
            notes: Vec::new(),
        }
    }
}

impl std::fmt::Debug for JqRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("JqRuntime")
            .field("timeout", &state.timeout)
            .field("clock", &state.clock.is_some())
            .finish()
    }
}

/// The runtime is the analysis' context, not part of a rule's content.
impl PartialEq for JqRuntime {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl JqRuntime {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A runtime whose expressions run in `engine`, whatever is installed.
    pub fn with_engine(engine: Arc<dyn Engine>) -> Self {
        let runtime = JqRuntime::default();
        runtime.lock().engine = Some(engine);
        runtime
    }

    /// Measure each expression's time with `clock`.
    pub fn set_clock(&self, clock: Clock) {
        self.lock().clock = Some(clock);
    }

    /// Run each evaluation with `executor`, which gives up after the time
    /// budget (with a little grace).
    pub fn set_executor(&self, executor: Executor) {
        self.lock().executor = Some(executor);
    }

    /// Each expression's time budget per object (argocd-cm
    /// `ignore.normalizer.jq.timeout`).
    pub fn set_timeout(&self, timeout: Duration) {
        self.lock().timeout = timeout;
    }

    /// The steps one evaluation may take (else [`MAX_STEPS`], or
    /// [`MAX_STEPS_TIMED`] with a clock).
    pub fn set_max_steps(&self, steps: u64) {
        self.lock().max_steps = Some(steps);
    }

    /// The time budget of one expression on one object.
    pub fn timeout(&self) -> Duration {
        self.lock().timeout
    }

    /// The compiled form of `expr`, compiled on first use.
    pub fn compile(&self, expr: &str) -> Arc<Compiled> {
        if let Some(c) = self.lock().programs.get(expr) {
            return c.clone();
        }
        let engine = self.lock().engine.clone();
        let compiled = Arc::new(Compiled {
            program: compile_program(engine, expr),
        });
        self.lock()
            .programs
            .insert(expr.to_string(), compiled.clone());
        compiled
    }

    /// Keep a warning about the settings for the report.
    pub fn note(&self, warning: String) {
        let mut state = self.lock();
        if !state.notes.contains(&warning) {
            state.notes.push(warning);
        }
    }

    /// The settings' warnings, then one per expression that was stopped (in
    /// rule order).
    pub fn warnings(&self) -> Vec<String> {
        let state = self.lock();
        state
            .notes
            .iter()
            .chain(state.stopped.values())
            .cloned()
            .collect()
    }

    /// Skip `expr` of rule `source` in this analysis, with the warning a
    /// timeout gives: for a shell that stopped an earlier run of the same
    /// analysis from outside because this expression outlived its budget.
    pub fn mark_timed_out(&self, source: &str, expr: &str) {
        let (timeout, max_steps) = {
            let state = self.lock();
            (state.timeout, state.max_steps.unwrap_or(MAX_STEPS))
        };
        self.stop(source, expr, Stop::Time, timeout, max_steps);
    }

    fn stop(&self, source: &str, expr: &str, stop: Stop, timeout: Duration, max_steps: u64) {
        let message = format!(
            "rule {source}: jq expression `{}` {}; skipped",
            shorten(expr),
            stop.describe(timeout, max_steps)
        );
        self.lock()
            .stopped
            .insert((source.to_string(), expr.to_string()), message);
    }

    /// Skip `expr` of rule `source` in this analysis: the engine could not
    /// run it.
    fn not_run(&self, source: &str, expr: &str, why: &str) {
        let message = format!(
            "rule {source}: jq expression `{}` was not run: {why}; skipped",
            shorten(expr)
        );
        self.lock()
            .stopped
            .insert((source.to_string(), expr.to_string()), message);
    }

    fn is_stopped(&self, source: &str, expr: &str) -> bool {
        self.lock()
            .stopped
            .contains_key(&(source.to_string(), expr.to_string()))
    }

    /// Run `del(expr)` on `obj` for the rule named `source`. Returns the
    /// object with the paths removed; None when the expression yields an
    /// error or not exactly one value (skipped for this object, as Argo CD
    /// does), when it does not compile (reported when the settings were
    /// read), or when it was stopped (then it is skipped from here on, and a
    /// warning says so).
    pub fn delete(&self, source: &str, expr: &str, obj: &Value) -> Option<Value> {
        if self.is_stopped(source, expr) {
            return None;
        }
        let compiled = self.compile(expr);
        match &compiled.program {
            Err(_) => return None,
            Ok(Program::Unavailable(why)) => {
                self.not_run(source, expr, why);
                return None;
            }
            Ok(_) => {}
        }
        let (timeout, clock, max_steps, executor) = {
            let state = self.lock();
            let default_steps = if state.clock.is_some() {
                MAX_STEPS_TIMED
            } else {
                MAX_STEPS
            };
            (
                state.timeout,
                state.clock,
                state.max_steps.unwrap_or(default_steps),
                state.executor.clone(),
            )
        };
        let run = {
            let compiled = compiled.clone();
            let runtime = self.clone();
            let (source, expr) = (source.to_string(), expr.to_string());
            move |obj: &Value| -> Outcome {
                let Ok(text) = serde_json::to_string(obj) else {
                    return Ok(None);
                };
                let result = match &compiled.program {
                    #[cfg(feature = "jq-engine")]
                    Ok(Program::Jaq(program)) => program.run(&text, timeout, clock, max_steps),
                    Ok(Program::External(engine)) => {
                        let limits = Limits {
                            timeout,
                            max_steps,
                            timed: clock.is_some(),
                        };
                        match engine.delete(&expr, &text, limits) {
                            Ok(result) => result,
                            Err(why) => {
                                runtime.not_run(&source, &expr, &why);
                                Ok(None)
                            }
                        }
                    }
                    _ => Ok(None),
                };
                result.map(|out| out.and_then(|t| serde_json::from_str(&t).ok()))
            }
        };
        let outcome = match executor {
            Some(executor) => {
                let obj = obj.clone();
                let job: Job = Box::new(move || run(&obj));
                let evaluation = Evaluation { source, expr };
                executor(&evaluation, job, timeout.saturating_add(EXECUTOR_GRACE))
                    .unwrap_or(Err(Stop::Time))
            }
            None => run(obj),
        };
        match outcome {
            Ok(out) => out,
            Err(stop) => {
                self.stop(source, expr, stop, timeout, max_steps);
                None
            }
        }
    }
}

/// An expression as the engine compiled it, or why it is refused.
pub struct Compiled {
    /// The program the engine compiled, or why it is refused.
    pub program: Result<Program, Refusal>,
}

/// A compiled expression, and where it runs.
pub enum Program {
    /// jaq compiled it in-process.
    #[cfg(feature = "jq-engine")]
    Jaq(super::jaq::Program),
    /// The engine compiled it (and keeps it, by its text).
    External(Arc<dyn Engine>),
    /// No engine could compile it: it is not run, for this reason.
    Unavailable(String),
}

/// Why an expression is not run where no engine is there.
#[cfg(not(feature = "jq-engine"))]
const NO_ENGINE: &str = "this build of drift-doctor has no jq engine";

/// Compile `del(<expr>)`, after the checks that keep jaq within bounds: in
/// `engine` when given, else in the installed engine, else in-process.
fn compile_program(engine: Option<Arc<dyn Engine>>, expr: &str) -> Result<Program, Refusal> {
    check_shape(expr)?;
    match engine.or_else(installed_engine) {
        Some(engine) => match engine.compile(expr) {
            Ok(Ok(())) => Ok(Program::External(engine)),
            Ok(Err(refusal)) => Err(refusal),
            Err(why) => Ok(Program::Unavailable(why)),
        },
        #[cfg(feature = "jq-engine")]
        None => super::jaq::compile(expr).map(Program::Jaq),
        #[cfg(not(feature = "jq-engine"))]
        None => Ok(Program::Unavailable(NO_ENGINE.to_string())),
    }
}

/// Compile `del(<expr>)` as a new [`JqRuntime`] would.
pub fn compile(expr: &str) -> Compiled {
    Compiled {
        program: compile_program(None, expr),
    }
}

/// Why an expression is not run: the message, and the character offset in
/// the expression it points at (0-based) when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What is wrong, as a sentence.
    pub message: String,
    /// Where in the expression (a 0-based character offset), when known.
    pub offset: Option<usize>,
}

impl Refusal {
    pub(super) fn new(message: String, offset: Option<usize>) -> Self {
        Refusal { message, offset }
    }
}

/// The first characters of a long expression, for messages.
pub(super) fn shorten(expr: &str) -> String {
    const SHOWN: usize = 60;
    if expr.chars().count() <= SHOWN {
        expr.to_string()
    } else {
        let head: String = expr.chars().take(SHOWN).collect();
        format!("{head}… ({} characters)", expr.chars().count())
    }
}

/// Why an evaluation was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The time budget ran out.
    Time,
    /// The step budget ran out (an expression that would not end).
    Steps,
    /// The nesting of calls went too deep.
    Stack,
}

impl Stop {
    fn describe(self, timeout: Duration, max_steps: u64) -> String {
        match self {
            Stop::Time => format!("timed out after {}", go_duration_text(timeout)),
            Stop::Steps => format!("stopped after {max_steps} evaluation steps"),
            Stop::Stack => format!(
                "stopped: it recursed deeper than {} KiB of stack",
                MAX_STACK_BYTES / 1024
            ),
        }
    }
}

/// A duration as Go prints it, in the units a timeout is written in.
pub fn go_duration_text(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else if d.as_micros() % 1000 == 0 {
        format!("{ms}ms")
    } else {
        format!("{:?}", d)
    }
}

/// Length, nesting and operator count, read without jaq (whose reader
/// recurses per level): brackets, braces and parentheses, and string
/// interpolations `\(...)`, outside string literals.
pub fn check_shape(expr: &str) -> Result<(), Refusal> {
    let chars = expr.chars().count();
    // Each open bracket, and whether it opened a string interpolation.
    let mut open: Vec<bool> = Vec::new();
    let mut in_string = false;
    let mut operators = 0usize;
    let mut word = String::new();
    let mut chars_iter = expr.chars().enumerate().peekable();
    let nesting_error = |at: usize| {
        Refusal::new(
            format!("the jq expression nests deeper than {MAX_NESTING} levels (brackets, parentheses, braces, string interpolations); drift-doctor reads at most {MAX_NESTING}"),
            Some(at),
        )
    };
    let operator_error = |at: usize| {
        Refusal::new(
            format!("the jq expression has more than {MAX_OPERATORS} operators and keywords; drift-doctor reads at most {MAX_OPERATORS}"),
            Some(at),
        )
    };
    let mut after_operator = false;
    while let Some((i, c)) = chars_iter.next() {
        let previous_was_operator = std::mem::replace(&mut after_operator, false);
        if in_string {
            match c {
                '\\' => {
                    if let Some((_, '(')) = chars_iter.next() {
                        open.push(true);
                        in_string = false;
                        if open.len() > MAX_NESTING {
                            return Err(nesting_error(i));
                        }
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            if JQ_KEYWORDS.contains(&word.as_str()) {
                operators += 1;
            }
            word.clear();
        }
        after_operator = OPERATOR_CHARS.contains(c);
        match c {
            '"' => in_string = true,
            '#' => {
                // A comment runs to the end of the line.
                for (_, c) in chars_iter.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' | '[' | '{' => {
                open.push(false);
                if open.len() > MAX_NESTING {
                    return Err(nesting_error(i));
                }
            }
            // Closing an interpolation returns into its string.
            ')' if open.pop() == Some(true) => in_string = true,
            ']' | '}' => {
                open.pop();
            }
            // `//`, `|=`, `==`, `?//` are one operator each.
            c if OPERATOR_CHARS.contains(c) && !previous_was_operator => operators += 1,
            _ => {}
        }
        if operators > MAX_OPERATORS {
            return Err(operator_error(i));
        }
    }
    if !word.is_empty() && JQ_KEYWORDS.contains(&word.as_str()) {
        operators += 1;
    }
    if operators > MAX_OPERATORS {
        return Err(operator_error(chars));
    }
    if chars > MAX_EXPRESSION_CHARS {
        return Err(Refusal::new(
            format!("the jq expression is {chars} characters long; drift-doctor reads at most {MAX_EXPRESSION_CHARS}"),
            Some(MAX_EXPRESSION_CHARS),
        ));
    }
    Ok(())
}

/// The characters jq's operators are made of.
const OPERATOR_CHARS: &str = "|,+-*/%=<>!?;:";

/// Keywords that open or join a construct in jq's grammar.
const JQ_KEYWORDS: &[&str] = &[
    "if", "then", "elif", "else", "end", "try", "catch", "reduce", "foreach", "def", "as", "label",
    "and", "or",
];

#[cfg(all(test, feature = "jq-engine"))]
mod tests {
    use super::*;
    use serde_json::json;
    use std::cell::Cell;

    /// The worst shapes within the limits, each at the limit.
    fn worst_shapes() -> Vec<(&'static str, String)> {
        let n = MAX_NESTING;
        let ops = MAX_OPERATORS;
        vec![
            (
                "parentheses",
                format!("{}.a{}", "(".repeat(n), ")".repeat(n)),
            ),
            (
                "arrays in an index",
                format!(".a[{}0{}]", "[".repeat(n - 1), "]".repeat(n - 1)),
            ),
            (
                "objects",
                format!(".a[{}1{}|tostring]", "{a:".repeat(n - 1), "}".repeat(n - 1)),
            ),
            (
                "interpolations",
                format!(".a[{}1{}]", "\"\\(".repeat(n - 1), ")\"".repeat(n - 1)),
            ),
            ("pipes", format!(".a{}", " | .".repeat(ops))),
            ("commas", format!(".a{}", ", .b".repeat(ops))),
            ("sums", format!(".a[0{}]", " + 0".repeat(ops - 2))),
            ("alternatives", format!(".a{}", " // .b".repeat(ops))),
            ("negations", format!(".a[{}1]", "-".repeat(ops - 2))),
            ("tries", format!("{}.a", "try ".repeat(ops))),
            (
                "conditions",
                format!(
                    "{}.a{}",
                    "if true then ".repeat(ops / 3),
                    " end".repeat(ops / 3)
                ),
            ),
            ("bindings", format!("{}.a", ". as $x | ".repeat(ops / 2))),
            ("definitions", format!("{}.a", "def f: 1; ".repeat(ops / 3))),
            ("optional", format!(".a{}", "?".repeat(ops))),
            (
                "paths and pipes",
                format!("{}.a{}", "(.b | ".repeat(n), ")".repeat(n)),
            ),
            (
                "objects and conditions",
                format!(
                    ".a[{}{}1{}{}|tostring]",
                    "{a:".repeat(n - 1),
                    "if true then ".repeat((ops - n) / 3),
                    " end".repeat((ops - n) / 3),
                    "}".repeat(n - 1)
                ),
            ),
        ]
    }

    /// Every worst shape passes the checks, compiles and runs on a thread
    /// with 1 MiB of stack optimised (the page's worker has 1 MiB, the main
    /// thread 8), 3 MiB unoptimised (where frames are several times larger).
    #[test]
    fn worst_shapes_within_the_limits_fit_a_small_stack() {
        for (what, expr) in worst_shapes() {
            assert!(
                check_shape(&expr).is_ok(),
                "{what}: {:?}",
                check_shape(&expr)
            );
            let expr2 = expr.clone();
            let outcome = std::thread::Builder::new()
                .stack_size(if cfg!(debug_assertions) {
                    3 << 20
                } else {
                    1 << 20
                })
                .spawn(move || {
                    let jq = JqRuntime::default();
                    let compiled = jq.compile(&expr2);
                    if let Err(r) = &compiled.program {
                        return Err(r.message.clone());
                    }
                    jq.delete("test", &expr2, &json!({"a": 1, "b": {"a": 2}}));
                    Ok(jq.warnings())
                })
                .unwrap()
                .join()
                .unwrap();
            assert!(outcome.is_ok(), "{what}: {outcome:?}");
        }
    }

    #[test]
    fn one_more_level_or_operator_is_refused_with_the_limit() {
        let deep = format!(
            "{}.a{}",
            "(".repeat(MAX_NESTING + 1),
            ")".repeat(MAX_NESTING + 1)
        );
        let r = check_shape(&deep).unwrap_err();
        assert!(r.message.contains("nests deeper than 32 levels"), "{r:?}");
        assert_eq!(r.offset, Some(MAX_NESTING));
        let long = format!(".a{}", " | .".repeat(MAX_OPERATORS + 1));
        let r = check_shape(&long).unwrap_err();
        assert!(r.message.contains("more than 128 operators"), "{r:?}");
        let wide = format!(".a[\"{}\"]", "x".repeat(MAX_EXPRESSION_CHARS));
        let r = check_shape(&wide).unwrap_err();
        assert!(
            r.message
                .contains("characters long; drift-doctor reads at most 4096"),
            "{r:?}"
        );
    }

    #[test]
    fn recursive_definitions_are_refused_and_others_run() {
        for expr in [
            "def f: f; f",
            "def f: .a | f; .b",
            "def f(g): def h: f(g); h; f(.)",
            "def f: .a[f]; f",
            "def f: {a: f}; .x",
        ] {
            let r = compile(expr).program.err().expect(expr);
            assert!(r.message.contains("calls itself"), "{expr}: {r:?}");
        }
        let jq = JqRuntime::default();
        let out = jq.delete("t", "def g: .a; def f: g; f", &json!({"a": 1, "b": 2}));
        assert_eq!(out, Some(json!({"b": 2})));
    }

    #[test]
    fn loops_stop_at_the_budget_and_the_expression_is_skipped_after() {
        let obj = json!({"data": {"a": "1"}, "n": 0});
        for (expr, why) in [
            ("until(false; .)", "stack"),
            (".data[range(1e9) | tostring]", "steps"),
            (".data[[repeat(1)] | length | tostring]", "steps"),
            ("last(range(1e12)) as $x | .data", "steps"),
            (".data[0 | until(false; . + 1) | tostring]", "stopped"),
            (
                ".data[[limit(1e9; repeat(1))] | length | tostring]",
                "steps",
            ),
        ] {
            let jq = JqRuntime::default();
            jq.set_max_steps(100_000);
            assert_eq!(jq.delete("rule 1", expr, &obj), None, "{expr}");
            let warnings = jq.warnings();
            assert_eq!(warnings.len(), 1, "{expr}: {warnings:?}");
            assert!(
                warnings[0].starts_with(&format!("rule rule 1: jq expression `{expr}` ")),
                "{warnings:?}"
            );
            assert!(warnings[0].contains(why), "{expr}: {warnings:?}");
            assert!(warnings[0].ends_with("; skipped"), "{warnings:?}");
        }
    }

    #[test]
    fn the_clock_stops_an_expression_at_its_timeout() {
        fn fake_clock() -> Duration {
            // Each reading is 300 ms later than the one before.
            thread_local!(static T: Cell<u64> = const { Cell::new(0) });
            T.with(|t| {
                t.set(t.get() + 300);
                Duration::from_millis(t.get())
            })
        }
        let jq = JqRuntime::default();
        jq.set_clock(fake_clock);
        jq.set_timeout(Duration::from_millis(500));
        let obj = json!({"data": {"a": "1"}});
        assert_eq!(jq.delete("r", ".data[range(1e9) | tostring]", &obj), None);
        assert_eq!(
            jq.warnings(),
            ["rule r: jq expression `.data[range(1e9) | tostring]` timed out after 500ms; skipped"]
        );
        // Skipped from then on, even where it would finish.
        assert_eq!(
            jq.delete("r", ".data[range(1e9) | tostring]", &json!({})),
            None
        );
        // Bounded loops still run.
        let ok = JqRuntime::default();
        let out = ok.delete(
            "r",
            ".data[range(2) | tostring]",
            &json!({"data": {"0": 1, "1": 2, "2": 3}}),
        );
        assert_eq!(out, Some(json!({"data": {"2": 3}})));
        let out = ok.delete(
            "r",
            ".items[0 | until(. >= 2; . + 1)]",
            &json!({"items": [0, 1, 2, 3]}),
        );
        assert_eq!(out, Some(json!({"items": [0, 1, 3]})));
    }

    #[test]
    fn filters_that_read_the_world_or_skip_the_budget_are_not_available() {
        for expr in [
            "now",
            "env",
            "input",
            "debug",
            "stderr",
            "halt",
            "$ENV",
            "_range_unbudgeted(0; 1e9; 1)",
        ] {
            let program = compile(&format!(".a[{expr}]")).program;
            assert!(program.is_err(), "{expr}");
        }
    }

    #[test]
    fn compile_errors_say_what_and_where() {
        let r = compile(".data[").program.err().unwrap();
        assert_eq!(r.message, "invalid jq: expected a closing bracket");
        let r = compile(".data.a |||").program.err().unwrap();
        assert_eq!(
            r.message,
            "invalid jq: expected semicolon or right parenthesis, found `|||`"
        );
        assert_eq!(r.offset, Some(8));
        let r = compile("nosuchfilter(1)").program.err().unwrap();
        assert_eq!(r.message, "jq does not know filter `nosuchfilter`");
    }
}

#[cfg(all(test, not(feature = "jq-engine")))]
mod without_engine_tests {
    use super::*;

    #[test]
    fn without_an_engine_an_expression_is_skipped_with_a_warning() {
        let jq = JqRuntime::default();
        assert!(jq.compile(".a").program.is_ok());
        assert_eq!(jq.delete("r", ".a", &serde_json::json!({"a": 1})), None);
        assert_eq!(
            jq.warnings(),
            ["rule r: jq expression `.a` was not run: this build of drift-doctor has no jq engine; skipped"]
        );
    }
}
