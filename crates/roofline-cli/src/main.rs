//! `roofline`: Roofline Lab from a command line (see the `roofline_cli` library and
//! `roofline help`).

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = roofline_cli::run(&args);
    // A closed pipe (`roofline eval … | head`) is not an error of ours.
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    ExitCode::from(u8::try_from(out.status).unwrap_or(1))
}
