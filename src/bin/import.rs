//! The profile importer (issue 27: loaded on first use, and off the page's thread): a small
//! wasm without Leptos that runs the core's streaming [`Importer`] in a Web Worker.
//! `assets/import-worker.js` (the worker's script) loads it when the page first imports a
//! profile, feeds it the file slice by slice (or the pasted text), and posts the parsed profile
//! back as JSON (`roofline_lab::profile_json`), or the importer's message. So the page's wasm
//! carries neither the CSV and trace readers nor their JSON tokenizer, and a 50 MiB trace is
//! read without holding up a frame.
//!
//! Trunk builds it like the draw program (index.html: `data-bin="import" data-type="worker"`,
//! an ES module, without the crate's `app` feature); `scripts/csp_post_build.py` gives its
//! files hashed names and writes them into `<meta name="import-worker">`. Natively,
//! `cargo run --bin import -- <file>` prints the profile's JSON.

#[cfg(target_arch = "wasm32")]
mod web {
    use roofline::profile::Importer;
    use wasm_bindgen::prelude::*;

    /// One import: bytes in, then the profile's JSON out.
    #[wasm_bindgen]
    pub struct Import(Importer);

    #[wasm_bindgen]
    impl Import {
        /// A new import.
        #[wasm_bindgen(constructor)]
        pub fn new() -> Import {
            Import(Importer::new())
        }

        /// The next bytes of the file; throws the importer's message.
        pub fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
            self.0.feed(bytes).map_err(|e| e.to_string())
        }

        /// The profile as JSON, UTF-8 bytes (the worker hands the page their buffer, no
        /// copy); throws the importer's message. Ends the import.
        pub fn finish(self) -> Result<Vec<u8>, String> {
            self.0
                .finish()
                .map(|p| roofline_lab::profile_json::to_json(&p).into_bytes())
                .map_err(|e| e.to_string())
        }
    }

    impl Default for Import {
        fn default() -> Self {
            Import::new()
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("import: give a profile file (CSV or PyTorch trace JSON)");
        std::process::exit(2)
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("import: {path}: {e}");
        std::process::exit(1)
    });
    let mut imp = roofline::profile::Importer::new();
    match imp.feed(&bytes).and_then(|_| imp.finish()) {
        Ok(p) => println!("{}", roofline_lab::profile_json::to_json(&p)),
        Err(e) => {
            eprintln!("import: {e}");
            std::process::exit(1)
        }
    }
}
