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

use jaq_core::box_iter::box_once;
use jaq_core::data::{DataT, HasLut};
use jaq_core::load::{self, Arena, File, Loader};
use jaq_core::native::{v, Fun};
use jaq_core::{Compiler, Ctx, Error, Exn, Native, Vars};
use jaq_json::Val;
use serde_json::Value;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::limits::jq::{
    DEFAULT_TIMEOUT, MAX_EXPRESSION_CHARS, MAX_NESTING, MAX_OPERATORS, MAX_STACK_BYTES, MAX_STEPS,
    MAX_STEPS_TIMED,
};

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
        let compiled = Arc::new(compile(expr));
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
        if compiled.program.is_err() {
            return None;
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
            move |obj: &Value| match &compiled.program {
                Ok(program) => program.delete(obj, timeout, clock, max_steps),
                Err(_) => Ok(None),
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

/// An expression as jaq compiled it, or why it is not run.
pub struct Compiled {
    /// The program jaq compiled, or why it is not run.
    pub program: Result<Program, Refusal>,
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
    fn new(message: String, offset: Option<usize>) -> Self {
        Refusal { message, offset }
    }
}

/// The first characters of a long expression, for messages.
fn shorten(expr: &str) -> String {
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

/// The budget of one evaluation.
struct Budget {
    steps: Cell<u64>,
    max_steps: u64,
    stack_base: usize,
    clock: Option<Clock>,
    deadline: Option<Duration>,
    stop: Cell<Option<Stop>>,
}

/// Where the stack is now (it grows down on every target drift-doctor
/// runs on, wasm's shadow stack included).
#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(std::ptr::addr_of!(marker)) as usize
}

impl Budget {
    fn new(timeout: Duration, clock: Option<Clock>, max_steps: u64) -> Self {
        Budget {
            steps: Cell::new(0),
            max_steps,
            stack_base: stack_position(),
            clock,
            deadline: clock.and_then(|now| now().checked_add(timeout)),
            stop: Cell::new(None),
        }
    }

    /// Checked on every round of a loop: records and returns why the
    /// evaluation must stop.
    fn check(&self) -> Result<(), Stop> {
        if let Some(stop) = self.stop.get() {
            return Err(stop);
        }
        let stop = if self.steps.get() > self.max_steps {
            Some(Stop::Steps)
        } else if self.stack_base.saturating_sub(stack_position()) > MAX_STACK_BYTES {
            Some(Stop::Stack)
        } else {
            match (self.clock, self.deadline) {
                (Some(now), Some(deadline)) if now() > deadline => Some(Stop::Time),
                _ => None,
            }
        };
        match stop {
            Some(s) => {
                self.stop.set(Some(s));
                Err(s)
            }
            None => Ok(()),
        }
    }
}

/// jaq data for a bounded evaluation: the program and its budget.
pub struct Bounded;

impl DataT for Bounded {
    type V<'a> = Val;
    type Data<'a> = Env<'a>;
}

/// What a running expression carries: its compiled definitions and its budget.
#[derive(Clone)]
pub struct Env<'a> {
    lut: &'a jaq_core::Lut<Bounded>,
    budget: &'a Budget,
}

impl<'a> HasLut<'a, Bounded> for Env<'a> {
    /// jaq looks the program up once per term it evaluates: the step count.
    fn lut(&self) -> &'a jaq_core::Lut<Bounded> {
        self.budget.steps.set(self.budget.steps.get() + 1);
        self.lut
    }
}

/// The native filter `_budget`: passes its input on (as value, path or
/// update) while the budget holds, and fails once it is spent.
fn budget_filter() -> Fun<Bounded> {
    fn stopped<'a>(stop: Stop) -> Exn<'a, Val> {
        Exn::from(Error::str(format!("budget spent: {stop:?}")))
    }
    let native = Native::<Bounded>::new(|cv| match cv.0.data().budget.check() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(stop) => box_once(Err(stopped(stop))),
    })
    .with_paths(|cv| match cv.0.data().budget.check() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(stop) => box_once(Err(stopped(stop))),
    })
    .with_update(|cv, f| match cv.0.data().budget.check() {
        Ok(()) => f(cv.1),
        Err(stop) => box_once(Err(stopped(stop))),
    });
    ("_budget", v(0), native)
}

/// Natives that read the world outside the object, or that are replaced by
/// budgeted definitions ([`BUDGETED_DEFS`]).
const WITHHELD_NATIVES: &[&str] = &[
    "now",
    "env",
    "input",
    "inputs",
    "debug_empty",
    "stderr_empty",
    "halt",
    "range",
];

/// The standard library's loops, each round passing through `_budget`.
/// `range/3` runs jaq's own (faster) native, renamed, with a check per value.
/// They come first, so that the definitions built on them use them; they
/// need only natives (`{}[]` is `empty`).
const BUDGETED_DEFS: &str = r#"
def range($from; $upto; $by): _range_unbudgeted($from; $upto; $by) | _budget;
def repeat(f): def rec: f, (_budget | rec); rec;
def recurse(f): def rec: ., (f | _budget | rec); rec;
def while(cond; update): def rec: if cond then ., (update | _budget | rec) else {}[] end; rec;
def until(cond; update): def rec: if cond then . else update | _budget | rec end; rec;
"#;

/// (name, arity) of the standard definitions [`BUDGETED_DEFS`] replace, and
/// of those built on withheld natives.
const REPLACED_DEFS: &[(&str, usize)] = &[
    ("range", 3),
    ("repeat", 1),
    ("recurse", 1),
    ("while", 2),
    ("until", 2),
    ("stderr", 0),
    ("debug", 0),
    ("debug", 1),
    ("halt", 0),
    ("halt_error", 0),
    ("halt_error", 1),
];

/// A compiled expression.
pub struct Program {
    filter: jaq_core::Filter<Bounded>,
}

/// Compile `del(<expr>)`, after the checks that keep jaq within bounds.
pub fn compile(expr: &str) -> Compiled {
    Compiled {
        program: check_shape(expr)
            .and_then(|()| check_recursion(expr))
            .and_then(|()| compile_checked(expr)),
    }
}

fn compile_checked(expr: &str) -> Result<Program, Refusal> {
    // The expression is compiled alone first, so that errors point into it.
    let code = format!("del({expr})");
    let is_replaced = |d: &load::parse::Def<&str>| {
        REPLACED_DEFS
            .iter()
            .any(|(n, a)| d.name == *n && d.args.len() == *a)
    };
    let budgeted = load::parse(BUDGETED_DEFS, |p| p.defs()).unwrap_or_default();
    let defs = budgeted.into_iter().chain(
        jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs())
            .filter(|d| !is_replaced(d)),
    );
    let funs = jaq_core::funs::<Bounded>()
        .chain(jaq_std::funs::<Bounded>())
        .chain(jaq_json::funs::<Bounded>())
        .filter_map(|(name, args, native)| match name {
            "range" => Some((UNBUDGETED_RANGE, args, native)),
            n if WITHHELD_NATIVES.contains(&n) => None,
            _ => Some((name, args, native)),
        })
        .chain([budget_filter()]);
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = loader
        .load(
            &arena,
            File {
                code: code.as_str(),
                path: (),
            },
        )
        .map_err(|errors| load_refusal(&code, errors))?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            let names: Vec<String> = errors
                .into_iter()
                .flat_map(|(_, errs)| errs)
                .map(|(name, undefined)| format!("{} `{name}`", undefined.as_str()))
                .collect();
            Refusal::new(format!("jq does not know {}", names.join(", ")), None)
        })?;
    Ok(Program { filter })
}

/// A lex or parse error of `del(<expr>)`, placed in `<expr>`.
fn load_refusal(code: &str, errors: load::Errors<&str, ()>) -> Refusal {
    use load::lex::Expect as LexExpect;
    let offset_in_code = |part: &str| {
        let start = part.as_ptr() as usize;
        let base = code.as_ptr() as usize;
        (start >= base && start <= base + code.len()).then(|| start - base)
    };
    // `del(` is four characters before the expression.
    let in_expr =
        |at: Option<usize>| at.map(|a| code[..a.min(code.len())].chars().count().saturating_sub(4));
    for (_, error) in errors {
        match error {
            load::Error::Lex(errs) => {
                if let Some((expect, rest)) = errs.into_iter().next() {
                    let what = match expect {
                        LexExpect::Digit => "a digit",
                        LexExpect::Ident => "an identifier",
                        LexExpect::Delim("(") => "a closing parenthesis",
                        LexExpect::Delim("[") => "a closing bracket",
                        LexExpect::Delim("{") => "a closing brace",
                        LexExpect::Delim(_) => "a closing quote",
                        LexExpect::Escape => "a string escape sequence",
                        LexExpect::Unicode => "a 4-digit hexadecimal code point",
                        _ => "a token",
                    };
                    return Refusal::new(
                        format!("invalid jq: expected {what}"),
                        in_expr(offset_in_code(rest)),
                    );
                }
            }
            load::Error::Parse(errs) => {
                if let Some((expect, found)) = errs.into_iter().next() {
                    // What was found runs to the end of `del(...)`.
                    let found_in_expr = found.strip_suffix(')').unwrap_or(found);
                    let found_text = match found_in_expr.trim() {
                        "" => "the end".to_string(),
                        t => format!("`{}`", shorten(t)),
                    };
                    let at = offset_in_code(found);
                    return Refusal::new(
                        format!(
                            "invalid jq: expected {}, found {found_text}",
                            expect.as_str()
                        ),
                        in_expr(at),
                    );
                }
            }
            load::Error::Io(errs) => {
                let what: Vec<String> =
                    errs.into_iter().map(|(p, e)| format!("{p}: {e}")).collect();
                return Refusal::new(format!("jq cannot load {}", what.join(", ")), None);
            }
        }
    }
    Refusal::new("invalid jq".to_string(), None)
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

/// The name jaq's own `range/3` runs under, for [`BUDGETED_DEFS`] only.
const UNBUDGETED_RANGE: &str = "_range_unbudgeted";

/// Refuse a definition that calls itself, directly or from a definition
/// inside it (jq sees only earlier definitions, so these are the only
/// cycles), and a call of the unbudgeted `range`. Runs on jaq's parse of
/// the expression, which [`check_shape`] has bounded.
fn check_recursion(expr: &str) -> Result<(), Refusal> {
    let Some(term) = load::parse(expr, |p| p.term()) else {
        // Parse errors are reported by the compiler, with their position.
        return Ok(());
    };
    let chars_before = |needle: &str| expr.find(needle).map(|b| expr[..b].chars().count());
    let mut enclosing: Vec<(&str, usize)> = Vec::new();
    match recursive_def(&term, &mut enclosing) {
        Some(name) if name == UNBUDGETED_RANGE => Err(Refusal::new(
            format!("jq does not know filter `{name}`"),
            chars_before(UNBUDGETED_RANGE),
        )),
        Some(name) => Err(Refusal::new(
            format!("the jq definition `{name}` calls itself; drift-doctor does not run recursive definitions (one that never ends would exhaust the stack)"),
            chars_before(&format!("def {name}")),
        )),
        None => Ok(()),
    }
}

/// The first definition that calls itself, or a call of
/// [`UNBUDGETED_RANGE`].
fn recursive_def<'s>(
    term: &load::parse::Term<&'s str>,
    enclosing: &mut Vec<(&'s str, usize)>,
) -> Option<String> {
    use load::parse::Term;
    let walk_all = |terms: &mut dyn Iterator<Item = &load::parse::Term<&'s str>>,
                    enclosing: &mut Vec<(&'s str, usize)>| {
        for t in terms {
            if let Some(name) = recursive_def(t, enclosing) {
                return Some(name);
            }
        }
        None
    };
    match term {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Break(_) => None,
        Term::Str(_, parts) => parts.iter().find_map(|p| match p {
            load::lex::StrPart::Term(t) => recursive_def(t, enclosing),
            _ => None,
        }),
        Term::Arr(t) => t.as_deref().and_then(|t| recursive_def(t, enclosing)),
        Term::Obj(kvs) => kvs.iter().find_map(|(k, v)| {
            recursive_def(k, enclosing)
                .or_else(|| v.as_ref().and_then(|v| recursive_def(v, enclosing)))
        }),
        Term::Neg(t) | Term::Label(_, t) => recursive_def(t, enclosing),
        Term::BinOp(l, _, r) => recursive_def(l, enclosing).or_else(|| recursive_def(r, enclosing)),
        Term::Fold(_, xs, _, args) => {
            recursive_def(xs, enclosing).or_else(|| walk_all(&mut args.iter(), enclosing))
        }
        Term::TryCatch(t, c) => recursive_def(t, enclosing)
            .or_else(|| c.as_deref().and_then(|c| recursive_def(c, enclosing))),
        Term::IfThenElse(branches, otherwise) => branches
            .iter()
            .find_map(|(i, t)| recursive_def(i, enclosing).or_else(|| recursive_def(t, enclosing)))
            .or_else(|| {
                otherwise
                    .as_deref()
                    .and_then(|o| recursive_def(o, enclosing))
            }),
        Term::Def(defs, rest) => {
            for d in defs {
                enclosing.push((d.name, d.args.len()));
                let found = recursive_def(&d.body, enclosing);
                enclosing.pop();
                if found.is_some() {
                    return found;
                }
            }
            recursive_def(rest, enclosing)
        }
        Term::Call(name, args) => {
            let recursive = enclosing.iter().any(|(n, a)| n == name && *a == args.len());
            if recursive || *name == UNBUDGETED_RANGE {
                return Some(name.to_string());
            }
            walk_all(&mut args.iter(), enclosing)
        }
        Term::Path(t, path) => recursive_def(t, enclosing).or_else(|| {
            path.0.iter().find_map(|(part, _)| match part {
                jaq_core::path::Part::Index(i) => recursive_def(i, enclosing),
                jaq_core::path::Part::Range(from, upto) => from
                    .as_ref()
                    .and_then(|f| recursive_def(f, enclosing))
                    .or_else(|| upto.as_ref().and_then(|u| recursive_def(u, enclosing))),
            })
        }),
    }
}

impl Program {
    /// Run `del(expr)` on `obj` within the budget: Ok(Some) with exactly one
    /// output, Ok(None) for an error or another number of outputs.
    fn delete(
        &self,
        obj: &Value,
        timeout: Duration,
        clock: Option<Clock>,
        max_steps: u64,
    ) -> Result<Option<Value>, Stop> {
        let input_text = serde_json::to_string(obj).map_err(|_| Stop::Steps);
        let Ok(input_text) = input_text else {
            return Ok(None);
        };
        let Ok(input) = jaq_json::read::parse_single(input_text.as_bytes()) else {
            return Ok(None);
        };
        let budget = Budget::new(timeout, clock, max_steps);
        let env = Env {
            lut: &self.filter.lut,
            budget: &budget,
        };
        let ctx = Ctx::<Bounded>::new(env, Vars::new([]));
        let result = {
            let mut out = self.filter.id.run((ctx, input));
            let first = out.next();
            let second = first.as_ref().map(|_| out.next());
            match (first, second) {
                (Some(Ok(v)), Some(None)) => Some(v),
                _ => None,
            }
        };
        if let Some(stop) = budget.stop.get() {
            return Err(stop);
        }
        Ok(result.and_then(|v| serde_json::from_str(&v.to_string()).ok()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
