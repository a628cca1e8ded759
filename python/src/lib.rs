//! `roofline_lab._core`: the command line's program (`roofline_cli::run`) called from Python,
//! so Python gets exactly what `roofline … --json` prints; `roofline_lab/__init__.py` reads it.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Runs `roofline <args>`: its standard output, or `ValueError` with its message (which names
/// the key or argument) where it would exit with status 2.
#[pyfunction]
fn run(args: Vec<String>) -> PyResult<String> {
    let out = roofline_cli::run(&args);
    if out.status == 0 {
        Ok(out.stdout)
    } else {
        let msg = out.stderr.trim();
        Err(PyValueError::new_err(
            msg.strip_prefix("roofline: ").unwrap_or(msg).to_string(),
        ))
    }
}

/// The page's worked examples as `(id, link)`: what the page's examples load.
#[pyfunction]
fn recipes() -> Vec<(String, String)> {
    roofline_lab::view::recipes()
        .into_iter()
        .map(|r| {
            (
                r.id.to_string(),
                format!("?{}", roofline::url::encode(&r.scenario)),
            )
        })
        .collect()
}

/// The module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(recipes, m)?)?;
    m.add("SCHEMA_VERSION", roofline_cli::SCHEMA_VERSION)?;
    m.add("SET_VERSION", roofline::validation::SET_VERSION)?;
    Ok(())
}
