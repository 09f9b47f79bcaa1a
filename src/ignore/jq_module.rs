//! The bytes the page's analysis worker and its jq module
//! (`src/bin/drift-doctor-jq.rs`) exchange. The module is wasm without
//! JavaScript glue, so a call passes one request in its memory and gets one
//! answer back; the worker's [`ByteEngine`] encodes requests and decodes
//! answers, the module answers with [`handle`].
//!
//! A request is an operation byte, then:
//! - `c` (compile): the expression.
//! - `d` (delete): the time budget (seconds u64, nanoseconds u32), the step
//!   budget (u64), whether time is checked (u8), the expression's length
//!   (u32) and the expression, then the object's JSON text.
//!
//! An answer is a tag byte, then:
//! - to `c`: `k` (compiled), or `r`, the offset (u64, `u64::MAX` for none)
//!   and the refusal's message;
//! - to `d`: `n` (no value), `v` and the value's JSON text, or `t`, `s`,
//!   `x` (stopped by time, steps, stack);
//! - to anything the module could not read: `e` and why.
//!
//! Integers are little-endian.

use super::jq::{Engine, Limits, Refusal, Stop};

/// A jq [`Engine`] whose calls go through the bytes here: each request is
/// encoded, given to the function (the module's call in the worker, or
/// [`handle`] in-process), and its answer decoded.
pub struct ByteEngine(pub fn(&[u8]) -> Result<Vec<u8>, String>);

impl Engine for ByteEngine {
    fn compile(&self, expr: &str) -> Result<Result<(), Refusal>, String> {
        (self.0)(&encode_compile(expr)).and_then(|answer| decode_compiled(&answer))
    }

    fn delete(
        &self,
        expr: &str,
        object: &str,
        limits: Limits,
    ) -> Result<Result<Option<String>, Stop>, String> {
        (self.0)(&encode_delete(expr, object, limits)).and_then(|answer| decode_deleted(&answer))
    }
}

/// A compile request for `expr`.
fn encode_compile(expr: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + expr.len());
    out.push(b'c');
    out.extend_from_slice(expr.as_bytes());
    out
}

/// A request to run `del(<expr>)` on the object written as JSON `object`.
fn encode_delete(expr: &str, object: &str, limits: Limits) -> Vec<u8> {
    let mut out = Vec::with_capacity(26 + expr.len() + object.len());
    out.push(b'd');
    out.extend_from_slice(&limits.timeout.as_secs().to_le_bytes());
    out.extend_from_slice(&limits.timeout.subsec_nanos().to_le_bytes());
    out.extend_from_slice(&limits.max_steps.to_le_bytes());
    out.push(u8::from(limits.timed));
    // An expression is at most a few KiB (check_shape).
    out.extend_from_slice(&(expr.len() as u32).to_le_bytes());
    out.extend_from_slice(expr.as_bytes());
    out.extend_from_slice(object.as_bytes());
    out
}

fn text(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|_| "the jq module's answer is not UTF-8".to_string())
}

fn module_error(rest: &[u8]) -> String {
    format!("the jq module failed: {}", String::from_utf8_lossy(rest))
}

/// The answer to a compile request.
fn decode_compiled(answer: &[u8]) -> Result<Result<(), Refusal>, String> {
    match answer.split_first() {
        Some((b'k', [])) => Ok(Ok(())),
        Some((b'r', rest)) if rest.len() >= 8 => {
            let (offset, message) = rest.split_at(8);
            let offset = u64::from_le_bytes(offset.try_into().unwrap_or([0xff; 8]));
            Ok(Err(Refusal::new(
                text(message)?.to_string(),
                (offset != u64::MAX).then_some(offset as usize),
            )))
        }
        Some((b'e', rest)) => Err(module_error(rest)),
        _ => Err("the jq module's answer could not be read".to_string()),
    }
}

/// The answer to a delete request.
fn decode_deleted(answer: &[u8]) -> Result<Result<Option<String>, Stop>, String> {
    match answer.split_first() {
        Some((b'n', [])) => Ok(Ok(None)),
        Some((b'v', value)) => Ok(Ok(Some(text(value)?.to_string()))),
        Some((b't', [])) => Ok(Err(Stop::Time)),
        Some((b's', [])) => Ok(Err(Stop::Steps)),
        Some((b'x', [])) => Ok(Err(Stop::Stack)),
        Some((b'e', rest)) => Err(module_error(rest)),
        _ => Err("the jq module's answer could not be read".to_string()),
    }
}

/// A delete request, read.
#[cfg(feature = "jq-engine")]
struct Delete<'a> {
    expr: &'a str,
    object: &'a str,
    limits: Limits,
}

#[cfg(feature = "jq-engine")]
fn read_delete(bytes: &[u8]) -> Option<Delete<'_>> {
    let take = |at: &mut usize, n: usize| -> Option<&[u8]> {
        let part = bytes.get(*at..at.checked_add(n)?)?;
        *at += n;
        Some(part)
    };
    let mut at = 0;
    let secs = u64::from_le_bytes(take(&mut at, 8)?.try_into().ok()?);
    let nanos = u32::from_le_bytes(take(&mut at, 4)?.try_into().ok()?);
    let max_steps = u64::from_le_bytes(take(&mut at, 8)?.try_into().ok()?);
    let timed = take(&mut at, 1)?[0] != 0;
    let expr_len = u32::from_le_bytes(take(&mut at, 4)?.try_into().ok()?) as usize;
    let expr = std::str::from_utf8(take(&mut at, expr_len)?).ok()?;
    let object = std::str::from_utf8(bytes.get(at..)?).ok()?;
    Some(Delete {
        expr,
        object,
        limits: Limits {
            timeout: std::time::Duration::new(secs, nanos),
            max_steps,
            timed,
        },
    })
}

/// Compiled expressions the module keeps between requests (a rule runs
/// on many objects), forgotten all at once past this many.
#[cfg(feature = "jq-engine")]
const KEPT_PROGRAMS: usize = 256;

#[cfg(feature = "jq-engine")]
type Programs =
    std::collections::HashMap<String, std::rc::Rc<Result<super::jaq::Program, Refusal>>>;

#[cfg(feature = "jq-engine")]
thread_local! {
    static PROGRAMS: std::cell::RefCell<Programs> = std::cell::RefCell::default();
}

#[cfg(feature = "jq-engine")]
fn program(expr: &str) -> std::rc::Rc<Result<super::jaq::Program, Refusal>> {
    if let Some(p) = PROGRAMS.with(|p| p.borrow().get(expr).cloned()) {
        return p;
    }
    let compiled = std::rc::Rc::new(super::jaq::compile(expr));
    PROGRAMS.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= KEPT_PROGRAMS {
            p.clear();
        }
        p.insert(expr.to_string(), compiled.clone());
    });
    compiled
}

/// The module's answer to one request: jaq compiles and runs as it does
/// in-process, with `clock` for the time budget when the request asks.
#[cfg(feature = "jq-engine")]
pub fn handle(request: &[u8], clock: super::jq::Clock) -> Vec<u8> {
    match request.split_first() {
        Some((b'c', expr)) => {
            let Ok(expr) = std::str::from_utf8(expr) else {
                return b"enot UTF-8".to_vec();
            };
            match &*program(expr) {
                Ok(_) => b"k".to_vec(),
                Err(refusal) => {
                    let offset = refusal.offset.map_or(u64::MAX, |o| o as u64);
                    let mut out = vec![b'r'];
                    out.extend_from_slice(&offset.to_le_bytes());
                    out.extend_from_slice(refusal.message.as_bytes());
                    out
                }
            }
        }
        Some((b'd', rest)) => {
            let Some(d) = read_delete(rest) else {
                return b"ea request that could not be read".to_vec();
            };
            let outcome = match &*program(d.expr) {
                Ok(program) => program.run(
                    d.object,
                    d.limits.timeout,
                    d.limits.timed.then_some(clock),
                    d.limits.max_steps,
                ),
                // Not asked for a refused expression; as in-process, no value.
                Err(_) => Ok(None),
            };
            match outcome {
                Ok(None) => b"n".to_vec(),
                Ok(Some(value)) => {
                    let mut out = Vec::with_capacity(1 + value.len());
                    out.push(b'v');
                    out.extend_from_slice(value.as_bytes());
                    out
                }
                Err(Stop::Time) => b"t".to_vec(),
                Err(Stop::Steps) => b"s".to_vec(),
                Err(Stop::Stack) => b"x".to_vec(),
            }
        }
        _ => b"ean unknown request".to_vec(),
    }
}

#[cfg(all(test, feature = "jq-engine"))]
mod tests {
    use super::super::jq::JqRuntime;
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    fn test_clock() -> std::time::Duration {
        thread_local!(static T: std::cell::Cell<u64> = const { std::cell::Cell::new(0) });
        T.with(|t| {
            t.set(t.get() + 300);
            std::time::Duration::from_millis(t.get())
        })
    }

    /// The worker's side of the protocol, with the module's handler called
    /// in-process instead of in wasm.
    fn in_process(request: &[u8]) -> Result<Vec<u8>, String> {
        Ok(handle(request, test_clock))
    }

    #[test]
    fn a_runtime_through_the_bytes_answers_as_jaq_in_process() {
        let long = ".a | .".repeat(200);
        let obj = json!({"data": {"a": "1", "b": "é\"\\"}, "items": [0, 1, 2, 3], "n": 0});
        for (expr, steps) in [
            (".data.a", None),
            (".items[0 | until(. >= 2; . + 1)]", None),
            (".data | .b", None),
            (".missing", None),
            ("error(\"x\")", None),
            (".data[range(1e9) | tostring]", Some(100_000)),
            ("until(false; .)", Some(100_000)),
            ("def f: f; f", None),
            (".data.a |||", None),
            ("nosuchfilter(1)", None),
            (long.as_str(), None),
        ] {
            let native = JqRuntime::default();
            let bytes = JqRuntime::with_engine(Arc::new(ByteEngine(in_process)));
            if let Some(s) = steps {
                native.set_max_steps(s);
                bytes.set_max_steps(s);
            }
            let native_refusal = native.compile(expr).program.as_ref().err().cloned();
            let bytes_refusal = bytes.compile(expr).program.as_ref().err().cloned();
            assert_eq!(native_refusal, bytes_refusal, "{expr}");
            assert_eq!(
                native.delete("r", expr, &obj),
                bytes.delete("r", expr, &obj),
                "{expr}"
            );
            assert_eq!(native.warnings(), bytes.warnings(), "{expr}");
        }
    }

    #[test]
    fn the_time_budget_crosses_with_the_request() {
        let bytes = JqRuntime::with_engine(Arc::new(ByteEngine(in_process)));
        bytes.set_clock(test_clock);
        bytes.set_timeout(std::time::Duration::from_millis(500));
        let obj = json!({"data": {"a": "1"}});
        assert_eq!(
            bytes.delete("r", ".data[range(1e9) | tostring]", &obj),
            None
        );
        assert_eq!(
            bytes.warnings(),
            ["rule r: jq expression `.data[range(1e9) | tostring]` timed out after 500ms; skipped"]
        );
    }

    #[test]
    fn an_engine_that_cannot_be_asked_skips_the_expression_with_a_warning() {
        struct Missing;
        impl Engine for Missing {
            fn compile(&self, _: &str) -> Result<Result<(), Refusal>, String> {
                Err("the jq module did not load".into())
            }
            fn delete(
                &self,
                _: &str,
                _: &str,
                _: Limits,
            ) -> Result<Result<Option<String>, Stop>, String> {
                Err("the jq module did not load".into())
            }
        }
        let jq = JqRuntime::with_engine(Arc::new(Missing));
        assert!(jq.compile(".a").program.is_ok());
        assert_eq!(jq.delete("r", ".a", &json!({"a": 1})), None);
        assert_eq!(
            jq.warnings(),
            ["rule r: jq expression `.a` was not run: the jq module did not load; skipped"]
        );
        // A refusal the shape check makes needs no engine.
        let deep = format!("{}.a{}", "(".repeat(40), ")".repeat(40));
        assert!(jq.compile(&deep).program.is_err());
    }

    #[test]
    fn requests_that_cannot_be_read_are_answered_as_errors() {
        let clock = test_clock;
        assert!(decode_deleted(&handle(b"d\x01", clock)).is_err());
        assert!(decode_compiled(&handle(b"?", clock)).is_err());
        assert!(decode_compiled(&handle(b"c\xff", clock)).is_err());
        assert!(decode_deleted(b"").is_err());
    }
}
