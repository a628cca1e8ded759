//! The Roofline Lab web app's entry point (built for wasm32 by Trunk).

/// Talc instead of the default dlmalloc: a smaller allocator (about 2 KB gzip less wasm) and
/// a faster one.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(target_arch = "wasm32")]
fn main() {
    roofline_lab::app::mount();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Roofline Lab is a web app: run `./dev serve` and open http://127.0.0.1:8080");
}
