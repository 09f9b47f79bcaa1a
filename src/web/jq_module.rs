//! The jq module in the analysis worker. The worker is built without the
//! jq engine (jaq is a large part of a first download, and many analyses
//! run no jq); before a request whose input may run jq it loads the jq
//! module (`src/bin/drift-doctor-jq.rs`: its own wasm, without JavaScript
//! glue), and an answer made while a jq expression found it missing (a
//! proposed fix the analysis checks with jq) is made again once it is
//! loaded (see `worker::deliver`). The engine installed
//! ([`crate::ignore::jq::install_engine`]) calls it synchronously, so that
//! evaluations run, and are announced and bounded, exactly as in-process.
//! When the module cannot be loaded, each jq expression is skipped with a
//! warning that says why.

use super::protocol::Request;
use crate::ignore::jq_module::ByteEngine;
use js_sys::{Function, Object, Reflect, Uint8Array, WebAssembly};
use std::cell::{Cell, RefCell};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The global the worker's loader sets to the module's versioned URL
/// (scripts/build-web.sh), and the module's name without it.
const URL_GLOBAL: &str = "driftDoctorJqUrl";
const MODULE_FILE: &str = "drift-doctor-jq.wasm";
/// The global the one-file page sets to a function that gives the module's
/// bytes (a promise of a Uint8Array): it has no file to fetch.
const BYTES_GLOBAL: &str = "driftDoctorJqBytes";

/// The module's exports.
struct Instance {
    memory: WebAssembly::Memory,
    alloc: Function,
    run: Function,
    free: Function,
}

enum Module {
    NotLoaded,
    Loaded(Instance),
    /// Why it could not be loaded, or why it failed (a trap leaves its
    /// memory in no known state: it is loaded again when next needed).
    Failed(String),
}

thread_local! {
    static MODULE: RefCell<Module> = const { RefCell::new(Module::NotLoaded) };
    /// A jq expression was compiled while the module was not loaded.
    static WANTED: Cell<bool> = const { Cell::new(false) };
}

/// The engine the worker installs once, when it starts: each jq call goes
/// to the module.
pub fn engine() -> ByteEngine {
    ByteEngine(call)
}

/// Whether the module is loaded (not: not yet, or it failed).
pub fn is_loaded() -> bool {
    MODULE.with(|m| matches!(*m.borrow(), Module::Loaded(_)))
}

fn call(request: &[u8]) -> Result<Vec<u8>, String> {
    let result = MODULE.with(|m| match &*m.borrow() {
        Module::Loaded(instance) => Some(instance.call(request)),
        Module::Failed(why) => Some(Err(why.clone())),
        Module::NotLoaded => None,
    });
    match result {
        Some(Ok(answer)) => Ok(answer),
        Some(Err(why)) => {
            MODULE.with(|m| *m.borrow_mut() = Module::Failed(why.clone()));
            Err(why)
        }
        None => {
            WANTED.with(|w| w.set(true));
            Err("the jq module was not loaded".to_string())
        }
    }
}

fn message(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

/// A number a wasm function returned as a (signed) i32, as the address it is.
fn address(v: &JsValue) -> Result<u32, String> {
    v.as_f64()
        .map(|n| n as i64 as u32)
        .ok_or_else(|| "the jq module returned no address".to_string())
}

impl Instance {
    fn call(&self, request: &[u8]) -> Result<Vec<u8>, String> {
        let failed = |e: JsValue| format!("the jq module failed: {}", message(&e));
        let none = JsValue::UNDEFINED;
        let len = request.len() as u32;
        let ptr = address(&self.alloc.call1(&none, &len.into()).map_err(failed)?)?;
        Uint8Array::new_with_byte_offset_and_length(&self.memory.buffer(), ptr, len)
            .copy_from(request);
        let answer = address(
            &self
                .run
                .call2(&none, &ptr.into(), &len.into())
                .map_err(failed)?,
        )?;
        // The call may have grown the memory: a fresh view of it.
        let buffer = self.memory.buffer();
        let mut head = [0u8; 4];
        Uint8Array::new_with_byte_offset_and_length(&buffer, answer, 4).copy_to(&mut head);
        let body = Uint8Array::new_with_byte_offset_and_length(
            &buffer,
            answer + 4,
            u32::from_le_bytes(head),
        )
        .to_vec();
        self.free.call1(&none, &answer.into()).map_err(failed)?;
        Ok(body)
    }
}

/// Whether a jq expression asked for the module while it was not loaded,
/// since the last time this was asked.
pub fn take_wanted() -> bool {
    WANTED.with(|w| w.replace(false))
}

/// Whether `request` may run jq while the module is not loaded: an input
/// text names `jqPathExpressions`, or its settings, read, hold a jq rule
/// (written some other way, say with escapes in a quoted key).
pub fn needed_for(request: &Request) -> bool {
    let input = match request {
        Request::Analyze { input, .. } | Request::Check { input } => input,
        _ => return false,
    };
    if is_loaded() {
        return false;
    }
    let texts = [
        &input.git,
        &input.live,
        &input.diff,
        &input.settings,
        &input.application,
        &input.git_again,
    ];
    if texts.iter().any(|t| t.contains("jqPathExpressions")) {
        return true;
    }
    WANTED.with(|w| w.set(false));
    let _ = super::engine::options(input);
    WANTED.with(|w| w.replace(false))
}

/// Fetch and instantiate the module; on failure, the reason is kept for
/// the warnings.
pub async fn load() {
    let module = match instantiate().await {
        Ok(instance) => Module::Loaded(instance),
        Err(why) => Module::Failed(format!("the jq module could not be loaded: {why}")),
    };
    MODULE.with(|m| *m.borrow_mut() = module);
}

async fn instantiate() -> Result<Instance, String> {
    let global = js_sys::global();
    let get = |target: &JsValue, name: &str| {
        Reflect::get(target, &JsValue::from_str(name)).map_err(|e| message(&e))
    };
    let wait = |promise: JsValue| async move {
        JsFuture::from(js_sys::Promise::resolve(&promise))
            .await
            .map_err(|e| message(&e))
    };
    let bytes = match get(&global, BYTES_GLOBAL)?.dyn_into::<Function>() {
        Ok(give) => wait(give.call0(&global).map_err(|e| message(&e))?).await?,
        Err(_) => {
            let url = get(&global, URL_GLOBAL)?
                .as_string()
                .unwrap_or_else(|| MODULE_FILE.to_string());
            let scope: web_sys::WorkerGlobalScope = global.clone().unchecked_into();
            let response: web_sys::Response = wait(scope.fetch_with_str(&url).into())
                .await?
                .dyn_into()
                .map_err(|_| "fetch gave no response".to_string())?;
            if !response.ok() {
                return Err(format!("{url}: HTTP status {}", response.status()));
            }
            wait(response.array_buffer().map_err(|e| message(&e))?.into()).await?
        }
    };
    let bytes = Uint8Array::new(&bytes).to_vec();
    // The module's clock: the worker's own (Date.now, in milliseconds).
    let now = get(&get(&global, "Date")?, "now")?;
    let env = Object::new();
    Reflect::set(&env, &"now_ms".into(), &now).map_err(|e| message(&e))?;
    let imports = Object::new();
    Reflect::set(&imports, &"env".into(), &env).map_err(|e| message(&e))?;
    let result = wait(WebAssembly::instantiate_buffer(&bytes, &imports).into()).await?;
    let instance: WebAssembly::Instance = get(&result, "instance")?
        .dyn_into()
        .map_err(|_| "no instance".to_string())?;
    let exports: JsValue = instance.exports().into();
    let function = |name: &str| -> Result<Function, String> {
        get(&exports, name)?
            .dyn_into()
            .map_err(|_| format!("the jq module has no function {name}"))
    };
    Ok(Instance {
        memory: get(&exports, "memory")?
            .dyn_into()
            .map_err(|_| "the jq module has no memory".to_string())?,
        alloc: function("drift_doctor_jq_alloc")?,
        run: function("drift_doctor_jq_run")?,
        free: function("drift_doctor_jq_free")?,
    })
}
