//! The page's jq module: the jq engine alone, for the analysis worker to
//! instantiate when a rule first needs jq (scripts/build-web.sh builds it
//! for wasm32 without wasm-bindgen, so it brings no JavaScript glue of its
//! own into the worker). The worker copies a request into the module's
//! memory (`drift_doctor_jq_alloc`), calls `drift_doctor_jq_run` and reads
//! the answer it points at: a u32 length (little-endian), then the bytes
//! `drift_doctor::ignore::jq_module` describes; then it frees the answer
//! (`drift_doctor_jq_free`). The module imports `env.now_ms`, the worker's
//! clock in milliseconds. Natively it is an empty program.

#[cfg(target_arch = "wasm32")]
mod module {
    use std::time::Duration;

    #[link(wasm_import_module = "env")]
    extern "C" {
        fn now_ms() -> f64;
    }

    fn clock() -> Duration {
        // SAFETY: an import without arguments that returns a number.
        Duration::from_secs_f64(unsafe { now_ms() }.max(0.0) / 1000.0)
    }

    /// Room for `len` bytes, for the worker to write a request into.
    #[no_mangle]
    pub extern "C" fn drift_doctor_jq_alloc(len: usize) -> *mut u8 {
        let mut bytes = std::mem::ManuallyDrop::new(Vec::<u8>::with_capacity(len.max(1)));
        bytes.as_mut_ptr()
    }

    /// Answer the request of `len` bytes at `ptr` (given back to the
    /// allocator here): the answer, prefixed by its length.
    ///
    /// # Safety
    /// `ptr` is from `drift_doctor_jq_alloc(len)`, with `len` bytes written.
    #[no_mangle]
    pub unsafe extern "C" fn drift_doctor_jq_run(ptr: *mut u8, len: usize) -> *mut u8 {
        let request = Vec::from_raw_parts(ptr, len, len.max(1));
        let answer = drift_doctor::ignore::jq_module::handle(&request, clock);
        drop(request);
        let mut out = Vec::with_capacity(4 + answer.len());
        out.extend_from_slice(&(answer.len() as u32).to_le_bytes());
        out.extend_from_slice(&answer);
        Box::into_raw(out.into_boxed_slice()) as *mut u8
    }

    /// Free an answer of `drift_doctor_jq_run`.
    ///
    /// # Safety
    /// `ptr` is an answer of `drift_doctor_jq_run`, not freed before.
    #[no_mangle]
    pub unsafe extern "C" fn drift_doctor_jq_free(ptr: *mut u8) {
        let mut len = [0u8; 4];
        std::ptr::copy_nonoverlapping(ptr, len.as_mut_ptr(), 4);
        let total = 4 + u32::from_le_bytes(len) as usize;
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            ptr, total,
        )));
    }
}

fn main() {}
