//! The Roofline Lab web app's entry point (built for wasm32 by Trunk).

#[cfg(target_arch = "wasm32")]
fn main() {
    roofline_lab::app::mount();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Roofline Lab is a web app: run `./dev serve` and open http://127.0.0.1:8080");
}
