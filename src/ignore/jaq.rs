//! The jaq engine behind [`super::jq`] (feature `jq-engine`): compiling
//! `del(<expr>)` with jq's standard library, its loops budgeted, and running
//! it on an object's JSON text within the budget. The CLI runs it
//! in-process; the page's worker runs it in the jq module
//! (`src/bin/drift-doctor-jq.rs`, see [`super::jq_module`]).

use super::jq::{shorten, Clock, Refusal, Stop};
use crate::limits::jq::MAX_STACK_BYTES;
use jaq_core::box_iter::box_once;
use jaq_core::data::{DataT, HasLut};
use jaq_core::load::{self, Arena, File, Loader};
use jaq_core::native::{v, Fun};
use jaq_core::{Compiler, Ctx, Error, Exn, Native, Vars};
use jaq_json::Val;
use std::cell::Cell;
use std::time::Duration;

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

/// Compile `del(<expr>)` for an expression [`super::jq::check_shape`]
/// passed: definitions that call themselves are refused first.
pub fn compile(expr: &str) -> Result<Program, Refusal> {
    check_recursion(expr).and_then(|()| compile_checked(expr))
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
    /// Run `del(expr)` on the object written as JSON `input_text`, within
    /// the budget: Ok(Some(its JSON text)) with exactly one output, Ok(None)
    /// for an error, another number of outputs or a text jaq cannot read.
    pub fn run(
        &self,
        input_text: &str,
        timeout: Duration,
        clock: Option<Clock>,
        max_steps: u64,
    ) -> Result<Option<String>, Stop> {
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
        Ok(result.map(|v| v.to_string()))
    }
}
